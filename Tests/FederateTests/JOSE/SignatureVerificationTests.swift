import Crypto
import Testing
import Federate
@testable import FederateAccounts
@testable import FederateRelyingParty
@testable import FederateTokens

/// The key-selection and algorithm-binding rules of JWSSignatureVerifier.
@Suite struct SignatureVerificationTests {
    @Test(arguments: [JWSAlgorithm.rs256, .rs384, .rs512, .ps256, .ps384, .ps512])
    func rsaAlgorithmsVerify(_ algorithm: JWSAlgorithm) async {
        #expect(await Fixtures.errorCode(Fixtures.token(algorithm: algorithm)) == nil)
    }

    @Test func ecAndEdDSAVerify() async throws {
        #expect(await Fixtures.errorCode(Fixtures.token(key: Fixtures.ec, algorithm: .es256)) == nil)
        #expect(await Fixtures.errorCode(Fixtures.token(key: Fixtures.ed, algorithm: .edDSA)) == nil)
        let p384 = JWSSigningKey(p384: P384.Signing.PrivateKey(), keyID: "p384")
        let p521 = JWSSigningKey(p521: P521.Signing.PrivateKey(), keyID: "p521")
        let set = try JSONWebKeySet(keys: [JSONWebKey(jwk: p384.publicJWK()!), JSONWebKey(jwk: p521.publicJWK()!)])
        #expect(await Fixtures.errorCode(Fixtures.token(key: p384, algorithm: .es384), keySet: set) == nil)
        #expect(await Fixtures.errorCode(Fixtures.token(key: p521, algorithm: .es512), keySet: set) == nil)
    }

    @Test func noneIsNeverAccepted() async {
        let token = "\(Fixtures.segment(#"{"alg":"none"}"#)).\(Base64URL.encode(JSONSerializer.bytes(.object(Fixtures.claims())))).AA"
        #expect(await Fixtures.errorCode(token) == .unsupportedAlgorithm)
        let noneWithKid = "\(Fixtures.segment(#"{"alg":"none","kid":"rsa-1"}"#)).\(Fixtures.segment("{}")).AA"
        #expect(await Fixtures.errorCode(noneWithKid) == .unsupportedAlgorithm)
    }

    @Test func hmacWithTheRSAPublicKeyAsSecretIsRejected() async throws {
        // The classic confusion: sign HS256 with the bytes of the server's RSA public key.
        let publicKeyBytes = Array(JSONSerializer.bytes(.object(Fixtures.rsa.publicJWK()!)))
        let forger = JWSSigningKey(hmac: HMACSecret(bytes: publicKeyBytes), keyID: "rsa-1")
        let forged = try forger.sign(claims: Fixtures.claims(), algorithm: .hs256)
        #expect(await Fixtures.errorCode(forged) == .disallowedAlgorithm)
        // Even when HS256 is allowed, a key set never supplies the secret.
        #expect(await Fixtures.errorCode(forged, policy: Fixtures.policy { $0.allowedAlgorithms.insert(.hs256) }) == .disallowedAlgorithm)
    }

    @Test func hmacWorksOnlyWithAConfiguredSecret() async throws {
        let secret = HMACSecret(utf8: String(repeating: "s", count: 32))
        let token = try JWSSigningKey(hmac: secret).sign(claims: Fixtures.claims(), algorithm: .hs256)
        let policy = Fixtures.policy {
            $0.allowedAlgorithms = [.hs256]
            $0.hmacSecret = secret
        }
        #expect(await Fixtures.errorCode(token, policy: policy) == nil)
        let wrong = Fixtures.policy {
            $0.allowedAlgorithms = [.hs256]
            $0.hmacSecret = HMACSecret(utf8: String(repeating: "t", count: 32))
        }
        #expect(await Fixtures.errorCode(token, policy: wrong) == .invalidSignature)
        let short = Fixtures.policy {
            $0.allowedAlgorithms = [.hs256]
            $0.hmacSecret = HMACSecret(utf8: "short")
        }
        let shortToken = try JWSSigningKey(hmac: HMACSecret(utf8: "short")).sign(claims: Fixtures.claims(), algorithm: .hs256)
        #expect(await Fixtures.errorCode(shortToken, policy: short) == .invalidKey)
    }

    @Test func rs256HeaderOnAnECKeyIsAKeyMismatch() async throws {
        // A token claiming RS256 with the kid of the EC key.
        let token = try Fixtures.rsa.sign(claims: Fixtures.claims(), algorithm: .rs256, header: ["kid": "ec-1"])
        #expect(await Fixtures.errorCode(token) == .keyAlgorithmMismatch)
        // ES256 header pointing at the RSA key.
        let token2 = try Fixtures.ec.sign(claims: Fixtures.claims(), algorithm: .es256, header: ["kid": "rsa-1"])
        #expect(await Fixtures.errorCode(token2) == .keyAlgorithmMismatch)
    }

    @Test func algorithmOutsideTheAllowListIsRejected() async {
        let token = Fixtures.token(algorithm: .ps256)
        #expect(await Fixtures.errorCode(token, policy: Fixtures.policy { $0.allowedAlgorithms = [.rs256] }) == .disallowedAlgorithm)
        let unknown = "\(Fixtures.segment(#"{"alg":"RS1","kid":"rsa-1"}"#)).\(Fixtures.segment("{}")).AA"
        #expect(await Fixtures.errorCode(unknown) == .unsupportedAlgorithm)
    }

    @Test func keysOwnAlgRestrictsUse() async throws {
        var jwk = Fixtures.rsa.publicJWK()!
        jwk["alg"] = "RS256"
        let set = try JSONWebKeySet(keys: [JSONWebKey(jwk: jwk)])
        #expect(await Fixtures.errorCode(Fixtures.token(algorithm: .rs256), keySet: set) == nil)
        #expect(await Fixtures.errorCode(Fixtures.token(algorithm: .ps256), keySet: set) == .keyAlgorithmMismatch)
    }

    @Test func unknownKidIsRejectedEvenIfAnotherKeyWouldVerify() async throws {
        let token = try Fixtures.rsa.sign(claims: Fixtures.claims(), algorithm: .rs256, header: ["kid": "not-in-set"])
        #expect(await Fixtures.errorCode(token) == .unknownKey)
    }

    @Test func sameKidOtherKeyFailsTheSignature() async {
        // otherRSA has the same kid ("rsa-1") but a different key.
        #expect(await Fixtures.errorCode(Fixtures.token(key: Fixtures.otherRSA)) == .invalidSignature)
    }

    @Test func withoutKidEveryFittingKeyIsTried() async throws {
        let second = try JWSSigningKey.generateRSA(keyID: nil)
        var jwk1 = Fixtures.otherRSA.publicJWK()!
        jwk1["kid"] = nil
        let set = try JSONWebKeySet(keys: [
            JSONWebKey(jwk: jwk1), JSONWebKey(jwk: second.publicJWK()!), JSONWebKey(jwk: Fixtures.ec.publicJWK()!),
        ])
        let token = try second.sign(claims: Fixtures.claims(), algorithm: .rs256)
        #expect(await Fixtures.errorCode(token, keySet: set) == nil)
        let ed = try JWSSigningKey(ed25519: .init(), keyID: nil).sign(claims: Fixtures.claims(), algorithm: .edDSA)
        #expect(await Fixtures.errorCode(ed, keySet: set) == .unknownKey)
        let wrong = try JWSSigningKey.generateRSA(keyID: nil).sign(claims: Fixtures.claims(), algorithm: .rs256)
        #expect(await Fixtures.errorCode(wrong, keySet: set) == .invalidSignature)
    }

    @Test func embeddedKeysInTheHeaderAreNeverUsed() async throws {
        let attacker = try JWSSigningKey.generateRSA(keyID: "rsa-1")
        for member in ["jwk", "jku", "x5u", "x5c"] {
            let value: JSONValue =
                member == "jwk" ? .object(attacker.publicJWK()!) : member == "x5c" ? ["MIIB"] : "https://evil.example/keys"
            let token = try attacker.sign(claims: Fixtures.claims(), algorithm: .rs256, header: [member: value])
            #expect(await Fixtures.errorCode(token) == .invalidSignature, "\(member)")
            #expect(try CompactJWS(parsing: token).header.carriesEmbeddedKeyReference)
        }
    }

    @Test func tamperedPayloadFails() async {
        let parts = Fixtures.token().split(separator: ".").map(String.init)
        let forged = Base64URL.encode(JSONSerializer.bytes(.object(Fixtures.claims(["sub": "admin"]))))
        #expect(await Fixtures.errorCode("\(parts[0]).\(forged).\(parts[2])") == .invalidSignature)
    }

    @Test func ecdsaSignatureMustHaveExactRawLength() async throws {
        let token = Fixtures.token(key: Fixtures.ec, algorithm: .es256)
        let parts = token.split(separator: ".").map(String.init)
        var signature = try #require(Base64URL.decode(parts[2]))
        #expect(signature.count == 64)
        signature.append(0)
        #expect(await Fixtures.errorCode("\(parts[0]).\(parts[1]).\(Base64URL.encode(signature))") == .invalidSignature)
    }
}
