import Crypto
import Foundation
import SwiftASN1
import Testing
import X509
import Federate
import FederateGoogle
@testable import FederateAccounts
@testable import FederateRelyingParty
@testable import FederateTokens

@Suite struct JSONWebKeySetTests {
    private func jwks(_ keys: [JSONValue]) -> [UInt8] { JSONSerializer.bytes(["keys": .array(keys)]) }

    @Test func skipsUnusableKeysWithoutFailingTheSet() throws {
        var noKid = Fixtures.ec.publicJWK()!
        noKid["kid"] = nil
        var encryption = Fixtures.rsa.publicJWK()!
        encryption["use"] = "enc"
        encryption["kid"] = "enc"
        var encryptOps = Fixtures.rsa.publicJWK()!
        encryptOps["kid"] = "ops"
        encryptOps["use"] = nil
        encryptOps["key_ops"] = ["encrypt"]
        var unknownAlg = Fixtures.rsa.publicJWK()!
        unknownAlg["kid"] = "ua"
        unknownAlg["alg"] = "RSA-OAEP"
        var mismatchedAlg = Fixtures.ec.publicJWK()!
        mismatchedAlg["kid"] = "ma"
        mismatchedAlg["alg"] = "ES384"
        var withPrivate = Fixtures.ec.publicJWK()!
        withPrivate["kid"] = "priv"
        withPrivate["d"] = "AAAA"
        let set = try JSONWebKeySet(
            jwks: jwks([
                .object(Fixtures.rsa.publicJWK()!),
                .object(noKid), .object(encryption), .object(encryptOps), .object(unknownAlg), .object(mismatchedAlg), .object(withPrivate),
                ["kty": "oct", "kid": "hmac", "k": "c2VjcmV0"],
                ["kty": "FOO", "kid": "foo"],
                [
                    "kty": "EC", "kid": "bad-point", "crv": "P-256", "x": .string(Base64URL.encode([UInt8](repeating: 1, count: 32))),
                    "y": .string(Base64URL.encode([UInt8](repeating: 2, count: 32))),
                ],
                "not an object",
            ]))
        // The key without kid is kept (tokens without kid try it); the other ten are skipped.
        #expect(set.keyIDs == ["rsa-1"])
        #expect(set.keys.count == 2 && set.keys.contains { $0.keyID == nil })
        #expect(set.skipped.count == 9)
    }

    @Test func duplicateKidMakesBothKeysUnusable() async throws {
        var second = Fixtures.otherRSA.publicJWK()!
        second["kid"] = "rsa-1"
        let set = try JSONWebKeySet(jwks: jwks([.object(Fixtures.rsa.publicJWK()!), .object(second), .object(Fixtures.ec.publicJWK()!)]))
        #expect(set.keyIDs == ["ec-1"])
        #expect(await Fixtures.errorCode(Fixtures.token(), keySet: set) == .unknownKey)
        #expect(throws: FederateError.self) {
            try JSONWebKeySet(keys: [JSONWebKey(jwk: Fixtures.rsa.publicJWK()!), JSONWebKey(jwk: second)])
        }
    }

    @Test func rejectsWeakRSAKeys() throws {
        let small = try _RSAKeyMaker.publicJWK(bits: 1024)
        #expect(throws: FederateError(.invalidKey, "RSA modulus has 1024 bits; at least 2048 are required")) { try JSONWebKey(jwk: small) }
        var exponentOne = Fixtures.rsa.publicJWK()!
        exponentOne["e"] = "AQ"
        #expect { try JSONWebKey(jwk: exponentOne) } throws: { ($0 as? FederateError)?.code == .invalidKey }
        var evenExponent = Fixtures.rsa.publicJWK()!
        evenExponent["e"] = "AAI"
        #expect { try JSONWebKey(jwk: evenExponent) } throws: { ($0 as? FederateError)?.code == .invalidKey }
    }

    @Test func rocaFingerprintIsDetected() {
        // A modulus congruent to a power of 65537 modulo every test prime has the fingerprint;
        // 65537 itself (as a big-endian number) trivially is one.
        #expect(RSAPublicKeyChecks.hasROCAFingerprint(modulus: [0x01, 0x00, 0x01]))
        #expect(!RSAPublicKeyChecks.hasROCAFingerprint(modulus: [0x01, 0x00, 0x02]))
    }

    @Test(arguments: ["[]", "{}", "{\"keys\":{}}", "not json", "{\"keys\":[],\"keys\":[]}"])
    func rejectsDocumentsThatAreNotKeySets(_ text: String) {
        #expect { try JSONWebKeySet(jwks: Array(text.utf8)) } throws: { ($0 as? FederateError)?.code == .invalidKeySet }
    }

    @Test func parsesGoogleX509Map() async throws {
        let pem = try Fixtures.selfSignedCertificatePEM()
        let document = JSONSerializer.bytes([
            "cert-1": .string(pem), "broken": "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----", "num": 5,
        ])
        let set = try JSONWebKeySet(x509Map: document)
        #expect(set.keyIDs == ["cert-1"])
        #expect(set.skipped.count == 2)
        let token = try Fixtures.rsa.sign(claims: Fixtures.claims(), algorithm: .rs256, header: ["kid": "cert-1"])
        #expect(await Fixtures.errorCode(token, keySet: set) == nil)
    }

}

import _CryptoExtras

enum _RSAKeyMaker {
    static func publicJWK(bits: Int) throws -> [String: JSONValue] {
        let key = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: bits))
        let primitives = try key.publicKey.getKeyPrimitives()
        return [
            "kty": "RSA", "kid": "small", "n": .string(Base64URL.encode(Array(primitives.modulus))),
            "e": .string(Base64URL.encode(Array(primitives.publicExponent))),
        ]
    }
}

extension Fixtures {
    /// A self-signed certificate for `Fixtures.rsa`'s public key, as PEM.
    static func selfSignedCertificatePEM() throws -> String {
        let privateKey = try #require(rsaPrivateKey)
        let name = try DistinguishedName { CommonName("securetoken") }
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(privateKey.publicKey),
            notValidBefore: Date().addingTimeInterval(-3600), notValidAfter: Date().addingTimeInterval(86400),
            issuer: name, subject: name, signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: Certificate.Extensions {}, issuerPrivateKey: .init(privateKey))
        return try certificate.serializeAsPEM().pemString
    }

    /// The RSA private key behind `Fixtures.rsa`.
    static var rsaPrivateKey: _RSA.Signing.PrivateKey? {
        if case .rsa(let key) = rsa.material { return key }
        return nil
    }
}
