import Testing
import Federate
@testable import FederateAccounts
@testable import FederateRelyingParty
@testable import FederateTokens

/// Wycheproof's raw signature vectors for the primitives behind RS256, PS256, ES256 and
/// EdDSA, run through the same code that verifies JWS signatures:
/// `JSONWebKey(jwk:)` then `JSONWebKey.verify(signature:signingInput:algorithm:)`.
///
/// "valid" must verify, "invalid" must not; "acceptable" may go either way and is counted.
/// Groups whose hash, MGF or salt length differ from what the JWS algorithm implies are
/// skipped (at least one group must run per file).
@Suite("Wycheproof signature vectors", .enabled(if: Wycheproof.shouldRun, Wycheproof.skipNote))
struct WycheproofSignatureTests {
    /// A vector file and the JWS algorithm whose primitive it tests.
    enum VectorFile: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case rsaPKCS1 = "rsa_signature_2048_sha256_test.json"
        case rsaPSS = "rsa_pss_2048_sha256_mgf1_32_test.json"
        case ecdsaP256 = "ecdsa_secp256r1_sha256_p1363_test.json"
        case ed25519 = "ed25519_test.json"

        var algorithm: JWSAlgorithm {
            switch self {
            case .rsaPKCS1: .rs256
            case .rsaPSS: .ps256
            case .ecdsaP256: .es256
            case .ed25519: .edDSA
            }
        }

        /// A floor on the number of vectors, so the test cannot pass by running nothing.
        var minimumVectors: Int {
            switch self {
            case .rsaPKCS1: 200
            case .rsaPSS: 100
            case .ecdsaP256: 200
            case .ed25519: 140
            }
        }

        /// The group parameters `algorithm` implies (RFC 7518 §3.3–3.5, RFC 8037).
        var requiredParameters: [String: String] {
            switch self {
            case .rsaPKCS1: ["type": "RsassaPkcs1Verify", "sha": "SHA-256"]
            case .rsaPSS: ["type": "RsassaPssVerify", "sha": "SHA-256", "mgf": "MGF1", "mgfSha": "SHA-256", "sLen": "32"]
            case .ecdsaP256: ["type": "EcdsaP1363Verify", "sha": "SHA-256"]
            case .ed25519: ["type": "EddsaVerify"]
            }
        }

        var testDescription: String { "\(algorithm.rawValue) (\(rawValue))" }
    }

    @Test(arguments: VectorFile.allCases)
    func vectors(_ vectorFile: VectorFile) throws {
        let file = try Wycheproof.load(vectorFile.rawValue)
        var tally = WycheproofTally()
        var groupsRun = 0, vectorsSkipped = 0
        for group in file.groups {
            guard Self.fits(group, vectorFile) else {
                vectorsSkipped += group.vectors.count
                continue
            }
            groupsRun += 1
            let key = try Self.key(of: group)
            for vector in group.vectors {
                let message = try Wycheproof.bytes(hex: try #require(vector.string("msg"), "\(vector.label): no msg"))
                let signature = try Wycheproof.bytes(hex: try #require(vector.string("sig"), "\(vector.label): no sig"))
                let verified = key.verify(signature: signature, signingInput: message, algorithm: vectorFile.algorithm)
                tally.record(vector.expectation, accepted: verified)
                switch vector.expectation {
                case .valid: #expect(verified, "\(vector.label): Wycheproof says valid; Federate rejected it")
                case .invalid: #expect(!verified, "\(vector.label): Wycheproof says invalid; Federate accepted it")
                case .acceptable: break  // Either verdict; counted in the tally.
                }
            }
        }
        #expect(groupsRun > 0, "no group of \(file.name) fits \(vectorFile.algorithm.rawValue)")
        #expect(tally.total + vectorsSkipped == file.numberOfTests, "\(tally), \(vectorsSkipped) skipped")
        #expect(tally.total > vectorFile.minimumVectors, "\(tally)")
        #expect(tally.valid > 0 && tally.invalid > 0, "\(tally)")
    }

    /// Whether the group's parameters are exactly those the JWS algorithm implies.
    static func fits(_ group: Wycheproof.Group, _ vectorFile: VectorFile) -> Bool {
        vectorFile.requiredParameters.allSatisfy { name, required in
            (group.string(name) ?? group.int(name).map(String.init)) == required
        }
    }

    /// The group's public key as a `JSONWebKey`: from its JWK (`keyJwk`, `jwk` or
    /// `publicKeyJwk`), or, for RSA files without one, from its hex `n` and `e`.
    static func key(of group: Wycheproof.Group) throws -> JSONWebKey {
        let jwk = try group.object("keyJwk") ?? group.object("jwk") ?? group.object("publicKeyJwk") ?? rsaJWK(of: group)
        return try JSONWebKey(jwk: Wycheproof.jsonMembers(jwk))
    }

    /// An RSA JWK from hex parameters: base64url of the unsigned big-endian integers
    /// without leading zero bytes (RFC 7518 §6.3.1).
    static func rsaJWK(of group: Wycheproof.Group) throws -> [String: Any] {
        func parameter(_ name: String) throws -> String {
            let hex = try #require(group.string(name), "an RSA group without a JWK or hex '\(name)'")
            return Base64URL.encode(try Wycheproof.bytes(hex: hex).drop { $0 == 0 })
        }
        return ["kty": "RSA", "n": try parameter("n"), "e": try parameter("e")]
    }
}
