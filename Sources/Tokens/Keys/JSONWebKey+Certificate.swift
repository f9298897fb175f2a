import Crypto
import X509
import _CryptoExtras

extension JSONWebKey {
    /// The public key of a PEM X.509 certificate, with `keyID`. RSA keys go through the same
    /// checks as JWKS keys. The certificate itself is not validated (no chain, no dates): the
    /// certificate is only a container for the key, as in Google's x509 key maps.
    package init(keyID: String, certificatePEM pem: String) throws(FederateError) {
        self.init(keyID: keyID, material: try Self.publicKey(fromCertificatePEM: pem))
    }

    private static func publicKey(fromCertificatePEM pem: String) throws(FederateError) -> PublicKeyMaterial {
        let certificate: Certificate
        do {
            certificate = try Certificate(pemEncoded: pem)
        } catch {
            throw FederateError(.invalidKey, "not a PEM X.509 certificate")
        }
        let key = certificate.publicKey
        if let rsa = _RSA.Signing.PublicKey(key) {
            guard let primitives = try? rsa.getKeyPrimitives() else {
                throw FederateError(.invalidKey, "RSA key parameters unreadable")
            }
            _ = try RSAPublicKeyChecks.validate(modulus: Array(primitives.modulus), exponent: Array(primitives.publicExponent))
            return .rsa(rsa)
        }
        if let p256 = P256.Signing.PublicKey(key) { return .p256(p256) }
        if let p384 = P384.Signing.PublicKey(key) { return .p384(p384) }
        if let p521 = P521.Signing.PublicKey(key) { return .p521(p521) }
        if let ed = Curve25519.Signing.PublicKey(key) { return .ed25519(ed) }
        throw FederateError(.invalidKey, "certificate key type is not supported")
    }
}
