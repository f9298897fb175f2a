public import FederateRelyingParty
import Synchronization

/// A ``CacheClock`` the tests move by hand: cache expiry, forced-refetch limits and stale
/// windows without waiting on the wall clock (a loaded machine cannot break them).
public final class ManualCacheClock: Sendable {
    private let start = ContinuousClock.now
    private let offset = Mutex<Duration>(.zero)

    /// A clock at the current instant, until advanced.
    public init() {}

    /// Moves the clock forward.
    public func advance(by duration: Duration) {
        offset.withLock { $0 += duration }
    }

    /// The clock to give a cache.
    public var clock: CacheClock {
        CacheClock { [self] in start + offset.withLock { $0 } }
    }
}
