import Crypto
import _CryptoExtras
import X509

extension JSONWebKeySet {
    /// Parses Google's x509 key map: a JSON object `{kid: "-----BEGIN CERTIFICATE-----..."}`,
    /// as served for Firebase ID tokens and some Google service accounts.
    ///
    /// Each certificate's public key becomes a key with that `kid`; RSA keys go through the
    /// same checks as JWKS keys. Entries that are not PEM certificates with a supported key
    /// are skipped, never fatal to the set.
    public init(x509Map document: some Collection<UInt8>, limits: JSONParser.Limits = .document) throws(FederateError) {
        let members: [String: JSONValue]
        do {
            members = try JSONParser(limits: limits).parseObject(document)
        } catch {
            throw FederateError(.invalidKeySet, "the x509 key map is not a JSON object (\(error))")
        }
        var usable: [JSONWebKey] = []
        var skipped: [SkippedKey] = []
        for kid in members.keys.sorted() {
            guard case .string(let pem)? = members[kid] else {
                skipped.append(SkippedKey(keyID: kid, reason: "value is not a string"))
                continue
            }
            do {
                usable.append(JSONWebKey(keyID: kid, material: try Self.publicKey(fromCertificatePEM: pem)))
            } catch {
                skipped.append(SkippedKey(keyID: kid, reason: error.message))
            }
        }
        self.init(droppingAmbiguous: usable, skipped: skipped)
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
