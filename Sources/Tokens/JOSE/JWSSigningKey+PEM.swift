import Crypto
import _CryptoExtras

extension JWSSigningKey {
    /// A private key from PEM (PKCS#8 `PRIVATE KEY`, SEC 1 `EC PRIVATE KEY` or PKCS#1
    /// `RSA PRIVATE KEY`): P-256, P-384, P-521 or RSA (at least 2048 bits), with its
    /// natural algorithm (ES256, ES384, ES512, RS256). Throws ``FederateError/Code/invalidKey``
    /// for anything else; the message never contains key material.
    public static func fromPEM(_ pem: String, keyID: String? = nil) throws(FederateError) -> (key: JWSSigningKey, algorithm: JWSAlgorithm) {
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) { return (JWSSigningKey(p256: key, keyID: keyID), .es256) }
        if let key = try? P384.Signing.PrivateKey(pemRepresentation: pem) { return (JWSSigningKey(p384: key, keyID: keyID), .es384) }
        if let key = try? P521.Signing.PrivateKey(pemRepresentation: pem) { return (JWSSigningKey(p521: key, keyID: keyID), .es512) }
        if let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem) {
            guard key.keySizeInBits >= 2048 else { throw FederateError(.invalidKey, "the RSA key has fewer than 2048 bits") }
            return (JWSSigningKey(rsa: key, keyID: keyID), .rs256)
        }
        throw FederateError(.invalidKey, "the PEM holds no P-256, P-384, P-521 or RSA private key")
    }
}
