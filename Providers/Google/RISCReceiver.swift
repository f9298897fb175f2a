public import FederateTokens
import Foundation
import Synchronization

/// Receives Google's Cross-Account Protection Security Event Tokens (RFC 8417).
///
/// A token is accepted when: `alg` is RS256 and a `kid` names one of the RISC configuration's
/// keys, the signature verifies, and the security-event rules pass
/// (`ClaimRules.securityEvent(issuers:audiences:)`): `iss` equals the
/// configuration's issuer exactly (mind its trailing slash), `aud` contains one of your
/// client IDs, `jti` is present and `events` is a non-empty object. `exp` is not checked:
/// security events do not expire. A `jti` seen within the
/// de-duplication window is acknowledged again without its events.
public final class RISCReceiver: Sendable {
    private let issuer: String
    private let clientIDs: IdentifierSet
    private let keys: any KeySetProvider
    private let window: Duration
    private let clock: FederateClock
    /// `jti`s by their exact bytes (`ExactString`): a look-alike `jti` is another token.
    private let seen = Mutex<[ExactString: Date]>([:])

    /// Creates a receiver.
    ///
    /// - Parameters:
    ///   - clientIDs: your OAuth client IDs (the accepted `aud` values).
    ///   - issuer: the configuration's `issuer` (Google's, `https://accounts.google.com/`, by default).
    ///   - keys: the configuration's `jwks_uri` keys (e.g. a `RemoteKeySet`).
    ///   - deduplicationWindow: how long a `jti` is remembered (default one day).
    ///   - clock: the time tokens are checked at and `jti`s are remembered by.
    public init(
        clientIDs: IdentifierSet, issuer: String = "https://accounts.google.com/", keys: any KeySetProvider,
        deduplicationWindow: Duration = .seconds(86_400), clock: FederateClock = .system
    ) {
        self.issuer = issuer
        self.clientIDs = clientIDs
        self.keys = keys
        self.window = deduplicationWindow
        self.clock = clock
    }

    /// Verifies a POSTed security event token (the request body) and returns its events:
    /// answer 202 Accepted. A `jti` already received within the de-duplication window is
    /// acknowledged again without its events (empty: answer 202 too). A refused token throws
    /// (`invalid_security_event`, or the verification codes: `invalid_signature`,
    /// `audience_mismatch`, …): answer 400.
    public func receive(_ body: [UInt8]) async throws(FederateError) -> [RISCEvent] {
        try await delivery(body).events
    }

    /// ``receive(_:)`` with the token's `jti` and whether it was a repeat: what a route that
    /// records deliveries needs.
    package func delivery(_ body: [UInt8]) async throws(FederateError) -> RISCDelivery {
        let now = clock.now
        let token = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let (tokenID, events) = try await verify(token, at: now)
        let duplicate = seen.withLock { seen in
            seen = seen.filter { now.timeIntervalSince($0.value) < window.inSeconds }
            if seen[ExactString(tokenID)] != nil { return true }
            seen[ExactString(tokenID)] = now
            return false
        }
        return RISCDelivery(tokenID: tokenID, events: duplicate ? [] : events, isDuplicate: duplicate)
    }

    private func verify(_ token: String, at now: Date) async throws(FederateError) -> (String, [RISCEvent]) {
        let verifier = JWTVerifier(
            rules: .securityEvent(issuers: [issuer], audiences: clientIDs), allowedAlgorithms: [.rs256], keys: keys,
            clock: .fixed(at: now), requiresKeyID: true)
        let token = try await verifier.verify(token)
        // The security-event rules passed: `jti` is a non-empty string and `events` a non-empty object.
        guard let tokenID = try token.string("jti"), case .object(let events)? = token["events"] else {
            throw FederateError(.invalidSecurityEvent, "the security event token has no 'jti' or 'events'")
        }
        let decoded = events.keys.sorted().map { type in RISCEvent(type: type, payload: events[type]?.objectValue ?? [:]) }
        return (tokenID, decoded)
    }
}

/// An accepted security event token, as `RISCReceiver.delivery(_:)` reads it.
package struct RISCDelivery: Sendable {
    /// The token's `jti`.
    package let tokenID: String
    /// The events to act on (empty for a repeat).
    package let events: [RISCEvent]
    /// Whether this `jti` was already received within the window.
    package let isDuplicate: Bool
}
