import Crypto
public import FederateRelyingParty
public import FederateTokens
import Foundation

/// Apple's issuer, key and endpoint defaults (all configurable for tests and the dev provider).
public struct AppleEndpoints: Sendable, Hashable {
    /// `iss` of Apple's tokens.
    package var issuer: String
    /// Apple's JWKS.
    package var keysURL: String
    /// The authorization endpoint.
    package var authorizationURL: String
    /// The token endpoint.
    package var tokenURL: String
    /// The revocation endpoint.
    package var revocationURL: String

    /// Apple's real endpoints.
    public static let apple = AppleEndpoints(
        issuer: "https://appleid.apple.com", keysURL: "https://appleid.apple.com/auth/keys",
        authorizationURL: "https://appleid.apple.com/auth/authorize", tokenURL: "https://appleid.apple.com/auth/token",
        revocationURL: "https://appleid.apple.com/auth/revoke")

    /// Endpoints under another base URL with Apple's paths (for a local stand-in such as the dev provider).
    public static func at(_ base: String) -> AppleEndpoints {
        AppleEndpoints(
            issuer: base, keysURL: base + "/auth/keys", authorizationURL: base + "/auth/authorize",
            tokenURL: base + "/auth/token", revocationURL: base + "/auth/revoke")
    }
}

/// How the token's `nonce` relates to the nonce the app holds.
public enum AppleNonceMode: Sendable, Hashable {
    /// The token carries the nonce as sent.
    case raw
    /// The token carries the lower-case hex SHA-256 of the raw nonce (what Apple's samples
    /// and Firebase do for native apps).
    case sha256Hex

    /// What the token must contain for `raw`.
    package func expectedClaim(for raw: String) -> String {
        switch self {
        case .raw: return raw
        case .sha256Hex: return SHA256.hash(data: Array(raw.utf8)).map { String(format: "%02x", $0) }.joined()
        }
    }
}

/// Verifies Sign in with Apple ID tokens: RS256 by Apple's keys (by `kid`, refetched on an
/// unknown one), `iss` Apple, `aud` one of the client IDs, and the usual claim rules.
public struct AppleIDTokenVerifier: Sendable {
    /// The underlying verifier.
    package private(set) var verifier: IDTokenVerifier

    /// Creates a verifier for `clientIDs` (Services IDs and bundle IDs) with `keys`, or with
    /// Apple's keys fetched over `httpClient`; tokens are checked at `clock`'s time, and
    /// verifications counted and traced through `observability` (Docs/Operations.md).
    public init(
        clientIDs: IdentifierSet, endpoints: AppleEndpoints = .apple, keys: (any KeySetProvider)? = nil,
        httpClient: (any HTTPClient)? = nil, clock: FederateClock = .system, observability: Observability = Observability()
    ) throws(FederateError) {
        let provider = try RemoteKeySet.keys(keys, orFetch: endpoints.keysURL, over: httpClient, clock: clock, observability: observability)
        verifier = IDTokenVerifier(
            policy: IDTokenPolicy(issuers: [endpoints.issuer], audiences: clientIDs, allowedAlgorithms: [.rs256]), keys: provider,
            clock: clock, observability: observability)
    }

    /// Verifies `token` and reads Apple's claims; with `rawNonce`, its `nonce` must match per
    /// `nonceMode` (``verify(_:)`` expects none).
    public nonisolated(nonsending) func verify(
        _ token: String, rawNonce: String?, nonceMode: AppleNonceMode = .raw
    ) async throws(FederateError) -> AppleIdentity {
        let expectations = IDTokenExpectations(nonce: rawNonce.map(nonceMode.expectedClaim(for:)))
        return try AppleIdentity(try await verifier.verify(token, expecting: expectations))
    }
}

/// The Apple-specific reading of a verified ID token.
public struct AppleIdentity: Sendable {
    /// The verified token.
    public let idToken: IDToken
    /// The stable user ID (`sub`): the key to store.
    public var userID: String { idToken.subject }
    /// The email, possibly a private relay address.
    package var email: String? { idToken.email }
    /// `email_verified`, sent by Apple as a boolean or as `"true"`/`"false"`.
    public let emailVerified: Bool?
    /// `is_private_email`, likewise.
    public let isPrivateEmail: Bool?
    /// `real_user_status`: 0 unsupported, 1 unknown, 2 likely real.
    public let realUserStatus: Int?
    /// `nonce_supported`.
    package let nonceSupported: Bool?
    /// `transfer_sub`, during an app transfer between teams.
    public var transferSubject: String? { idToken["transfer_sub"]?.stringValue }

    /// Reads Apple's claims; a present claim of the wrong type throws `FederateError/Code/invalidClaim`.
    public init(_ idToken: IDToken) throws(FederateError) {
        self.idToken = idToken
        func flag(_ name: String) throws(FederateError) -> Bool? {
            guard let value = idToken[name] else { return nil }
            guard let flag = AppleClaims.bool(value) else { throw FederateError(.invalidClaim, "'\(name)' is not a boolean") }
            return flag
        }
        emailVerified = try flag("email_verified")
        isPrivateEmail = try flag("is_private_email")
        nonceSupported = try flag("nonce_supported")
        if let status = idToken["real_user_status"] {
            guard let value = status.int64Value, (0...2).contains(value) else {
                throw FederateError(.invalidClaim, "'real_user_status' is not 0, 1 or 2")
            }
            realUserStatus = Int(value)
        } else {
            realUserStatus = nil
        }
    }
}

extension AppleIDTokenVerifier: TokenVerifier {
    /// Verifies an Apple ID token, expecting no nonce, with Apple's claims read as
    /// ``verify(_:rawNonce:nonceMode:)`` reads them: provider `apple.com`, the token in
    /// `VerifiedToken.idToken`.
    public nonisolated(nonsending) func verify(_ token: String) async throws(FederateError) -> VerifiedToken {
        VerifiedToken(idToken: try AppleIdentity(try await verifier.verify(token)).idToken, providerID: AppleProvider.providerID)
    }
}

extension AppleIDTokenVerifier: CacheConfigurableVerifier {
    /// This verifier with a verified-token cache of its own sized by `configuration`.
    package func withVerifiedTokenCache(_ configuration: VerifiedTokenCacheConfiguration) -> any TokenVerifier {
        var copy = self
        copy.verifier = verifier.caching(configuration)
        return copy
    }
}
