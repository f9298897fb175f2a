public import Foundation
import Synchronization

/// A clock the tests move by hand.
public final class TestClock: Sendable {
    private let current: Mutex<Date>

    /// Starts at the current whole second (session tokens count in whole seconds).
    public init(_ start: Date = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))) {
        current = Mutex(start)
    }

    public var now: Date { current.withLock { $0 } }

    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// The closure ``AccountService`` takes.
    public var function: @Sendable () -> Date { { [self] in self.now } }
}
