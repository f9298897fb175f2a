import FederateTestSupport
import Foundation
import Testing

/// The test harness's own guarantees, which keep a stuck child process or a taken port from
/// hanging or breaking a run.
@Suite("Test support")
struct TestSupportTests {
    @Test func aChildPastItsLifetimeIsKilledAndItsOutputEnds() async throws {
        let started = ContinuousClock.now
        let sleeper = try InteractiveCLI(executable: "/bin/sleep", arguments: ["60"], lifetime: 1)
        #expect(await sleeper.nextLine() == nil)
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    /// A pipe made for one child is never inherited by another child whose spawn was prepared
    /// before the pipe existed (Foundation's `Process` closes only the descriptors it saw): its
    /// descriptors close on `exec`. The other child here is spawned with no file actions at all.
    @Test func anotherChildDoesNotInheritAPipe() throws {
        let pipe = ChildProcesses.pipe()
        var pid: pid_t = 0
        let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("30"), nil]
        defer { arguments.forEach { free($0) } }
        #expect(posix_spawn(&pid, "/bin/sleep", nil, nil, arguments, environ) == 0)
        defer {
            kill(pid, SIGKILL)
            var exitStatus: Int32 = 0
            waitpid(pid, &exitStatus, 0)
        }
        var status = stat()
        #expect(fstat(pipe.fileHandleForWriting.fileDescriptor, &status) == 0)
        let inherited = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")
        }
        #expect(!inherited.isEmpty)
        #expect(!inherited.contains("pipe:[\(status.st_ino)]"), "\(inherited)")
    }

    @Test func freePortsAreBelowTheEphemeralRange() throws {
        let range = try String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
        let start = try #require(range.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) })
        for _ in 0..<20 {
            let port = try FreePort.loopback()
            #expect(port >= 20000 && port < start)
            _ = try RefusingPort(port: port)  // and free
        }
    }
}
