import Crypto
import Federate
import Foundation
import FederateTestSupport
import Testing
@testable import FederateRelyingParty
@testable import FederateTokens

/// A look-alike gets the same verdict whether it comes before or after its ASCII twin: every
/// cache and shortcut of the verifiers keys on bytes, never on `String` equality (canonical
/// equivalence: U+212A KELVIN SIGN equals `K`). Each look-alike is re-signed over its own
/// bytes, so only the bytes can tell it apart.
@Suite struct LookAlikeCacheTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let clock = FederateClock.fixed(at: now)

    /// `text` with every `K` replaced by KELVIN SIGN; `nil` when it has no `K`.
    static func lookAlike(_ text: String) -> String? {
        text.contains("K") ? text.replacingOccurrences(of: "K", with: "\u{212A}") : nil
    }

    /// A base64url header segment for `members` that contains a `K` (a `pad` member varied until it does).
    static func segmentWithK(_ members: [String: JSONValue]) -> String {
        for pad in 0..<10_000 {
            var members = members
            members["pad"] = .integer(Int64(pad))
            let segment = Base64URL.encode(JSONSerializer.bytes(.object(members)))
            if segment.contains("K") { return segment }
        }
        preconditionFailure("no header segment with a K")
    }

    /// `header.payload`, signed with `key` over exactly those bytes.
    static func signed(header: String, payload: String, key: P256.Signing.PrivateKey) throws -> String {
        let input = header + "." + payload
        return input + "." + Base64URL.encode(Array(try key.signature(for: SHA256.hash(data: Array(input.utf8))).rawRepresentation))
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

    @Test func aLookAlikeJOSEHeaderIsRefusedBeforeAndAfterItsTwin() async throws {
        let key = P256.Signing.PrivateKey()
        let signer = JWSSigningKey(p256: key, keyID: "ec-1")
        let keySet = try JSONWebKeySet(jwks: JSONSerializer.bytes(["keys": [.object(try #require(signer.publicJWK()))]]))
        let claims: [String: JSONValue] = [
            "iss": "https://as.example", "sub": "alice", "aud": "https://rs.example", "exp": 1_700_000_600, "iat": 1_700_000_000,
            "jti": "j-1", "client_id": "c-1",
        ]
        let header = Self.segmentWithK(["alg": "ES256", "kid": "ec-1", "typ": "at+jwt"])
        let payload = Base64URL.encode(JSONSerializer.bytes(.object(claims)))
        let lookAlikeHeader = try #require(Self.lookAlike(header))
        #expect(!lookAlikeHeader.exactlyEquals(header) && lookAlikeHeader == header)  // canonically equal, not the same bytes
        let twin = try Self.signed(header: header, payload: payload, key: key)
        let lookAlike = try Self.signed(header: lookAlikeHeader, payload: payload, key: key)

        func verifier() -> AccessTokenVerifier {
            AccessTokenVerifier(
                policy: AccessTokenPolicy(issuer: "https://as.example", resource: "https://rs.example", allowedAlgorithms: [.es256]),
                keys: keySet,
                clock: Self.clock)
        }
        // Look-alike first, then the twin, then the look-alike again: one verifier, one cache.
        let first = verifier()
        #expect(await refusalCode { try await first.verify(lookAlike) } == .malformedToken)
        #expect(await refusalCode { try await first.verify(twin) } == nil)
        #expect(await refusalCode { try await first.verify(lookAlike) } == .malformedToken)
        // The twin first.
        let second = verifier()
        #expect(await refusalCode { try await second.verify(twin) } == nil)
        #expect(await refusalCode { try await second.verify(lookAlike) } == .malformedToken)
    }

    /// A DPoP proof whose header segment (its `jwk` included) is a look-alike of a verified
    /// one's: the proof verifier's header and key caches never hand it the twin's verdict.
    @Test func aLookAlikeDPoPProofHeaderIsRefusedBeforeAndAfterItsTwin() throws {
        let key = P256.Signing.PrivateKey()
        let jwk = try #require(JWSSigningKey(p256: key, keyID: nil).publicJWK())
        let header = Self.segmentWithK(["typ": "dpop+jwt", "alg": "ES256", "jwk": .object(jwk)])
        func proof(_ header: String, jti: String, htu: String = "https://rs.example/orders") throws -> String {
            let claims: [String: JSONValue] = ["jti": .string(jti), "htm": "GET", "htu": .string(htu), "iat": 1_700_000_000]
            return try Self.signed(header: header, payload: Base64URL.encode(JSONSerializer.bytes(.object(claims))), key: key)
        }
        let lookAlikeHeader = try #require(Self.lookAlike(header))
        let verify = { (verifier: DPoPProofVerifier, proof: String) in
            Self.code { try verifier.verify(proof, method: "GET", uri: "https://rs.example/orders") }
        }
        let first = DPoPProofVerifier(clock: Self.clock)
        #expect(verify(first, try proof(lookAlikeHeader, jti: "p-1")) == .malformedToken)
        #expect(verify(first, try proof(header, jti: "p-2")) == nil)
        #expect(verify(first, try proof(lookAlikeHeader, jti: "p-3")) == .malformedToken)
        let second = DPoPProofVerifier(clock: Self.clock)
        #expect(verify(second, try proof(header, jti: "p-4")) == nil)
        #expect(verify(second, try proof(lookAlikeHeader, jti: "p-5")) == .malformedToken)
        // The key cache on its own: a look-alike header never finds the twin's key.
        let cache = DPoPKeyCache()
        let imported = DPoPKeyCache.Entry(key: try JSONWebKey(jwk: jwk), thumbprint: try JWKThumbprint.sha256(of: jwk))
        func entry(_ header: String) throws(FederateError) -> DPoPKeyCache.Entry {
            try Array(header.utf8).withUnsafeBufferPointer { (bytes) throws(FederateError) in try cache.entry(for: bytes) { imported } }
        }
        _ = try entry(header)
        #expect(Self.code { try entry(lookAlikeHeader) } == .malformedToken)
    }

    /// `htu` naming the request's URI with a look-alike: refused before and after a proof
    /// naming it in ASCII (both the normalized shortcut and the full comparison).
    @Test func aLookAlikeHTUIsRefusedBeforeAndAfterItsTwin() throws {
        let key = DPoPKey.generateES256()
        let uri = "https://rs.example/Keys"
        let lookAlike = "https://rs.example/\u{212A}eys"
        let verifier = DPoPProofVerifier(clock: Self.clock)
        func check(_ htu: String) throws -> FederateError.Code? {
            let proof = try key.proof(method: "GET", uri: htu, issuedAt: Self.now)
            return Self.code { try verifier.verify(proof, method: "GET", uri: uri) }
        }
        #expect(try check(lookAlike) == .invalidDPoPProof)
        #expect(try check(uri) == nil)
        #expect(try check(lookAlike) == .invalidDPoPProof)
        // Not normalized (upper-case host): the full comparison, not the shortcut, decides.
        #expect(try check("https://RS.example/\u{212A}eys") == .invalidDPoPProof)
        #expect(HTTPTargetURI(lookAlike) != HTTPTargetURI(uri) && !HTTPTargetURI.matches(lookAlike, uri))
        #expect(Set([HTTPTargetURI(lookAlike), HTTPTargetURI(uri)]).count == 2)
    }

    /// The in-memory replay store: a look-alike proof key is another key, whichever comes first.
    @Test func aLookAlikeReplayKeyIsAnotherKey() async throws {
        let expiry = Self.now.addingTimeInterval(60)
        let store = InMemoryReplayStore()
        #expect(try await store.consume("\u{212A}-1", expiresAt: expiry, now: Self.now))
        #expect(try await store.consume("K-1", expiresAt: expiry, now: Self.now))
        #expect(try await store.consume("\u{212A}-1", expiresAt: expiry, now: Self.now) == false)
        let other = InMemoryReplayStore()
        #expect(try await other.consume("K-1", expiresAt: expiry, now: Self.now))
        #expect(try await other.consume("\u{212A}-1", expiresAt: expiry, now: Self.now))
    }

    /// Discovery and key-set caches: a look-alike issuer or key URL never finds its twin's entry.
    /// A key-set URL with a look-alike is not even a URL Federate calls (printable ASCII only),
    /// before or after its twin is cached.
    @Test func aLookAlikeIssuerOrKeySetURLIsAnotherCacheEntry() async throws {
        let cache = ProviderCache(httpClient: RefusingHTTPClient())
        let twin = try cache.keySet(url: "https://issuer.example/Keys")
        let refused = #expect(throws: FederateError.self) { try cache.keySet(url: "https://issuer.example/\u{212A}eys") }
        #expect(refused?.code == .invalidURL)
        #expect(try cache.keySet(url: "https://issuer.example/Keys") === twin)
        let fresh = ProviderCache(httpClient: RefusingHTTPClient())
        #expect(throws: FederateError.self) { try fresh.keySet(url: "https://issuer.example/\u{212A}eys") }
        #expect(try fresh.keySet(url: "https://issuer.example/Keys") !== twin)
        let twinIssuer = try DiscoveredIssuer(authority: "https://issuer.example/K", tenantIssuer: nil)
        let lookAlikeIssuer = try DiscoveredIssuer(authority: "https://issuer.example/\u{212A}", tenantIssuer: nil)
        #expect(twinIssuer.cacheKey != lookAlikeIssuer.cacheKey)
    }
}

/// A transport that is never reached by these tests (nothing is fetched).
private struct RefusingHTTPClient: HTTPClient {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw FederateError(.httpFailed, "no network in this test")
    }
}
