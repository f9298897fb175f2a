import Crypto
import Foundation
import Testing
@testable import FederateTokens

/// DPoP proofs (RFC 9449) and JWK thumbprints (RFC 7638): the RFCs' own examples, our proofs
/// round-tripping, and hostile proofs refused with their codes.
@Suite("DPoP proofs") struct DPoPProofTests {
    /// RFC 9449 §4.1's example proof, signed by its example key.
    static let rfcProof =
        "eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7Imt0eSI6IkVDIiwieCI6Imw4dEZyaHgtMzR0VjNoUklDUkRZOXpDa0RscEJoRjQyVVFVZldWQVdCRnMiLCJ5IjoiOVZFNGpmX09rX282NHpiVFRsY3VOSmFqSG10NnY5VERWclUwQ2R2R1JEQSIsImNydiI6IlAtMjU2In19"
        + ".eyJqdGkiOiItQndDM0VTYzZhY2MybFRjIiwiaHRtIjoiUE9TVCIsImh0dSI6Imh0dHBzOi8vc2VydmVyLmV4YW1wbGUuY29tL3Rva2VuIiwiaWF0IjoxNTYyMjYyNjE2fQ"
        + ".2-GxA6T8lP4vfrg8v-FdWP0A0zdrj8igiMLvqRMUvwnQg4PtFLbdLXiOSsX0x7NVY-FNyJK70nfbV37xRZT3Lg"
    static let rfcIssuedAt = Date(timeIntervalSince1970: 1_562_262_616)
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func verifier(at date: Date = now) -> DPoPProofVerifier {
        DPoPProofVerifier(clock: .fixed(at: date))
    }

    static func code(_ body: () throws -> Any) -> FederateError.Code? {
        do {
            _ = try body()
            return nil
        } catch let error as FederateError {
            return error.code
        } catch {
            return "unexpected"
        }
    }

    @Test func rfc9449ExampleVerifiesAndHasTheRFCThumbprint() throws {
        let proof = try Self.verifier(at: Self.rfcIssuedAt.addingTimeInterval(5)).verify(
            Self.rfcProof, method: "POST", uri: "https://server.example.com/token")
        #expect(proof.jti == "-BwC3ESc6acc2lTc")
        // RFC 9449 §6.1's `cnf.jkt` for this key.
        #expect(proof.thumbprint == "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
        // The same example, checked against another method, URI, or too late, fails.
        let late = Self.verifier(at: Self.rfcIssuedAt.addingTimeInterval(600))
        #expect(Self.code { try late.verify(Self.rfcProof, method: "POST", uri: "https://server.example.com/token") } == .tokenExpired)
        let onTime = Self.verifier(at: Self.rfcIssuedAt)
        #expect(Self.code { try onTime.verify(Self.rfcProof, method: "GET", uri: "https://server.example.com/token") } == .invalidDPoPProof)
        #expect(
            Self.code { try onTime.verify(Self.rfcProof, method: "POST", uri: "https://server.example.com/other") } == .invalidDPoPProof)
        // An access token presented with a proof lacking `ath`.
        #expect(
            Self.code { try onTime.verify(Self.rfcProof, method: "POST", uri: "https://server.example.com/token", accessToken: "at") }
                == .missingClaim)
        // A server requiring a nonce.
        #expect(
            Self.code { try onTime.verify(Self.rfcProof, method: "POST", uri: "https://server.example.com/token", acceptedNonces: ["n"]) }
                == .useDPoPNonce)
        // Normalization: case, default port, query and fragment of the request do not matter.
        _ = try onTime.verify(Self.rfcProof, method: "POST", uri: "HTTPS://Server.Example.COM:443/token?x=1#f")
    }

    @Test func rfc9449AccessTokenHash() {
        // RFC 9449 §7.1: the access token and its `ath`.
        #expect(
            AccessTokenHashRule.hash(of: "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU") == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")
    }

    @Test func rfc7638ThumbprintExample() throws {
        // RFC 7638 §3.1: the RSA key of RFC 7517 A.1, with `alg` and `kid` that do not count.
        let key: [String: JSONValue] = [
            "kty": "RSA", "alg": "RS256", "kid": "2011-04-29", "e": "AQAB",
            "n":
                "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
        ]
        #expect(try JWKThumbprint.sha256(of: key) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        #expect(Self.code { try JWKThumbprint.sha256(of: ["kty": "oct", "k": "c2VjcmV0"]) } == .invalidKey)
        #expect(Self.code { try JWKThumbprint.sha256(of: ["kty": "EC", "crv": "P-256", "x": "AA"]) } == .invalidKey)
    }

    @Test func ourProofsRoundTrip() throws {
        let key = DPoPKey.generateES256()
        let uri = "https://api.example.com/resource?page=2"
        let proof = try key.proof(method: "GET", uri: uri, issuedAt: Self.now, accessToken: "token-1", nonce: "n-1")
        let jws = try CompactJWS(parsing: proof)
        #expect(jws.header.type == "dpop+jwt" && jws.header.keyID == nil)
        let claims = try JSONParser().parseObject(jws.payload)
        #expect(claims["htu"] == "https://api.example.com/resource")  // no query (§4.2)
        let verified = try Self.verifier().verify(proof, method: "GET", uri: uri, accessToken: "token-1", acceptedNonces: ["old", "n-1"])
        #expect(verified.thumbprint == key.thumbprint && verified.nonce == "n-1")
        #expect(Self.code { try Self.verifier().verify(proof, method: "GET", uri: uri, accessToken: "token-2") } == .invalidDPoPProof)
        #expect(
            Self.code { try Self.verifier().verify(proof, method: "GET", uri: uri, accessToken: "token-1", acceptedNonces: ["n-2"]) }
                == .useDPoPNonce)
        // Two proofs never share a jti.
        let other = try key.proof(method: "GET", uri: uri, issuedAt: Self.now)
        #expect(try Self.verifier().verify(other, method: "GET", uri: uri).jti != verified.jti)
        // `replayKey` is bounded and depends on the key and the jti.
        #expect(verified.replayKey.count == 43)
    }

    @Test func issuedAtWindow() throws {
        let key = DPoPKey.generateES256()
        let uri = "https://as.example.com/token"
        func at(_ offset: TimeInterval) -> FederateError.Code? {
            Self.code {
                try Self.verifier().verify(
                    try key.proof(method: "POST", uri: uri, issuedAt: Self.now.addingTimeInterval(offset)), method: "POST", uri: uri)
            }
        }
        #expect(at(0) == nil)
        #expect(at(25) == nil)  // within the 30 s tolerance
        #expect(at(31) == .issuedInFuture)
        #expect(at(86_400 * 365) == .issuedInFuture)
        #expect(at(-89) == nil)  // 60 s maximum age + 30 s tolerance
        #expect(at(-91) == .tokenExpired)
        #expect(at(-86_400 * 365) == .tokenExpired)
    }

    /// Signs a proof with `key` and a header of our choosing.
    static func forged(
        header: [String: JSONValue], claims: [String: JSONValue]? = nil, key: JWSSigningKey, algorithm: JWSAlgorithm
    ) throws -> String {
        let claims = claims ?? ["jti": "j", "htm": "POST", "htu": "https://as.example.com/token", "iat": .integer(1_700_000_000)]
        return try key.sign(claims: claims, algorithm: algorithm, header: header)
    }

    @Test func hostileProofsAreRefused() throws {
        let p256 = P256.Signing.PrivateKey()
        let signing = JWSSigningKey(p256: p256, keyID: nil)
        let dpop = try DPoPKey(signingKey: signing, algorithm: .es256)
        let uri = "https://as.example.com/token"
        func check(_ proof: String) -> FederateError.Code? { Self.code { try Self.verifier().verify(proof, method: "POST", uri: uri) } }

        // Baseline: a well-formed proof passes.
        #expect(
            check(try Self.forged(header: ["typ": "dpop+jwt", "jwk": .object(dpop.publicJWK)], key: signing, algorithm: .es256)) == nil)
        // A jwk with the private key `d`.
        var privateJWK = dpop.publicJWK
        privateJWK["d"] = .string(Base64URL.encode(p256.rawRepresentation))
        #expect(
            check(try Self.forged(header: ["typ": "dpop+jwt", "jwk": .object(privateJWK)], key: signing, algorithm: .es256))
                == .invalidDPoPProof)
        // A symmetric key as jwk, HS256 with it.
        let secret = JWSSigningKey(hmac: HMACSecret(utf8: "a-secret-of-32-bytes-or-more!!!!"))
        #expect(
            check(try Self.forged(header: ["typ": "dpop+jwt", "jwk": ["kty": "oct", "k": "YS1zZWNyZXQ"]], key: secret, algorithm: .hs256))
                == .disallowedAlgorithm)
        // alg none, unsigned.
        let noneHeader = Base64URL.encode(JSONSerializer.bytes(["typ": "dpop+jwt", "alg": "none", "jwk": .object(dpop.publicJWK)]))
        let body = Base64URL.encode(JSONSerializer.bytes(["jti": "j", "htm": "POST", "htu": .string(uri), "iat": .integer(1_700_000_000)]))
        #expect(check(noneHeader + "." + body + ".") == .malformedToken)
        #expect(check(noneHeader + "." + body + ".AAAA") == .unsupportedAlgorithm)
        // Wrong or missing typ.
        #expect(
            check(try Self.forged(header: ["typ": "JWT", "jwk": .object(dpop.publicJWK)], key: signing, algorithm: .es256))
                == .tokenTypeMismatch)
        #expect(check(try Self.forged(header: ["jwk": .object(dpop.publicJWK)], key: signing, algorithm: .es256)) == .tokenTypeMismatch)
        // No jwk, or a jwk of another key than the signer.
        #expect(check(try Self.forged(header: ["typ": "dpop+jwt"], key: signing, algorithm: .es256)) == .invalidDPoPProof)
        let other = DPoPKey.generateES256()
        #expect(
            check(try Self.forged(header: ["typ": "dpop+jwt", "jwk": .object(other.publicJWK)], key: signing, algorithm: .es256))
                == .invalidSignature)
        // A huge jwk: refused on size before any parsing.
        var huge = dpop.publicJWK
        huge["padding"] = .string(String(repeating: "A", count: 20_000))
        #expect(
            check(try Self.forged(header: ["typ": "dpop+jwt", "jwk": .object(huge)], key: signing, algorithm: .es256)) == .tokenTooLarge)
        // htu with another path, or with a query naming another resource; missing jti.
        #expect(
            check(
                try Self.forged(
                    header: ["typ": "dpop+jwt", "jwk": .object(dpop.publicJWK)],
                    claims: ["jti": "j", "htm": "POST", "htu": "https://as.example.com/other?x=/token", "iat": .integer(1_700_000_000)],
                    key: signing, algorithm: .es256)) == .invalidDPoPProof)
        #expect(
            check(
                try Self.forged(
                    header: ["typ": "dpop+jwt", "jwk": .object(dpop.publicJWK)],
                    claims: ["jti": "j", "htm": "POST", "htu": "https://user@as.example.com/token", "iat": .integer(1_700_000_000)],
                    key: signing, algorithm: .es256)) == .invalidDPoPProof)
        #expect(
            check(
                try Self.forged(
                    header: ["typ": "dpop+jwt", "jwk": .object(dpop.publicJWK)],
                    claims: ["htm": "POST", "htu": .string(uri), "iat": .integer(1_700_000_000)],
                    key: signing, algorithm: .es256)) == .missingClaim)
        // iat not a number.
        #expect(
            check(
                try Self.forged(
                    header: ["typ": "dpop+jwt", "jwk": .object(dpop.publicJWK)],
                    claims: ["jti": "j", "htm": "POST", "htu": .string(uri), "iat": "1700000000"],
                    key: signing, algorithm: .es256)) == .invalidClaim)
        // Garbage never traps.
        for junk in ["", ".", "..", "a.b.c", String(repeating: "A", count: 9000)] { #expect(check(junk) != nil) }
    }

    @Test func targetURINormalization() {
        #expect(HTTPTargetURI("HTTPS://Example.COM")?.normalized == "https://example.com/")
        #expect(HTTPTargetURI("http://example.com:80/a/./b/../c")?.normalized == "http://example.com/a/c")
        #expect(HTTPTargetURI("https://example.com:8443/%7euser/%2f")?.normalized == "https://example.com:8443/~user/%2F")
        #expect(HTTPTargetURI("https://[::1]:443/x")?.normalized == "https://[::1]/x")
        #expect(HTTPTargetURI("https://example.com/a?q#f")?.normalized == "https://example.com/a")
        #expect(HTTPTargetURI("ftp://example.com/") == nil)
        #expect(HTTPTargetURI("https://u:p@example.com/") == nil)
        #expect(HTTPTargetURI("https://example.com:x/") == nil)
        #expect(HTTPTargetURI("https://example.com/%zz") == nil)
        #expect(HTTPTargetURI("/relative") == nil)
        #expect(HTTPTargetURI.matches("https://example.com/a", "https://EXAMPLE.com:443/a?x"))
        #expect(!HTTPTargetURI.matches("https://example.com/a", "http://example.com/a"))
    }

    @Test func confirmationClaim() throws {
        let thumbprint = DPoPKey.generateES256().thumbprint
        #expect(try TokenConfirmation(in: ["cnf": TokenConfirmation.binding(to: thumbprint)])?.jkt == thumbprint)
        #expect(try TokenConfirmation(in: [:]) == nil)
        #expect(try TokenConfirmation(in: ["cnf": ["x5t#S256": "abc"]])?.jkt == nil)
        #expect(Self.code { try TokenConfirmation(in: ["cnf": "abc"]) as Any } == .tokenBindingMismatch)
        // jkt is the base64url of exactly 32 bytes: nothing shorter, longer or padded.
        for jkt in ["", "abc", String(thumbprint.dropLast()), thumbprint + "A", thumbprint + "="] {
            #expect(Self.code { try TokenConfirmation(in: ["cnf": ["jkt": .string(jkt)]]) as Any } == .tokenBindingMismatch)
        }
    }

    /// A verifier remembers the headers and keys of proofs it checked; a copy whose limits
    /// are stricter must still refuse what they refuse, and a remembered key changes nothing.
    @Test func rememberedProofHeadersChangeNothing() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let key = DPoPKey.generateES256()
        let verifier = DPoPProofVerifier(clock: .fixed(at: now))
        let proof = try key.proof(method: "GET", uri: "https://api.example.com/a", issuedAt: now)
        #expect(try verifier.verify(proof, method: "GET", uri: "https://api.example.com/a").thumbprint == key.thumbprint)
        // The header (typ, alg, jwk) nests to depth 2: a copy allowing 1 refuses it.
        var strict = verifier
        strict.limits.maxJSONDepth = 1
        #expect(Self.code { try strict.verify(proof, method: "GET", uri: "https://api.example.com/a") } == .malformedToken)
        // Same key and header, another request: its own claims decide.
        let other = try key.proof(method: "POST", uri: "https://api.example.com/a", issuedAt: now)
        #expect(Self.code { try verifier.verify(other, method: "GET", uri: "https://api.example.com/a") } == .invalidDPoPProof)
        // Same header, a signature by another key: refused.
        let parts = proof.split(separator: ".")
        let stranger = try DPoPKey.generateES256().proof(method: "GET", uri: "https://api.example.com/a", issuedAt: now).split(
            separator: ".")
        #expect(
            Self.code { try verifier.verify("\(parts[0]).\(parts[1]).\(stranger[2])", method: "GET", uri: "https://api.example.com/a") }
                == .invalidSignature)
    }

    @Test func lookAlikeTargetsDoNotMatch() {
        // Only ASCII letters change case: a Kelvin sign (U+212A) is not a "k".
        #expect(!HTTPTargetURI.matches("https://\u{212A}ey.example/a", "https://key.example/a"))
        #expect(HTTPTargetURI.matches("https://KEY.example/a", "https://key.example/a"))
        #expect(HTTPTargetURI("HTTPS://Example.COM:0443/a/./b/../c%7e%2f")?.normalized == "https://example.com/a/c~%2F")
        #expect(HTTPTargetURI("https://example.com:00/")?.normalized == "https://example.com:0/")
        #expect(HTTPTargetURI("https://[::1]:8443/x")?.normalized == "https://[::1]:8443/x")
        #expect(HTTPTargetURI("https://example.com:123456/") == nil)
    }
}
