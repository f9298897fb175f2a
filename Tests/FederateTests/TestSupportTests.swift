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
