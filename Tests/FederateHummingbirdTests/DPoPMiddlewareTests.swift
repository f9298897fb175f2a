import Federate
import FederateTestSupport
@testable import FederateHummingbird
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import FederateTokens

/// The resource-server side of DPoP (RFC 9449 §7): `Authorization: DPoP` with a proof bound
/// to the token's `cnf.jkt`, single use across instances, nonces, and the 401 challenges.
@Suite("DPoP resource server")
struct DPoPMiddlewareTests {
    static let origin = "https://api.example.com"
    static let issuer = "https://as.example.com"

    /// An authorization server's key and the JWT access tokens it mints.
    struct Issuer {
        let key = DPoPKey.generateES256().signingKey.withKeyID("as-1")
        let clock: TestClock

        func accessToken(boundTo thumbprint: String?, subject: String = "alice") throws -> String {
            let now = Int64(clock.now.timeIntervalSince1970)
            var claims: [String: JSONValue] = [
                "iss": .string(DPoPMiddlewareTests.issuer), "sub": .string(subject), "aud": "api", "client_id": "app",
                "iat": .integer(now), "exp": .integer(now + 300), "jti": .string(UUID().uuidString),
            ]
            if let thumbprint { claims["cnf"] = TokenConfirmation.binding(to: thumbprint) }
            return try key.sign(claims: claims, algorithm: .es256, header: ["typ": "at+jwt"])
        }

        var verifier: AccessTokenVerifier {
            let keys = (try? JSONWebKeySet(keys: [try JSONWebKey(jwk: key.publicJWK() ?? [:])])) ?? .empty
            return AccessTokenVerifier(
                policy: AccessTokenPolicy(issuer: DPoPMiddlewareTests.issuer, resource: "api", allowedAlgorithms: [.es256]), keys: keys,
                clock: clock.clock)
        }
    }

    /// The API takes DPoP only, or Bearer and DPoP side by side.
    static func router(
        issuer: Issuer, store: any ReplayStore, nonces: DPoPNonces? = nil, alsoBearer: Bool = false
    ) throws -> Router<FederateContext> {
        let router = Router(context: FederateContext.self)
        let validator = DPoPProofValidator(verifier: DPoPProofVerifier(clock: issuer.clock.clock), replayStore: store, nonces: nonces)
        let dpop = try DPoPPresentation(validator: validator, origin: origin)
        let presentations: [any TokenPresentation] = alsoBearer ? [BearerPresentation(), dpop] : [dpop]
        router.group("api").add(middleware: BearerAuthenticationMiddleware(verifier: issuer.verifier, presentations: presentations))
            .get("orders") { _, context in
                // The proof the presentation checked is the caller's, bound to the token's key.
                guard let caller = context.federate.caller, let proof = caller.dpopProof, proof.thumbprint == caller.confirmation?.jkt
                else {
                    return "unproven"
                }
                return caller.subject ?? "nobody"
            }
        return router
    }

    static func headers(token: String, proof: String?) -> HTTPFields {
        var fields: HTTPFields = [.authorization: "DPoP \(token)"]
        if let proof { fields[.dpop] = proof }
        return fields
    }

    @Test func boundRequestsPassOnceAndEverythingElseIsRefused() async throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_700_000_000))
        let issuer = Issuer(clock: clock)
        let store = InMemoryReplayStore()
        let key = DPoPKey.generateES256(), thief = DPoPKey.generateES256()
        let token = try issuer.accessToken(boundTo: key.thumbprint)
        let url = Self.origin + "/api/orders"
        let proof = try key.proof(method: "GET", uri: url, issuedAt: clock.now, accessToken: token)

        try await Application(router: try Self.router(issuer: issuer, store: store)).test(.router) { client in
            try await client.execute(uri: "/api/orders?page=2", method: .get, headers: Self.headers(token: token, proof: proof)) {
                response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "alice")
            }
            // The same proof again: a replay.
            try await client.execute(uri: "/api/orders", method: .get, headers: Self.headers(token: token, proof: proof)) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate]?.hasPrefix("DPoP algs=\"ES256 ") == true)
                #expect(response.headers[.wwwAuthenticate]?.hasSuffix("\", error=\"invalid_dpop_proof\"") == true)
                #expect(String(buffer: response.body).contains("\"dpop_proof_replayed\""))
            }
            // Another key's proof for the token (a stolen token).
            let stolen = try thief.proof(method: "GET", uri: url, issuedAt: clock.now, accessToken: token)
            try await client.execute(uri: "/api/orders", method: .get, headers: Self.headers(token: token, proof: stolen)) { response in
                #expect(response.status == .unauthorized)
                #expect(String(buffer: response.body).contains("\"dpop_binding_mismatch\""))
            }
            // A proof for another method, or without ath.
            for bad in [
                try key.proof(method: "POST", uri: url, issuedAt: clock.now, accessToken: token),
                try key.proof(method: "GET", uri: url, issuedAt: clock.now),
                try key.proof(method: "GET", uri: Self.origin + "/api/other", issuedAt: clock.now, accessToken: token),
            ] {
                try await client.execute(uri: "/api/orders", method: .get, headers: Self.headers(token: token, proof: bad)) { response in
                    #expect(response.status == .unauthorized)
                    #expect(response.headers[.wwwAuthenticate]?.contains("invalid_dpop_proof") == true)
                }
            }
            // No proof; two proofs; an unbound token; a token that fails; no credentials at all.
            try await client.execute(uri: "/api/orders", method: .get, headers: Self.headers(token: token, proof: nil)) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate]?.contains("invalid_dpop_proof") == true)
            }
            var two = Self.headers(token: token, proof: nil)
            two[values: .dpop] = [
                try key.proof(method: "GET", uri: url, issuedAt: clock.now, accessToken: token),
                try key.proof(method: "GET", uri: url, issuedAt: clock.now, accessToken: token),
            ]
            try await client.execute(uri: "/api/orders", method: .get, headers: two) { response in
                #expect(response.status == .unauthorized)
            }
            let unbound = try issuer.accessToken(boundTo: nil)
            try await client.execute(
                uri: "/api/orders", method: .get,
                headers: Self.headers(
                    token: unbound, proof: try key.proof(method: "GET", uri: url, issuedAt: clock.now, accessToken: unbound))
            ) { response in
                #expect(response.status == .unauthorized)
                #expect(String(buffer: response.body).contains("\"dpop_binding_mismatch\""))
            }
            try await client.execute(uri: "/api/orders", method: .get, headers: Self.headers(token: token + "x", proof: proof)) {
                response in
                #expect(response.status == .unauthorized)
                #expect(
                    response.headers[.wwwAuthenticate]
                        == "DPoP algs=\"\(DPoPProofValidator(replayStore: store).algorithmsParameter)\", error=\"invalid_token\"")
            }
            try await client.execute(uri: "/api/orders", method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                #expect(response.status == .unauthorized)
                // Bearer is not a scheme this API takes: the bare DPoP challenge (RFC 6750 §3.1).
                #expect(response.headers[.wwwAuthenticate] == "DPoP algs=\"\(DPoPProofValidator(replayStore: store).algorithmsParameter)\"")
            }
            // A proof from the future, or too old.
            for offset in [3600.0, -3600.0] {
                let skewed = try key.proof(method: "GET", uri: url, issuedAt: clock.now.addingTimeInterval(offset), accessToken: token)
                try await client.execute(uri: "/api/orders", method: .get, headers: Self.headers(token: token, proof: skewed)) { response in
                    #expect(response.status == .unauthorized)
                }
            }
        }
    }

    /// One middleware for both schemes: a bound token needs its proof, an unbound one is a plain
    /// bearer token, and each refusal's `error` goes on the scheme the request used.
    @Test func bearerAndDPoPSideBySide() async throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_700_000_000))
        let issuer = Issuer(clock: clock)
        let key = DPoPKey.generateES256()
        let bound = try issuer.accessToken(boundTo: key.thumbprint), unbound = try issuer.accessToken(boundTo: nil, subject: "bob")
        let url = Self.origin + "/api/orders"
        try await Application(router: try Self.router(issuer: issuer, store: InMemoryReplayStore(), alsoBearer: true)).test(.router) {
            client in
            let proof = try key.proof(method: "GET", uri: url, issuedAt: clock.now, accessToken: bound)
            try await client.execute(uri: "/api/orders", method: .get, headers: Self.headers(token: bound, proof: proof)) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "alice")
            }
            try await client.execute(uri: "/api/orders", method: .get, headers: [.authorization: "Bearer \(unbound)"]) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "unproven")
            }
            // The bound token as a bearer token: refused on the Bearer challenge, DPoP still offered.
            try await client.execute(uri: "/api/orders", method: .get, headers: [.authorization: "Bearer \(bound)"]) { response in
                #expect(response.status == .unauthorized)
                #expect(String(buffer: response.body).contains("\"token_binding_mismatch\""))
                #expect(response.headers[values: .wwwAuthenticate].first == "Bearer error=\"invalid_token\"")
                #expect(response.headers[values: .wwwAuthenticate].last?.hasPrefix("DPoP algs=") == true)
                #expect(response.headers[values: .wwwAuthenticate].last?.contains("error") == false)
            }
        }
    }

    @Test func serverNoncesAreIssuedAndRequired() async throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_700_000_000))
        let issuer = Issuer(clock: clock)
        let nonces = try DPoPNonces(secret: Array(repeating: 7, count: 32), lifetime: .seconds(60))
        let key = DPoPKey.generateES256()
        let token = try issuer.accessToken(boundTo: key.thumbprint)
        let url = Self.origin + "/api/orders"
        try await Application(router: try Self.router(issuer: issuer, store: InMemoryReplayStore(), nonces: nonces)).test(.router) {
            client in
            let noNonce = try key.proof(method: "GET", uri: url, issuedAt: clock.now, accessToken: token)
            let nonce = try await client.execute(uri: "/api/orders", method: .get, headers: Self.headers(token: token, proof: noNonce)) {
                response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate]?.hasSuffix("error=\"use_dpop_nonce\"") == true)
                return try #require(response.headers[.dpopNonce])
            }
            let withNonce = try key.proof(method: "GET", uri: url, issuedAt: clock.now, accessToken: token, nonce: nonce)
            try await client.execute(uri: "/api/orders", method: .get, headers: Self.headers(token: token, proof: withNonce)) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.dpopNonce] == nonce)
            }
            // The nonce stays good for the next slot, then is refused.
            clock.advance(by: .seconds(60))
            let later = try key.proof(method: "GET", uri: url, issuedAt: clock.now, accessToken: token, nonce: nonce)
            try await client.execute(uri: "/api/orders", method: .get, headers: Self.headers(token: token, proof: later)) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.dpopNonce] != nonce)
            }
            clock.advance(by: .seconds(60))
            let stale = try key.proof(method: "GET", uri: url, issuedAt: clock.now, accessToken: token, nonce: nonce)
            try await client.execute(uri: "/api/orders", method: .get, headers: Self.headers(token: token, proof: stale)) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate]?.contains("use_dpop_nonce") == true)
            }
        }
        // Instances sharing the secret accept each other's nonces; another secret does not.
        let other = try DPoPNonces(secret: Array(repeating: 8, count: 32), lifetime: .seconds(60))
        #expect(nonces.accepted(at: clock.now).contains(nonces.current(at: clock.now)))
        #expect(!other.accepted(at: clock.now).contains(nonces.current(at: clock.now)))
        #expect(throws: FederateError.self) { try DPoPNonces(secret: [1, 2, 3]) }
        for origin in ["https://api.example.com/path", "https://api.example.com?x", "ftp://api.example.com", "https://u@api.example.com"] {
            #expect(throws: FederateError.self) {
                try DPoPPresentation(validator: DPoPProofValidator(replayStore: InMemoryReplayStore()), origin: origin)
            }
        }
    }
}
