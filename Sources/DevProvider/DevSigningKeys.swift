import Crypto
import Federate
import Foundation
import X509
import _CryptoExtras

/// One generation of the dev provider's signing keys: an RSA key (with a self-signed
/// certificate for the Firebase flavour's x509 map) and a P-256 key.
struct DevSigningKeys: Sendable {
    let generation: Int
    let rsa: JWSSigningKey
    let ec: JWSSigningKey
    /// The RSA key's certificate in PEM, as Google's securetoken certificate map serves it.
    let rsaCertificatePEM: String

    init(generation: Int, now: Date) throws {
        let rsaKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        self.generation = generation
        rsa = JWSSigningKey(rsa: rsaKey, keyID: "dev-rsa-\(generation)")
        ec = JWSSigningKey(p256: P256.Signing.PrivateKey(), keyID: "dev-ec-\(generation)")
        rsaCertificatePEM = try Self.selfSignedCertificate(for: rsaKey, generation: generation, now: now)
    }

    private static func selfSignedCertificate(for key: _RSA.Signing.PrivateKey, generation: Int, now: Date) throws -> String {
        let name = try DistinguishedName { CommonName("federate-dev-provider-\(generation)") }
        let privateKey = Certificate.PrivateKey(key)
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: privateKey.publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(14 * 86_400),
            issuer: name, subject: name, signatureAlgorithm: .sha256WithRSAEncryption, extensions: Certificate.Extensions(),
            issuerPrivateKey: privateKey)
        return try certificate.serializeAsPEM().pemString
    }
}
