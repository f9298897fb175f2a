public import FederateTokens
public import Foundation
import Synchronization

/// Receives Google's Cross-Account Protection Security Event Tokens (RFC 8417).
///
/// A token is accepted when: `alg` is RS256 and a `kid` names one of the RISC configuration's
/// keys, the signature verifies, and the security-event rules pass
/// (``FederateTokens/ClaimRules/securityEvent(issuers:audiences:)``): `iss` equals the
/// configuration's issuer exactly (mind its trailing slash), `aud` contains one of your
/// client IDs, `jti` is present and `events` is a non-empty object. `exp` is not checked:
/// security events do not expire. A `jti` seen within the
/// de-duplication window is acknowledged again without its events.
public final class RISCReceiver: Sendable {
    /// Google's RISC issuer (from `https://accounts.google.com/.well-known/risc-configuration`).
    public static let googleIssuer = "https://accounts.google.com/"

    private let issuer: String
    private let clientIDs: IdentifierSet
    private let keys: any KeySetProvider
    private let window: TimeInterval
    private let seen = Mutex<[String: Date]>([:])

    /// Creates a receiver.
    ///
    /// - Parameters:
    ///   - clientIDs: your OAuth client IDs (the accepted `aud` values).
    ///   - issuer: the configuration's `issuer`.
    ///   - keys: the configuration's `jwks_uri` keys (e.g. a ``RemoteKeySet``).
    ///   - deduplicationWindow: how long a `jti` is remembered (default one day).
    public init(clientIDs: IdentifierSet, issuer: String = RISCReceiver.googleIssuer, keys: any KeySetProvider, deduplicationWindow: TimeInterval = 86_400) {
        self.issuer = issuer
        self.clientIDs = clientIDs
        self.keys = keys
        self.window = deduplicationWindow
    }

    /// Handles a POSTed token (the request body) and says what to answer.
    public func receive(_ body: [UInt8], now: Date = Date()) async -> RISCReceipt {
        do {
            let token = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let (tokenID, events) = try await verify(token, now: now)
            let duplicate = seen.withLock { seen in
                seen = seen.filter { now.timeIntervalSince($0.value) < window }
                if seen[tokenID] != nil { return true }
                seen[tokenID] = now
                return false
            }
            return RISCReceipt(status: 202, tokenID: tokenID, events: duplicate ? [] : events, isDuplicate: duplicate, error: nil)
        } catch {
            let failure = error as? FederateError ?? FederateError(.invalidSecurityEvent, "the security event token was refused")
            return RISCReceipt(status: 400, tokenID: nil, events: [], isDuplicate: false, error: failure)
        }
    }

    private func verify(_ token: String, now: Date) async throws -> (String, [RISCEvent]) {
        let verifier = JWTVerifier(
            rules: .securityEvent(issuers: [issuer], audiences: clientIDs), allowedAlgorithms: [.rs256], keys: keys, requiresKeyID: true)
        let token = try await verifier.verify(token, now: now.timeIntervalSince1970)
        // The security-event rules passed: `jti` is a non-empty string and `events` a non-empty object.
        guard let tokenID = try token.string("jti"), case .object(let events)? = token["events"] else {
            throw FederateError(.invalidSecurityEvent, "the security event token has no 'jti' or 'events'")
        }
        let decoded = events.keys.sorted().map { type in RISCEvent(type: type, payload: events[type]?.objectValue ?? [:]) }
        return (tokenID, decoded)
    }
}

/// What a ``RISCReceiver`` made of a request.
public struct RISCReceipt: Sendable {
    /// 202 when accepted (also for a repeat), 400 when refused.
    public let status: Int
    /// The token's `jti`, when accepted.
    public let tokenID: String?
    /// The events to act on (empty for a repeat or a refusal).
    public let events: [RISCEvent]
    /// Whether this `jti` was already received within the window.
    public let isDuplicate: Bool
    /// Why it was refused.
    public let error: FederateError?
}
