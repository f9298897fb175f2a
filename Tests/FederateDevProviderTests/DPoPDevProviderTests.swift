import Federate
import FederateDevProvider
import FederateTestSupport
import Foundation
import Synchronization
import Testing
@testable import FederateRelyingParty

/// DPoP (RFC 9449) end to end: Federate's relying party against the dev provider over real
/// HTTP on loopback: bound tokens on sign-in, refresh and UserInfo, `dpop_jkt`, nonces.
@Suite("DPoP against the dev provider")
struct DPoPDevProviderTests {
    /// A transport that records what it sent and what came back.
    final class Recorder: HTTPClient {
        let exchanges = Mutex<[(request: HTTPRequest, status: Int)]>([])

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let response = try await PatientTransport.shared.send(request)
            exchanges.withLock { $0.append((request, response.status)) }
            return response
        }

        var log: [(method: String, path: String, status: Int, dpop: Bool, authorization: String?)] {
            exchanges.withLock { list in
                list.map { entry in
                    let path = entry.request.url.split(separator: "/", maxSplits: 3).dropFirst(2).first.map { "/" + $0 } ?? ""
                    return (
                        entry.request.method, path, entry.status, entry.request.headers.contains { $0.name == "DPoP" },
                        entry.request.headers.first { $0.name == "Authorization" }?.value
                    )
                }
            }
        }
    }

    static func client(_ provider: DevProvider, transport: any HTTPClient, signer: DPoPProofSigner?) async throws -> OpenIDClient {
        let metadata = try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: provider.issuer)
        #expect(metadata.document["dpop_signing_alg_values_supported"]?.arrayValue?.contains("ES256") == true)
        return try OpenIDClient(
            metadata: metadata, clientID: "dev-public", authentication: .none, httpClient: transport
        ).withDPoP(signer)
    }

    @Test func signInRefreshAndUserinfoAreBoundToTheClientKey() async throws {
        try await DevProviderTests.with { provider in
            let signer = DPoPProofSigner()
            let recorder = Recorder()
            let client = try await Self.client(provider, transport: recorder, signer: signer)
            let built = try await client.authorizationRequest(providerID: "oidc.dev", redirectURI: DevProviderTests.redirectURI)
            #expect(built.url.contains("dpop_jkt=" + signer.thumbprint))
            let tokens = try await client.finish(try await DevProviderTests.authorize(built.url), pending: built.pending).tokens
            #expect(tokens.tokenType == "DPoP" && tokens.isDPoPBound)
            #expect(tokens.idTokenClaims?.subject == "alice")
            // The access token is bound to the client's key (`cnf.jkt`).
            let claims = try JSONParser().parseObject(try CompactJWS(parsing: tokens.accessToken).payload)
            #expect(try TokenConfirmation(in: JSONMembers(claims))?.jkt == signer.thumbprint)

            let info = try await client.userInfo(accessToken: tokens.accessToken, expectedSubject: "alice")
            #expect(info["email"] == "alice@example.com")
            // The bound token as a bearer token is refused.
            let asBearer = await #expect(throws: FederateError.self) {
                try await client.userInfo(accessToken: tokens.accessToken, tokenType: "Bearer", expectedSubject: "alice")
            }
            #expect(asBearer?.code == .unexpectedStatus)

            let refreshed = try await client.refresh(try #require(tokens.refreshToken))
            #expect(refreshed.isDPoPBound && refreshed.accessToken != tokens.accessToken)
            // The refresh token is bound too: another key cannot use it.
            let stranger = try await Self.client(provider, transport: PatientTransport.shared, signer: DPoPProofSigner())
            let stolen = await #expect(throws: FederateError.self) { try await stranger.refresh(try #require(refreshed.refreshToken)) }
            #expect(stolen?.code == .invalidGrant)

            // An AccessTokenHolder presents the bound token with a proof of the request.
            let holder = AccessTokenHolder(client: client, tokens: refreshed)
            let signed = try await holder.authorize(HTTPRequest(url: provider.issuer + "/userinfo"))
            #expect(signed.headers.first { $0.name == "Authorization" }?.value == "DPoP " + refreshed.accessToken)
            let proof = try #require(signed.headers.first { $0.name == "DPoP" }?.value)
            let verified = try DPoPProofVerifier().verify(
                proof, method: "GET", uri: provider.issuer + "/userinfo", accessToken: refreshed.accessToken)
            #expect(verified.thumbprint == signer.thumbprint)

            // Token, the key set (for the ID token), UserInfo, UserInfo as bearer (refused),
            // refresh: each once, no retries, and every DPoP one with a proof.
            let log = recorder.log
            #expect(log.map(\.dpop) == [true, false, true, false, true])
            #expect(log.map(\.status) == [200, 200, 200, 401, 200])
            #expect(log[2].authorization?.hasPrefix("DPoP ") == true)
        }
    }

    @Test func aNonceRequestIsRetriedOnceThenRemembered() async throws {
        var configuration = DevProviderConfiguration.standard
        configuration.requiresDPoPNonce = true
        try await DevProviderTests.with(configuration) { provider in
            let signer = DPoPProofSigner()
            let recorder = Recorder()
            let client = try await Self.client(provider, transport: recorder, signer: signer)
            let built = try await client.authorizationRequest(providerID: "oidc.dev", redirectURI: DevProviderTests.redirectURI)
            let tokens = try await client.finish(try await DevProviderTests.authorize(built.url), pending: built.pending).tokens
            #expect(tokens.isDPoPBound)
            #expect(signer.nonce(for: provider.issuer + "/token") != nil)
            _ = try await client.userInfo(accessToken: tokens.accessToken, expectedSubject: "alice")
            _ = try await client.refresh(try #require(tokens.refreshToken))
            // The token endpoint answered use_dpop_nonce once (400), then the nonce was remembered:
            // token (400, 200), the key set, UserInfo, refresh.
            #expect(recorder.log.map(\.status) == [400, 200, 200, 200, 200])
            #expect(recorder.log.map(\.dpop) == [true, true, false, true, true])
        }
    }

    @Test func aCodeBoundByDPoPJKTNeedsThatKeyAndPlainClientsKeepBearer() async throws {
        try await DevProviderTests.with { provider in
            let client = try await Self.client(provider, transport: PatientTransport.shared, signer: DPoPProofSigner())
            let other = try await Self.client(provider, transport: PatientTransport.shared, signer: DPoPProofSigner())
            let built = try await client.authorizationRequest(providerID: "oidc.dev", redirectURI: DevProviderTests.redirectURI)
            let wrongKey = await #expect(throws: FederateError.self) {
                try await other.finish(try await DevProviderTests.authorize(built.url), pending: built.pending).tokens
            }
            #expect(wrongKey?.code == "invalid_dpop_proof")

            // Without a key: bearer tokens, as before.
            let plain = try await Self.client(provider, transport: PatientTransport.shared, signer: nil)
            let request = try await plain.authorizationRequest(providerID: "oidc.dev", redirectURI: DevProviderTests.redirectURI)
            #expect(!request.url.contains("dpop_jkt"))
            let tokens = try await plain.finish(try await DevProviderTests.authorize(request.url), pending: request.pending).tokens
            #expect(tokens.tokenType == "Bearer")
            _ = try await plain.userInfo(accessToken: tokens.accessToken, expectedSubject: "alice")
        }
    }

    @Test func tokenResponsesAcceptDPoPAndRefuseOtherTypes() throws {
        #expect(try TokenResponse(members: ["access_token": "a", "token_type": "DPoP"]).tokenType == "DPoP")
        #expect(try TokenResponse(members: ["access_token": "a", "token_type": "dpop"]).tokenType == "dpop")
        #expect(throws: FederateError.self) { try TokenResponse(members: ["access_token": "a", "token_type": "MAC"]) }
    }
}
