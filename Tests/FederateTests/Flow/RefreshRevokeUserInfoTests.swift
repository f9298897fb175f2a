import FederateTestSupport
import Foundation
import Synchronization
import Testing
import Federate
@testable import FederateAccounts
@testable import FederateRelyingParty
@testable import FederateTokens

@Suite("Refresh, revocation, userinfo and the token holder")
struct RefreshRevokeUserInfoTests {
    /// Signs in once against `provider` and returns the tokens.
    static func signIn(_ provider: ScriptedProvider, client: OpenIDClient) async throws -> TokenSet {
        let pending = try await provider.pending(for: client)
        provider.tokenEndpointAnswers(try provider.tokenResponse(nonce: pending.nonce))
        return try await client.exchange(code: "c", pending: pending)
    }

    // MARK: Refresh

    @Test func refreshSendsTheGrantAndKeepsIdentity() async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client()
            let first = try await Self.signIn(provider, client: client)
            provider.tokenEndpointAnswers(
                try provider.tokenResponse(nonce: nil, accessToken: "access-2", extra: ["refresh_token": "refresh-2"]))
            let refreshed = try await client.refresh("refresh-1", previousIDToken: first.idTokenClaims)
            #expect(refreshed.accessToken == "access-2")
            #expect(refreshed.refreshToken == "refresh-2")
            let form = try #require(provider.requests(to: "/token").last).form
            #expect(form["grant_type"] == "refresh_token")
            #expect(form["refresh_token"] == "refresh-1")
        }
    }

    @Test func refreshWithoutNewRefreshTokenKeepsTheOldOne() async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client()
            provider.tokenEndpointAnswers(try provider.tokenResponse(nonce: nil, extra: ["refresh_token": nil, "id_token": nil]))
            let refreshed = try await client.refresh("refresh-1")
            #expect(refreshed.refreshToken == "refresh-1")
            #expect(refreshed.idTokenClaims == nil)
        }
    }

    @Test(
        arguments: [
            ["sub": JSONValue.string("someone-else")], ["iss": "https://evil.example"], ["aud": "another-client"],
        ] as [[String: JSONValue]])
    func refreshedIDTokenMustKeepIssSubAndAud(change: [String: JSONValue]) async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client()
            let first = try await Self.signIn(provider, client: client)
            provider.tokenEndpointAnswers(try provider.tokenResponse(nonce: nil, idTokenClaims: change))
            await #expect(throws: FederateError.self) {
                try await client.refresh("refresh-1", previousIDToken: first.idTokenClaims)
            }
        }
    }

    @Test func refreshedIDTokenWithAnotherSubjectIsAMismatch() async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client()
            let first = try await Self.signIn(provider, client: client)
            provider.tokenEndpointAnswers(try provider.tokenResponse(nonce: nil, idTokenClaims: ["sub": "someone-else"]))
            let error = await #expect(throws: FederateError.self) {
                try await client.refresh("refresh-1", previousIDToken: first.idTokenClaims)
            }
            #expect(error?.code == .refreshedIDTokenMismatch)
        }
    }

    @Test func deadRefreshTokenMeansSignInAgain() async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client()
            provider.tokenEndpointAnswers(.json(#"{"error":"invalid_grant"}"#, status: 400))
            let error = await #expect(throws: FederateError.self) { try await client.refresh("dead") }
            #expect(error?.code == .invalidGrant)
            #expect(error?.message.contains("sign the user in again") == true)
        }
    }

    // MARK: Revocation

    @Test func revocationSendsTokenHintAndAuthentication() async throws {
        try await ScriptedProvider.with { provider in
            provider.on("/revoke") { _ in .status(200) }
            let client = try provider.client()
            try await client.revoke("refresh-1", hint: "refresh_token")
            let request = try #require(provider.requests(to: "/revoke").first)
            #expect(request.form == ["token": "refresh-1", "token_type_hint": "refresh_token"])
            #expect(request.header("Authorization")?.hasPrefix("Basic ") == true)
        }
    }

    @Test func revocationErrorsAndMissingEndpoint() async throws {
        try await ScriptedProvider.with { provider in
            provider.on("/revoke") { _ in .json(#"{"error":"unsupported_token_type"}"#, status: 400) }
            let client = try provider.client()
            let error = await #expect(throws: FederateError.self) { try await client.revoke("t", hint: "access_token") }
            #expect(error?.code.rawValue == "unsupported_token_type")

            let withoutEndpoint = try provider.client(metadata: ["revocation_endpoint": nil])
            let missing = await #expect(throws: FederateError.self) { try await withoutEndpoint.revoke("t") }
            #expect(missing?.code == .endpointNotAvailable)
            provider.on("/other-revoke") { _ in .status(200) }
            let withFallback = try provider.client(
                metadata: ["revocation_endpoint": nil],
                profile: StandardOpenIDProfile(fallbackRevocationEndpoint: provider.issuer + "/other-revoke"))
            try await withFallback.revoke("t")
            #expect(provider.requests(to: "/other-revoke").count == 1)
        }
    }

    // MARK: UserInfo

    @Test func userInfoUsesBearerHeaderAndChecksSubject() async throws {
        try await ScriptedProvider.with { provider in
            provider.on("/userinfo") { _ in .json(#"{"sub":"user-1","email":"ada@example.com"}"#) }
            let client = try provider.client()
            let info = try await client.userInfo(accessToken: "access-1", expectedSubject: "user-1")
            #expect(info["email"] == "ada@example.com")
            let request = try #require(provider.requests(to: "/userinfo").first)
            #expect(request.header("Authorization") == "Bearer access-1")
            #expect(request.query?.contains("access_token") != true)

            let error = await #expect(throws: FederateError.self) {
                try await client.userInfo(accessToken: "access-1", expectedSubject: "user-2")
            }
            #expect(error?.code == .userinfoSubjectMismatch)
        }
    }

    @Test func signedUserInfoIsVerified() async throws {
        try await ScriptedProvider.with { provider in
            let signed = try provider.idToken(["email": "ada@example.com"], removing: ["iat", "exp"])
            provider.on("/userinfo") { _ in
                TestHTTPResponse(headers: [(name: "Content-Type", value: "application/jwt")], body: Array(signed.utf8))
            }
            let client = try provider.client()
            let info = try await client.userInfo(accessToken: "a", expectedSubject: "user-1")
            #expect(info["email"] == "ada@example.com")

            let forged = try JWSSigningKey.generateRSA(keyID: "rsa-1").sign(claims: ["sub": "user-1"], algorithm: .rs256)
            provider.on("/userinfo") { _ in
                TestHTTPResponse(headers: [(name: "Content-Type", value: "application/jwt")], body: Array(forged.utf8))
            }
            let error = await #expect(throws: FederateError.self) { try await client.userInfo(accessToken: "a", expectedSubject: "user-1") }
            #expect(error?.code == .invalidSignature)
        }
    }

    @Test func userInfoWithoutEndpointIsReported() async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client(metadata: ["userinfo_endpoint": nil])
            let error = await #expect(throws: FederateError.self) { try await client.userInfo(accessToken: "a", expectedSubject: "s") }
            #expect(error?.code == .endpointNotAvailable)
        }
    }

    // MARK: Token holder

    @Test func holderRefreshesOnceForConcurrentCallersShortlyBeforeExpiry() async throws {
        try await ScriptedProvider.with { provider in
            let time = TestClock()
            let client = try provider.client(clock: time.clock)
            let first = try await Self.signIn(provider, client: client)
            provider.on("/token") { _ in
                let now = Int64(time.now.timeIntervalSince1970)  // the provider shares the test's clock
                let claims: [String: JSONValue] = ["iat": .integer(now), "exp": .integer(now + 600)]
                var response = (try? provider.tokenResponse(nonce: nil, accessToken: "access-2", idTokenClaims: claims)) ?? .status(500)
                response.delay = .milliseconds(200)
                return response
            }
            let holder = AccessTokenHolder(client: client, tokens: first)
            #expect(try await holder.accessToken() == "access-1")  // an hour left: no refresh

            time.advance(by: .seconds(3600 - 61))  // 61 s before expiry: outside the 60 s leeway
            #expect(try await holder.accessToken() == "access-1")
            time.advance(by: .seconds(31))  // 30 s before expiry, inside the leeway
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<20 { group.addTask { try await holder.accessToken() } }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(tokens == Array(repeating: "access-2", count: 20))
            #expect(provider.requests(to: "/token").count == 2)  // the sign-in and one refresh
            #expect(holder.tokens.accessToken == "access-2")
            #expect(holder.tokens.idTokenClaims?.subject == "user-1")
        }
    }

    @Test func holderSignsRequestsWithBearerAndReportsDeadRefreshTokens() async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client()
            let first = try await Self.signIn(provider, client: client)
            let holder = AccessTokenHolder(client: client, tokens: first, leeway: .seconds(7200))  // always "about to expire"
            provider.tokenEndpointAnswers(.json(#"{"error":"invalid_grant"}"#, status: 400))
            let error = await #expect(throws: FederateError.self) {
                try await holder.authorize(HTTPRequest(url: provider.issuer + "/api"))
            }
            #expect(error?.code == .invalidGrant)

            let fresh = AccessTokenHolder(client: client, tokens: first)
            let signed = try await fresh.authorize(HTTPRequest(url: provider.issuer + "/api", headers: [("Authorization", "Basic old")]))
            #expect(signed.headers.filter { $0.name == "Authorization" }.map(\.value) == ["Bearer access-1"])
            #expect(!signed.url.contains("access_token"))
        }
    }
}
