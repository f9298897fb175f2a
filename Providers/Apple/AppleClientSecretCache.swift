package import FederateTokens
package import Foundation
import Synchronization

/// Hands out one cached `AppleClientSecret` and makes a new one before the old expires
/// (when less than a tenth of its lifetime, at most a day, remains).
package final class AppleClientSecretCache: Sendable {
    private struct Cached {
        var secret: String
        var expiresAt: Date
    }

    private let generator: AppleClientSecret
    private let cached = Mutex<Cached?>(nil)

    /// Caches secrets from `generator`.
    package init(generator: AppleClientSecret) {
        self.generator = generator
    }

    /// A secret valid at `now` for a while yet.
    package func secret(now: Date) throws(FederateError) -> String {
        let margin = min(generator.lifetime / 10, .seconds(86_400)).inSeconds
        return try cached.withLock { (cached) throws(FederateError) in
            if let current = cached, current.expiresAt.timeIntervalSince(now) > margin { return current.secret }
            let secret = try generator.make(now: now)
            cached = Cached(secret: secret, expiresAt: now.adding(generator.lifetime))
            return secret
        }
    }
}
