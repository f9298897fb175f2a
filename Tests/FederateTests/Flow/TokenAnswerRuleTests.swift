import Federate
import FederateTestSupport
import Foundation
import Testing

/// One rule for every token answer (`TokenResponse`): client credentials and token exchange
/// read `token_type` and `expires_in` the same way, an answer that names an `error` is that
/// error even with an `access_token`, and a DPoP token to a client without a key is refused by
/// every grant. Each answer comes from a real HTTP server on loopback.
@Suite("Token answers: one rule for every grant")
struct TokenAnswerRuleTests {
    static func client(_ server: LoopbackHTTPServer) throws -> ServiceTokenClient {
        try ServiceTokenClient(
            tokenEndpoint: server.baseURL + "/token", clientID: "svc", authentication: .clientSecretBasic(secret: "s"),
            httpClient: PatientTransport.shared)
    }

    static func with(_ answer: String, _ body: (ServiceTokenClient) async throws -> Void) async throws {
        let server = try await LoopbackHTTPServer.start { _ in .json(answer) }
        defer { Task { try? await server.stop() } }
        try await body(try client(server))
    }

    static let exchange = TokenExchangeRequest(subjectToken: "subject-token")
    static let accessType = TokenExchangeRequest.TokenType.accessToken

    @Test func bothGrantsReadTheAnswerByOneRule() async throws {
        // (answer members after the token, accepted by both grants?)
        let cases: [(String, Bool)] = [
            (#""token_type": "Bearer", "expires_in": 300"#, true),
            (#""token_type": "bearer", "expires_in": "300""#, true),
            (#""token_type": "mac""#, false),
            (#""token_type": "N_A""#, false),
            (#""token_type": "Bearer", "expires_in": "soon""#, false),
            (#""token_type": "Bearer", "expires_in": -1"#, false),
            (#""token_type": "Bearer", "expires_in": 1e300"#, false),
            (#""token_type": "DPoP""#, false),
            (#""token_type": "Bearer", "error": "invalid_grant""#, false),
        ]
        for (members, accepted) in cases {
            let plain = #"{"access_token": "at", \#(members)}"#
            let exchanged = #"{"access_token": "at", "issued_token_type": "\#(Self.accessType)", \#(members)}"#
            try await Self.with(plain) { client in
                let succeeded = (try? await client.clientCredentials()) != nil
                #expect(succeeded == accepted, "client credentials: \(members)")
            }
            try await Self.with(exchanged) { client in
                let succeeded = (try? await client.exchange(Self.exchange)) != nil
                #expect(succeeded == accepted, "token exchange: \(members)")
            }
        }
    }

    /// `N_A` only for an exchanged token that is not an access token (RFC 8693 §2.2.1).
    @Test func notApplicableOnlyForATokenThatIsNotAnAccessToken() async throws {
        let idType = TokenExchangeRequest.TokenType.idToken
        try await Self.with(#"{"access_token": "an-id-token", "issued_token_type": "\#(idType)", "token_type": "N_A"}"#) { client in
            let token = try await client.exchange(Self.exchange)
            #expect(token.tokenType == "N_A" && token.issuedTokenType == idType)
        }
        try await Self.with(#"{"access_token": "at", "issued_token_type": "\#(Self.accessType)", "token_type": "N_A"}"#) { client in
            let error = await #expect(throws: FederateError.self) { try await client.exchange(Self.exchange) }
            #expect(error?.code == .invalidTokenResponse)
        }
        try await Self.with(#"{"access_token": "at", "token_type": "Bearer"}"#) { client in
            let error = await #expect(throws: FederateError.self) { try await client.exchange(Self.exchange) }
            #expect(error?.code == .invalidTokenResponse, "no issued_token_type")
        }
    }

    /// An answer naming an `error` is that error, with its code, even when it also carries an
    /// `access_token` (GitHub answers errors with HTTP 200).
    @Test func anAnswerWithAnErrorIsThatError() async throws {
        try await Self.with(#"{"access_token": "at", "token_type": "bearer", "error": "bad_verification_code"}"#) { client in
            let error = await #expect(throws: FederateError.self) { try await client.clientCredentials() }
            #expect(error?.providerError?.code == "bad_verification_code", "\(String(describing: error))")
        }
    }
}
