public import FederateTokens
import Foundation

/// The Firebase Auth emulator, named explicitly: the only way a Firebase verifier accepts
/// unsigned tokens.
///
/// With an emulator configured, a verifier does what the Admin SDKs do when
/// `FIREBASE_AUTH_EMULATOR_HOST` is set: it accepts the emulator's tokens only — header
/// `alg` `none`, an empty signature — and checks their claims with the same rules as real
/// ones (`iss` the issuer base plus the project, `aud` the project, `exp`, `iat`,
/// `auth_time`, `sub` of 1 to 128 characters, the tenant when one is expected). Signed tokens
/// are then refused. Never configure it in production: anyone can mint an unsigned token.
///
/// Nothing reads the environment behind the caller's back: a caller that chooses to honour
/// `FIREBASE_AUTH_EMULATOR_HOST` reads it and passes the host here.
public struct FirebaseEmulator: Sendable, Hashable {
    /// The emulator's `host:port` (`127.0.0.1:9099`).
    package let host: String

    /// Names the emulator at `host` (`host:port`: letters, digits, `.`, `-`, `:`, `[`, `]`);
    /// anything else, a scheme or a path included, is `invalid_configuration`.
    public init(host: String) throws(FederateError) {
        let allowed = host.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"):
                return true
            default:
                return false
            }
        }
        guard (1...255).contains(host.utf8.count), allowed else {
            throw FederateError(.invalidConfiguration, "the Firebase Auth emulator host is host:port, such as 127.0.0.1:9099")
        }
        self.host = host
    }

    /// The emulator named by `FIREBASE_AUTH_EMULATOR_HOST` in `environment`, or `nil` when it is
    /// unset or empty. Only a caller that passes the result to a verifier turns emulator mode on.
    package static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(FederateError) -> FirebaseEmulator? {
        guard let host = environment["FIREBASE_AUTH_EMULATOR_HOST"], !host.isEmpty else { return nil }
        return try FirebaseEmulator(host: host)
    }

    /// Checks an emulator token: compact serialization with an empty signature and header
    /// `alg` exactly `none`, then `rules` on its claims at `clock`'s time.
    func verify(
        _ token: String, rules: ClaimRules, limits: JWSLimits, clock: FederateClock, clockTolerance: Duration
    ) throws(FederateError) -> JSONMembers {
        guard token.utf8.count <= limits.maxTokenBytes else {
            throw FederateError(.tokenTooLarge, "token is \(token.utf8.count) bytes; the limit is \(limits.maxTokenBytes)")
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw FederateError(.malformedToken, "a compact JWS has exactly three segments")
        }
        guard parts[2].isEmpty else {
            throw FederateError(.disallowedAlgorithm, "the Auth emulator's tokens are unsigned: a signed token is refused in emulator mode")
        }
        guard let payload = Base64URL.decode(parts[1]) else {
            throw FederateError(.malformedToken, "the header or payload is not canonical base64url")
        }
        let header = try JOSEHeader(segment: String(parts[0]), limits: limits)
        let claims: JSONMembers
        do {
            claims = try JSONMembers(
                validating: payload, limits: JSONParser.Limits(maxBytes: limits.maxTokenBytes, maxDepth: limits.maxJSONDepth))
        } catch {
            throw FederateError(.malformedToken, "the header or payload is not a JSON object (\(error))")
        }
        guard header.algorithmName.exactlyEquals("none") else {
            throw FederateError(.disallowedAlgorithm, "an emulator token's 'alg' is 'none'")
        }
        // Only for the claim rules, which read claims and the header: the value is dropped
        // afterwards and no emulator token is ever reported as signed.
        let checked = VerifiedJWT(header: header, claims: claims, algorithm: .rs256, keyID: header.keyID)
        try rules.check(checked, context: ClaimContext(now: clock.now, clockTolerance: clockTolerance))
        return claims
    }
}
