import Federate
import FederateTestSupport
import Foundation
import Testing

/// The one clock: what it reads, how a test moves it, and that nothing else reads the time.
@Suite("FederateClock")
struct FederateClockTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test func systemClockReadsTheSystemTime() {
        let before = Date()
        let read = FederateClock.system.now
        #expect(read >= before && read <= Date())
        let first = FederateClock.system.instant
        #expect(FederateClock.system.instant >= first)
    }

    @Test func fixedClockStaysPut() {
        let date = Date(timeIntervalSince1970: 1_000_000)
        let clock = FederateClock.fixed(at: date)
        #expect(clock.now == date)
        #expect(clock.now == date)
    }

    @Test func testClockMovesDateAndInstantTogether() {
        let time = TestClock(Date(timeIntervalSince1970: 1_000_000))
        let clock = time.clock
        let instant = clock.instant
        time.advance(by: .milliseconds(1500))
        #expect(clock.now == Date(timeIntervalSince1970: 1_000_001.5))
        #expect(clock.instant - instant == .milliseconds(1500))
    }

    /// Every time-dependent part takes the clock it is given: no source file outside
    /// `FederateClock.swift` reads the system time itself (comments aside). The transports
    /// are the exception: a request's timeout is real time, kept by the network library.
    @Test func nothingElseReadsTheSystemTime() throws {
        let readers = ["Date()", "Date.now", "ContinuousClock.now", "SuspendingClock.now", "DispatchTime.now", "time(nil)", "gettimeofday"]
        var offenders: [String] = []
        for folder in ["Sources", "Providers", "Examples"] {
            let base = Self.root.appendingPathComponent(folder)
            let files = try #require(FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil))
            for case let url as URL in files
            where url.pathExtension == "swift" && url.lastPathComponent != "FederateClock.swift"
                && !url.path.contains("/Sources/Transports/")
            {
                let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                for (number, line) in lines.enumerated() {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    guard !code.hasPrefix("//") else { continue }
                    if readers.contains(where: { code.contains($0) }) {
                        offenders.append("\(url.path.dropFirst(Self.root.path.count + 1)):\(number + 1): \(code)")
                    }
                }
            }
        }
        #expect(offenders.isEmpty, "read the time through a FederateClock instead:\n\(offenders.joined(separator: "\n"))")
    }
}
