import Crypto
package import FederateTokens
package import Foundation

/// The `client_secret` Apple's token and revocation endpoints require: an ES256 JWT signed
/// with the team's Sign in with Apple key (the downloaded `.p8` file).
///
/// Claims: `iss` the team ID, `iat`, `exp` at most 15,777,000 s (about six months) later,
/// `aud` `https://appleid.apple.com`, `sub` the client ID (Services ID or bundle ID); header
/// `kid` the key ID.
package struct AppleClientSecret: Sendable {
    /// The longest lifetime Apple accepts (15,777,000 seconds).
    package static let maximumLifetime: Duration = .seconds(15_777_000)
    /// The audience Apple expects.
    package static let audience = "https://appleid.apple.com"

    /// The Apple developer team ID.
    package let teamID: String
    /// The key ID of the `.p8` key.
    package let keyID: String
    /// The client ID the secret is for.
    package let clientID: String
    /// How long each secret is valid.
    package let lifetime: Duration
    /// The `aud` of the secrets: Apple's `audience`, or a stand-in's issuer in tests.
    let tokenAudience: String
    private let key: JWSSigningKey

    /// Creates a generator from the `.p8` file's PEM text. Throws
    /// `FederateError/Code/invalidKey` for a key that is not a P-256 private key, and
    /// `FederateError/Code/invalidConfiguration` for a lifetime outside 1…15,777,000 s.
    /// `audience` is Apple's unless a stand-in (the dev provider's Apple flavour) is used.
    package init(
        teamID: String, keyID: String, clientID: String, privateKeyPEM: String, lifetime: Duration = AppleClientSecret.maximumLifetime,
        audience: String = AppleClientSecret.audience
    ) throws(FederateError) {
        guard !teamID.isEmpty, !keyID.isEmpty, !clientID.isEmpty else {
            throw FederateError(.invalidConfiguration, "team ID, key ID and client ID must not be empty")
        }
        guard lifetime >= .seconds(1), lifetime <= Self.maximumLifetime else {
            throw FederateError(.invalidConfiguration, "an Apple client secret lives 1 to 15,777,000 seconds")
        }
        let privateKey: P256.Signing.PrivateKey
        do {
            privateKey = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw FederateError(.invalidKey, "the Sign in with Apple key must be a P-256 private key in PEM (the .p8 file)")
        }
        self.teamID = teamID
        self.keyID = keyID
        self.clientID = clientID
        self.lifetime = lifetime
        self.tokenAudience = audience
        self.key = JWSSigningKey(p256: privateKey, keyID: keyID)
    }

    /// A fresh client secret issued at `now`.
    package func make(now: Date) throws(FederateError) -> String {
        let issuedAt = SafeNumber.clampedInt64(now.timeIntervalSince1970)
        return try key.sign(
            claims: [
                "iss": .string(teamID), "iat": .integer(issuedAt), "exp": .integer(issuedAt &+ lifetime.components.seconds),
                "aud": .string(tokenAudience), "sub": .string(clientID),
            ],
            algorithm: .es256, header: ["kid": .string(keyID)])
    }
}
