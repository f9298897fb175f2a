import Foundation
import Synchronization

/// A clock the tests move by hand.
final class TestClock: Sendable {
    private let current: Mutex<Date>

    /// Starts at the current whole second (session tokens count in whole seconds).
    init(_ start: Date = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))) {
        current = Mutex(start)
    }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// The closure ``AccountService`` takes.
    var function: @Sendable () -> Date { { [self] in self.now } }
}
