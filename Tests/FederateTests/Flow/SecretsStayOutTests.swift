import FederateTestSupport
import Foundation
import Logging
import Testing
import Federate
@testable import FederateAccounts
@testable import FederateRelyingParty
@testable import FederateTokens

/// Runs the whole flow — successes and failures — with every log level on, and checks that
/// no secret appears in a log line, an error message or a `description`.
@Suite("Secrets stay out of logs and errors")
struct SecretsStayOutTests {
    static let clientSecret = "client-secret-7f3a9c"
    static let accessToken = "access-token-5d1e2b"
    static let refreshToken = "refresh-token-8c4f0a"
    static let code = "authorization-code-2b7d"

    @Test func noSecretInLogsErrorsOrDescriptions() async throws {
        try await ScriptedProvider.with { provider in
            let logs = LogCapture()
            var logger = logs.logger
            logger.logLevel = .trace
            let jwks = TestIssuer.jwks(for: [provider.key])
            provider.on("/jwks") { _ in .json(jwks) }
            let client = try OpenIDClient(
                metadata: provider.metadata(), clientID: ScriptedProvider.clientID,
                authentication: .clientSecretBasic(secret: Self.clientSecret), httpClient: PatientTransport.shared, logger: logger)
            let built = try await client.authorizationRequest(
                providerID: "oidc.test", redirectURI: "http://127.0.0.1:9/callback", customParameters: ["state": "x"])
            let pending = built.pending
            var seen: [String] = ["\(pending)", "\(client.authentication)", "\(built.droppedParameters)"]

            // Success: exchange, userinfo, refresh, revoke.
            let idToken = try provider.idToken([
                "nonce": .string(pending.nonce), "at_hash": .string(TokenHash.compute(Self.accessToken, algorithm: .rs256)),
            ])
            provider.tokenEndpointAnswers(
                .json(
                    JSONSerializer.string([
                        "access_token": .string(Self.accessToken), "token_type": "Bearer", "expires_in": 3600,
                        "refresh_token": .string(Self.refreshToken), "id_token": .string(idToken),
                    ])))
            provider.on("/userinfo") { _ in .json(#"{"sub":"user-1"}"#) }
            provider.on("/revoke") { _ in .status(200) }
            let callback = AuthorizationResponse(parameters: ["code": Self.code, "state": pending.state, "iss": provider.issuer])
            seen.append("\(callback)")
            let tokens = try await client.finish(callback, pending: pending).tokens
            seen += ["\(tokens)", "\(try TokenResponse(members: tokens.response))"]
            _ = try await client.userInfo(accessToken: tokens.accessToken, expectedSubject: "user-1")
            _ = try await client.refresh(Self.refreshToken, previousIDToken: tokens.idTokenClaims)
            try await client.revoke(Self.refreshToken, hint: "refresh_token")

            // Failures: forged state, provider error, dead refresh token, bad token response,
            // userinfo subject mismatch, key endpoint down.
            var errors: [any Error] = []
            func record(_ body: () async throws -> Void) async {
                do { try await body() } catch { errors.append(error) }
            }
            await record {
                _ = try await client.finish(AuthorizationResponse(parameters: ["code": Self.code, "state": "forged"]), pending: pending)
                    .tokens
            }
            provider.tokenEndpointAnswers(.json(#"{"error":"invalid_grant","error_description":"bad code"}"#, status: 400))
            await record { _ = try await client.exchange(code: Self.code, pending: pending) }
            await record { _ = try await client.refresh(Self.refreshToken) }
            provider.tokenEndpointAnswers(.json(#"{"access_token":"\#(Self.accessToken)","token_type":"mac"}"#))
            await record { _ = try await client.refresh(Self.refreshToken) }
            await record { _ = try await client.userInfo(accessToken: Self.accessToken, expectedSubject: "user-2") }
            provider.on("/jwks") { _ in .status(500) }
            let unknownKid = try JWSSigningKey.generateRSA(keyID: "rotated").sign(
                claims: ["iss": .string(provider.issuer), "sub": "user-1", "aud": .string(ScriptedProvider.clientID)], algorithm: .rs256)
            await record { _ = try await IDTokenVerifier(policy: client.policy, keys: client.keys).verify(unknownKid) }
            #expect(errors.count == 6)
            seen += errors.map { "\($0)" }
            seen += errors.compactMap { ($0 as? FederateError)?.message }

            let everything = seen + logs.everything
            #expect(!logs.everything.isEmpty, "the run logged nothing: the check would be empty")
            for secret in [
                Self.clientSecret, Self.accessToken, Self.refreshToken, Self.code, idToken, pending.state, pending.nonce,
                pending.codeVerifier,
            ] {
                for line in everything {
                    #expect(!line.contains(secret), "a secret leaked into: \(line.prefix(300))")
                }
            }
        }
    }
}
