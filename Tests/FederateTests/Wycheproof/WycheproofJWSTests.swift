import Foundation
import Testing
import Federate
@testable import FederateAccounts
@testable import FederateRelyingParty
@testable import FederateTokens

/// Wycheproof's JWS and JWK vectors, run through the production path:
/// `CompactJWS(parsing:)` → `JWSSignatureVerifier.verify(_:keySet:)`.
///
/// Asymmetric groups: the key set is built with `JSONWebKeySet(jwks:)` from the group's
/// public key(s), or its private key(s) stripped of their private members. A key that
/// `JSONWebKey` refuses (1024-bit RSA, exponent 1, ROCA, `use: enc`, `key_ops: [encrypt]`,
/// wrong curve, ...) is simply absent from the set, so its vectors must come out invalid.
///
/// Symmetric (`oct`) groups: Federate never takes an HMAC key from a key set, only from an
/// explicitly configured secret (the OIDC client secret). So every `oct` vector is run twice:
/// (a) through the key set path, where it must be rejected whatever Wycheproof expects, and
/// (b) with the group's single `k` configured as an ``HMACSecret``, where the verdict must
/// match Wycheproof.
@Suite("Wycheproof JWS and JWK vectors", .enabled(if: Wycheproof.shouldRun, Wycheproof.skipNote))
struct WycheproofJWSTests {
    /// Why Federate's verdict differs from Wycheproof's on a vector, on purpose.
    enum Deviation {
        /// A `?` inside the base64url of the header or payload (tcId 372, 373). Wycheproof
        /// marks them valid because some libraries skip characters outside the alphabet;
        /// Federate's parser refuses them, so a token has exactly one accepted spelling.
        /// Must fail to parse.
        case strictBase64URL
        /// The JWK says `"alg": "PS256"` and the token `PS384` (RFC 7520 figure 20; tcId 346,
        /// 350). RFC 7517 §4.4 lets a key's `alg` restrict its use, and Federate binds it:
        /// must be rejected with `key_algorithm_mismatch`.
        case keyAlgorithmBinding
        /// The JWK says `"alg": "ES521"`, which is no JWS algorithm (RFC 7520 figure 27 has
        /// `ES512`; tcId 347, 351). A key set skips keys with an unknown `alg`, so the token
        /// finds no key: must be rejected with `unknown_key`.
        case unknownKeyAlgorithm
        /// Marked invalid ("invalidBase64Padding", tcId 367, 370), yet byte for byte the
        /// unpadded, correctly signed HS256 token that 372 and 373 derive from (checked with an
        /// independent HMAC): the padding the vector is about did not survive into this file.
        /// Must be accepted with the configured secret.
        case paddingLostFromVector
    }

    /// Vectors of json_web_signature_test.json where Federate disagrees with Wycheproof on
    /// purpose, with the reason. No other vector may disagree.
    static let deliberateDeviations: [Int: Deviation] = [
        372: .strictBase64URL, 373: .strictBase64URL,
        346: .keyAlgorithmBinding, 350: .keyAlgorithmBinding,
        347: .unknownKeyAlgorithm, 351: .unknownKeyAlgorithm,
        367: .paddingLostFromVector, 370: .paddingLostFromVector,
    ]

    @Test func jsonWebSignatureVectors() throws {
        let file = try Wycheproof.load("json_web_signature_test.json")
        let run = try Self.run(file, deviations: Self.deliberateDeviations)
        #expect(run.tally.total == file.numberOfTests, "\(run.tally)")
        #expect(run.tally.total > 400, "\(run.tally)")
        #expect(run.tally.valid > 40, "\(run.tally)")
        #expect(run.tally.invalid > 350, "\(run.tally)")
        #expect(run.symmetricVectors > 35, "oct vectors: \(run.symmetricVectors)")
        // Every listed deviation still exists in the file.
        #expect(run.deviationsSeen == Set(Self.deliberateDeviations.keys))
    }

    @Test func jsonWebKeyVectors() throws {
        let file = try Wycheproof.load("json_web_key_test.json")
        let run = try Self.run(file, deviations: [:])
        #expect(run.tally.total == file.numberOfTests, "\(run.tally)")
        #expect(run.tally.total > 25, "\(run.tally)")
        #expect(run.tally.valid > 3, "\(run.tally)")
        #expect(run.tally.invalid > 20, "\(run.tally)")
        #expect(run.symmetricVectors > 10, "oct vectors: \(run.symmetricVectors)")
    }

    @Test func wycheproofDirectoryIsFound() throws {
        // Run only where the vectors are, or in CI: there, without them, the tests above fail too.
        let directory = try Wycheproof.directory()
        for file in Wycheproof.files {
            #expect(
                FileManager.default.fileExists(atPath: directory.appendingPathComponent(file).path),
                "\(file) is missing from \(directory.path)")
        }
    }
}

// MARK: - Running a file

extension WycheproofJWSTests {
    /// What running one file did.
    struct Run {
        var tally = WycheproofTally()
        /// Vectors whose group holds an `oct` key.
        var symmetricVectors = 0
        /// Deliberate deviations that were met.
        var deviationsSeen: Set<Int> = []
    }

    /// Private JWK members, removed when a group only gives a private key.
    /// (An `oct` key's `k` stays: the point of the symmetric vectors is that a key set
    /// holding the secret still never supplies it.)
    static let privateMembers: Set<String> = ["d", "p", "q", "dp", "dq", "qi"]

    static func run(_ file: Wycheproof.File, deviations: [Int: Deviation]) throws -> Run {
        var run = Run()
        for group in file.groups {
            let jwks = try keys(of: group)
            let keySet = try JSONWebKeySet(jwks: Wycheproof.jsonBytes(["keys": jwks]))
            let isSymmetric = jwks.contains { $0["kty"] as? String == "oct" }
            // A single configured secret exists only when the group has exactly one key and
            // it is `oct`. Keysets with several keys (jws_keyset, jws_duplicate_kid: two `oct`
            // keys; jws_mixedSymmetryKeyset: an `oct` and an EC key) test how a library picks
            // a secret out of a key set, which Federate never does: for those only the key
            // set path (rejection) applies.
            let secretVerifier = isSymmetric && jwks.count == 1 ? try configuredSecretVerifier(for: jwks[0]) : nil

            for vector in group.vectors {
                let token = try #require(vector.string("jws"), "\(vector.label): no jws")
                if vector.flags.contains("JsonSerialization") {
                    #expect(throws: FederateError.self, "\(vector.label): JSON serialization is not a compact JWS") {
                        try CompactJWS(parsing: token)
                    }
                }
                if deviations[vector.tcId] != nil {
                    run.deviationsSeen.insert(vector.tcId)
                }

                let verdict: Verdict
                if isSymmetric {
                    run.symmetricVectors += 1
                    // (a) The "never from a key set" rule: rejected even with every algorithm,
                    // HS256/384/512 included, allowed.
                    let throughKeySet = Verdict(token, JWSSignatureVerifier(allowedAlgorithms: Set(JWSAlgorithm.allCases)), keySet)
                    #expect(!throughKeySet.isAccepted, "\(vector.label): an oct key from a key set was used: \(throughKeySet)")
                    guard let secretVerifier else {
                        run.tally.record(vector.expectation, accepted: throughKeySet.isAccepted)
                        continue
                    }
                    // (b) The supported way: the secret configured explicitly.
                    verdict = Verdict(token, secretVerifier, .empty)
                } else {
                    verdict = Verdict(token, JWSSignatureVerifier(allowedAlgorithms: JWSAlgorithm.asymmetric), keySet)
                }
                run.tally.record(vector.expectation, accepted: verdict.isAccepted)
                expect(verdict, for: vector, deviation: deviations[vector.tcId], token: token)
            }
        }
        return run
    }

    /// The group's JWKs: its `public` key or key set, else its `private` one minus private members.
    static func keys(of group: Wycheproof.Group) throws -> [[String: Any]] {
        let holder = try #require(group.object("public") ?? group.object("private"), "a group without a key")
        let keys = holder["keys"] as? [[String: Any]] ?? [holder]
        return keys.map { $0.filter { !privateMembers.contains($0.key) } }
    }

    /// How an application verifies HS256/384/512: the secret configured explicitly, and the
    /// allowed algorithms those the secret is for.
    ///
    /// The JWK's own `alg` restricts what the key may be used with (RFC 7517 §4.4), exactly as
    /// `JSONWebKey.permits(_:)` does for a key from a key set; an application configuring this
    /// key as its HMAC secret allows that algorithm only. The AES keys of json_web_key_test
    /// tcId 25 and 26 (`alg` A256GCM, A256KW) thus allow no HMAC algorithm at all.
    static func configuredSecretVerifier(for jwk: [String: Any]) throws -> JWSSignatureVerifier {
        let k = try #require(jwk["k"] as? String, "an oct key without k")
        let secret = HMACSecret(bytes: try #require(Base64URL.decode(k), "k is not canonical base64url"))
        var allowed: Set<JWSAlgorithm> = [.hs256, .hs384, .hs512]
        if let alg = jwk["alg"] as? String {
            allowed = allowed.filter { $0.rawValue == alg }
        }
        return JWSSignatureVerifier(allowedAlgorithms: allowed, hmacSecret: secret)
    }

    /// Checks Federate's verdict against Wycheproof's expectation.
    static func expect(_ verdict: Verdict, for vector: Wycheproof.Vector, deviation: Deviation?, token: String) {
        if let deviation {
            switch deviation {
            case .strictBase64URL:
                #expect(!verdict.isAccepted, "\(vector.label): deliberate deviation, must be rejected: \(verdict)")
                let error = #expect(throws: FederateError.self, "\(vector.label): must fail to parse") {
                    try CompactJWS(parsing: token)
                }
                #expect(error?.code == .malformedToken, "\(vector.label): \(String(describing: error))")
            case .keyAlgorithmBinding:
                #expect(verdict.errorCode == .keyAlgorithmMismatch, "\(vector.label): \(verdict)")
            case .unknownKeyAlgorithm:
                #expect(verdict.errorCode == .unknownKey, "\(vector.label): \(verdict)")
            case .paddingLostFromVector:
                #expect(verdict.isAccepted, "\(vector.label): \(verdict)")
            }
            return
        }
        switch vector.expectation {
        case .valid: #expect(verdict.isAccepted, "\(vector.label): Wycheproof says valid; Federate: \(verdict)")
        case .invalid: #expect(!verdict.isAccepted, "\(vector.label): Wycheproof says invalid; Federate: \(verdict)")
        case .acceptable: break  // Either verdict; counted in the tally.
        }
    }
}

// MARK: - Verdict

extension WycheproofJWSTests {
    /// What Federate did with a token: parse, then verify.
    enum Verdict: CustomStringConvertible {
        case accepted(JWSSignatureVerifier.Result)
        case rejected(FederateError)

        init(_ token: String, _ verifier: JWSSignatureVerifier, _ keySet: JSONWebKeySet) {
            do throws(FederateError) {
                self = .accepted(try verifier.verify(CompactJWS(parsing: token), keySet: keySet))
            } catch {
                self = .rejected(error)
            }
        }

        var isAccepted: Bool {
            if case .accepted = self { return true }
            return false
        }

        var errorCode: FederateError.Code? {
            if case .rejected(let error) = self { return error.code }
            return nil
        }

        var description: String {
            switch self {
            case .accepted(let result): "accepted (\(result.algorithm.rawValue), kid \(result.keyID ?? "none"))"
            case .rejected(let error): "rejected (\(error))"
            }
        }
    }
}
