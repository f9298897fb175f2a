public import FederateTokens
import Foundation
import Synchronization

/// Keeps a service's own tokens (client credentials, ``ServiceTokenClient``) and gets a new
/// one before the old one expires, with one request in flight per key.
///
/// A key is what the token is for: its scopes (in any order), resources and audience,
/// compared byte for byte (`ExactString`), so a look-alike scope never gets another's token.
/// A token is renewed once less than `refreshBefore` remains; while the renewal is in
/// flight every caller for that key waits for the same request, and if it fails, a token not
/// yet expired is still handed out (the failure then surfaces only when none is left). A token
/// without `expires_in` is kept `defaultLifetime`. At most 256 keys are kept; past that the
/// cache starts again empty.
///
/// This is for the service's own tokens; a user's tokens at a provider are the account layer's.
public final class ServiceTokenCache: Sendable {
    private struct Entry {
        var token: IssuedToken?
        var renewsAt: Date?
        var expiresAt: Date?
        var inFlight: Task<Result<IssuedToken, FederateError>, Never>?
    }

    /// The client that gets the tokens.
    package let client: ServiceTokenClient
    /// How long before expiry a token is renewed.
    let refreshBefore: Duration
    /// How long a token without `expires_in` is kept.
    let defaultLifetime: Duration
    private let entries = Mutex<[ExactString: Entry]>([:])
    private static let maximumKeys = 256

    /// A cache over `client`, renewing tokens `refreshBefore` (default 60 s) before they expire.
    public init(client: ServiceTokenClient, refreshBefore: Duration = .seconds(60), defaultLifetime: Duration = .seconds(300)) {
        self.client = client
        self.refreshBefore = refreshBefore
        self.defaultLifetime = defaultLifetime
    }

    /// A valid token for `scopes`, `resources` and `audience`: the cached one, or a new one
    /// when there is none or it is about to expire.
    public func token(scopes: [String] = [], resources: [String] = [], audience: String? = nil) async throws(FederateError) -> IssuedToken {
        let key = Self.key(scopes: scopes, resources: resources, audience: audience)
        let now = client.clock.now
        enum Step { case ready(IssuedToken), wait(Task<Result<IssuedToken, FederateError>, Never>, fallback: IssuedToken?) }
        let step: Step = entries.withLock { entries in
            var entry = entries[key] ?? Entry()
            if let token = entry.token, let renewsAt = entry.renewsAt, now < renewsAt { return .ready(token) }
            let stillValid = entry.token.flatMap { token in entry.expiresAt.map { now < $0 } == true ? token : nil }
            if let inFlight = entry.inFlight { return .wait(inFlight, fallback: stillValid) }
            if entries[key] == nil, entries.count >= Self.maximumKeys { entries.removeAll() }
            let client = self.client
            let task = Task { () async -> Result<IssuedToken, FederateError> in
                do throws(FederateError) {
                    return .success(try await client.clientCredentials(scopes: scopes, resources: resources, audience: audience))
                } catch {
                    return .failure(error)
                }
            }
            entry.inFlight = task
            entries[key] = entry
            return .wait(task, fallback: stillValid)
        }
        switch step {
        case .ready(let token):
            return token
        case .wait(let task, let fallback):
            let result = await task.value
            let finished = client.clock.now
            entries.withLock { entries in
                guard var entry = entries[key], entry.inFlight == task else { return }
                entry.inFlight = nil
                if case .success(let token) = result {
                    let expiresAt = token.expiresAt ?? finished.addingTimeInterval(defaultLifetime.inSeconds)
                    entry.token = token
                    entry.expiresAt = expiresAt
                    entry.renewsAt = max(finished, expiresAt.addingTimeInterval(-refreshBefore.inSeconds))
                }
                entries[key] = entry
            }
            switch result {
            case .success(let token): return token
            case .failure(let error):
                if let fallback { return fallback }
                throw error
            }
        }
    }

    /// `request` with the token for `scopes`, `resources` and `audience`: `Authorization:
    /// Bearer`, or `Authorization: DPoP` and a proof of the client's key for this request
    /// when the token is DPoP-bound (RFC 9449 §7.1).
    public func authorize(
        _ request: HTTPRequest, scopes: [String] = [], resources: [String] = [], audience: String? = nil
    ) async throws(FederateError) -> HTTPRequest {
        let token = try await token(scopes: scopes, resources: resources, audience: audience)
        var request = request
        request.headers.removeAll { $0.name.caseInsensitiveEquals("Authorization") || $0.name.caseInsensitiveEquals("DPoP") }
        if token.isDPoPBound, let dpop = client.dpop {
            request.headers.append(("Authorization", "DPoP " + token.token))
            request.headers.append(("DPoP", try dpop.proof(method: request.method, url: request.url, accessToken: token.token)))
        } else {
            request.headers.append(("Authorization", "Bearer " + token.token))
        }
        return request
    }

    /// The key: sorted scopes, resources in order, the audience, each length-prefixed so no
    /// two requests share one.
    static func key(scopes: [String], resources: [String], audience: String?) -> ExactString {
        var parts: [String] = ["s"] + scopes.sorted { Array($0.utf8).lexicographicallyPrecedes($1.utf8) }
        parts += ["r"] + resources + ["a"] + (audience.map { [$0] } ?? [])
        return ExactString(parts.map { "\($0.utf8.count):\($0)" }.joined())
    }
}
