import Crypto
import Federate

/// P-256 keys for ES256 ID tokens.
enum DevECKey {
    static func make(keyID: String) -> JWSSigningKey {
        JWSSigningKey(p256: P256.Signing.PrivateKey(), keyID: keyID)
    }
}
