/// The monotonic time the caches (key sets, discovery documents) expire and retry by: the
/// system's `ContinuousClock` (``system``), or one a test moves by hand, so cache tests never
/// wait on the wall clock.
public struct CacheClock: Sendable {
    private let read: @Sendable () -> ContinuousClock.Instant

    /// A clock that reads `now`. A test's clock returns a fixed start advanced by hand.
    public init(now: @escaping @Sendable () -> ContinuousClock.Instant) {
        read = now
    }

    /// The current instant.
    public var now: ContinuousClock.Instant { read() }

    /// The system's continuous clock.
    public static let system = CacheClock { ContinuousClock.now }
}
