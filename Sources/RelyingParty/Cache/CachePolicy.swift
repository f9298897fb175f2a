/// How long fetched documents (key sets, discovery documents) are kept and refreshed.
public struct CachePolicy: Sendable, Hashable {
    /// The shortest lifetime, whatever `Cache-Control` says (also used for `no-cache`). Default 60 s.
    package var minimumLifetime: Duration
    /// The longest lifetime, whatever `Cache-Control` says. Default 24 h.
    package var maximumLifetime: Duration
    /// The lifetime when the response has no `max-age`. Default 10 min.
    var defaultLifetime: Duration
    /// At most one forced refetch (for an unknown `kid`) per this interval. Default 30 s.
    package var forcedRefreshInterval: Duration
    /// How long after expiry the last good copy keeps serving while the endpoint fails. Default 6 h.
    package var maximumStaleness: Duration
    /// After a failed refresh, how long stale copies serve before the next attempt. Default 5 s.
    var retryDelayAfterFailure: Duration

    /// Creates a policy; every value has a sensible default.
    public init(
        minimumLifetime: Duration = .seconds(60),
        maximumLifetime: Duration = .seconds(24 * 3600),
        defaultLifetime: Duration = .seconds(600),
        forcedRefreshInterval: Duration = .seconds(30),
        maximumStaleness: Duration = .seconds(6 * 3600),
        retryDelayAfterFailure: Duration = .seconds(5)
    ) {
        self.minimumLifetime = minimumLifetime
        self.maximumLifetime = maximumLifetime
        self.defaultLifetime = defaultLifetime
        self.forcedRefreshInterval = forcedRefreshInterval
        self.maximumStaleness = maximumStaleness
        self.retryDelayAfterFailure = retryDelayAfterFailure
    }

    /// The lifetime for a response with these headers: `max-age` (minus `Age`) clamped to
    /// the floor and ceiling; `no-cache`/`no-store` give the floor.
    package func lifetime(cacheControl: String?, age: String?) -> Duration {
        guard let cacheControl else { return clamp(defaultLifetime) }
        var maxAge: Int?
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            switch parts.first {
            case "no-cache", "no-store": return minimumLifetime
            case "max-age" where parts.count == 2:
                if let value = Int(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))), value >= 0 { maxAge = value }
            default: continue
            }
        }
        guard var seconds = maxAge else { return clamp(defaultLifetime) }
        if let age, let ageSeconds = Int(age.trimmingCharacters(in: .whitespaces)), ageSeconds > 0 {
            seconds = max(0, seconds - ageSeconds)
        }
        return clamp(.seconds(seconds))
    }

    private func clamp(_ value: Duration) -> Duration {
        min(max(value, minimumLifetime), maximumLifetime)
    }
}

import Foundation
