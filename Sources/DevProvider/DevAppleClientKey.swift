import Crypto
import Federate
package import Foundation

/// A Sign in with Apple key for the Apple flavour: the private half signs client secrets
/// (as a developer's `.p8` file does), the public half is registered with the dev provider.
public struct DevAppleClientKey: Sendable {
    /// The team ID (`iss` of client secrets).
    public let teamID: String
    /// The key ID (`kid` of client secrets).
    public let keyID: String
    private let key: P256.Signing.PrivateKey

    /// A fresh key.
    init(teamID: String, keyID: String) {
        self.init(teamID: teamID, keyID: keyID, key: P256.Signing.PrivateKey())
    }

    /// An existing key, from its PEM (the `.p8` file's text).
    init(teamID: String, keyID: String, privateKeyPEM: String) throws(FederateError) {
        do {
            self.init(teamID: teamID, keyID: keyID, key: try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM))
        } catch {
            throw FederateError(.invalidKey, "the Apple client key must be a P-256 private key in PEM")
        }
    }

    private init(teamID: String, keyID: String, key: P256.Signing.PrivateKey) {
        self.teamID = teamID
        self.keyID = keyID
        self.key = key
    }

    /// The private key as PKCS#8 PEM, like the `.p8` file Apple lets developers download.
    public var privateKeyPEM: String { key.pemRepresentation }

    /// The public key as a one-key set, for `DevClient/publicKeys`.
    var publicKeySet: JSONWebKeySet {
        let jwk = JWSSigningKey(p256: key, keyID: keyID).publicJWK(algorithm: .es256) ?? [:]
        // A JWKS built from our own key: it always parses.
        return (try? JSONWebKeySet(jwks: JSONSerializer.bytes(["keys": [.object(jwk)]]))) ?? .empty
    }

    /// A client secret for `clientID` as Apple requires it: ES256, `iss` the team, `sub` the
    /// client, `aud` the provider's issuer, valid `lifetime` from `now`.
    package func clientSecret(clientID: String, audience: String, lifetime: Duration = .seconds(3600), now: Date) throws -> String {
        let issuedAt = SafeNumber.clampedInt64(now.timeIntervalSince1970)
        return try JWSSigningKey(p256: key, keyID: keyID).sign(
            claims: [
                "iss": .string(teamID), "sub": .string(clientID), "aud": .string(audience), "iat": .integer(issuedAt),
                "exp": .integer(issuedAt &+ lifetime.wholeSeconds),
            ],
            algorithm: .es256, header: [:])
    }
}
