public import FederateTokens
public import Foundation
import Synchronization

/// A `FederateClock` the tests move by hand: its date and its monotonic instant advance
/// together, only when told, so token expiry, session windows, cache lifetimes and retry
/// intervals are tested without waiting on the wall clock (a loaded machine cannot break them).
public final class TestClock: Sendable {
    private let startDate: Date
    private let startInstant = ContinuousClock.now
    private let offset = Mutex<Duration>(.zero)

    /// Starts at `start`: by default the current whole second (session tokens count in whole seconds).
    public init(_ start: Date = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))) {
        startDate = start
    }

    /// The clock's current date.
    public var now: Date { startDate.addingTimeInterval(Self.seconds(offset.withLock { $0 })) }

    /// Moves the clock forward.
    public func advance(by span: Duration) {
        offset.withLock { $0 += span }
    }

    /// The clock to hand to caches, verifiers, sessions and flows.
    public var clock: FederateClock {
        FederateClock(now: { [self] in now }, instant: { [self] in startInstant + offset.withLock { $0 } })
    }

    private static func seconds(_ span: Duration) -> Double {
        Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18
    }
}
