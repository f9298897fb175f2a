public import Foundation

/// The one source of time for everything in Federate that depends on it: verifiers (`exp`,
/// `iat`, `nbf`, `auth_time`), sessions, authorization flows, and the caches of discovery
/// documents and key sets.
///
/// It reads two kinds of time, advanced together:
/// - ``now``, the wall-clock date that tokens, sessions and flows are checked against;
/// - `instant`, a monotonic instant that cache lifetimes and retry intervals count on,
///   which a change of the system's date cannot move.
///
/// Production code uses ``system``. Build one `FederateClock` and hand the same value to the
/// `ProviderCache`, the verifiers and the `AccountService`; a test hands them a clock it
/// advances by hand, so no test waits on the wall clock.
public struct FederateClock: Sendable {
    private let readDate: @Sendable () -> Date
    private let readInstant: @Sendable () -> ContinuousClock.Instant

    /// A clock that reads the date from `now` and the monotonic instant from `instant`. A
    /// test's clock derives both from one offset it advances, so they move together.
    public init(now: @escaping @Sendable () -> Date, instant: @escaping @Sendable () -> ContinuousClock.Instant) {
        readDate = now
        readInstant = instant
    }

    /// The current wall-clock date.
    public var now: Date { readDate() }

    /// The current monotonic instant.
    package var instant: ContinuousClock.Instant { readInstant() }

    /// The system's clocks: `Date()` and `ContinuousClock.now`.
    public static let system = FederateClock(now: { Date() }, instant: { ContinuousClock.now })

    /// A clock whose date stays at `date` (to check a token as of a given moment, as
    /// `federate verify --at` does); its instants still advance with the system's.
    public static func fixed(at date: Date) -> FederateClock {
        FederateClock(now: { date }, instant: { ContinuousClock.now })
    }
}
