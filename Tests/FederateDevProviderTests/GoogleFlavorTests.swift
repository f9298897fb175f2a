import Federate
@testable import FederateDevProvider
import FederateGoogle
import FederateTestSupport
import Foundation
import Testing

/// The dev provider's Google flavour, driven by the core's relying party and FederateGoogle.
@Suite("Dev provider: Google flavour")
struct GoogleFlavorTests {
    static let clientID = "dev-google.apps.googleusercontent.com"
    static let calendar = "https://www.googleapis.com/auth/calendar.readonly"

    static func configuration(_ change: (inout DevProviderConfiguration) -> Void = { _ in }) -> DevProviderConfiguration {
        var configuration = DevProviderConfiguration.standard(for: .google)
        configuration.users[2].refusedScopes = [calendar]
        change(&configuration)
        return configuration
    }

    static func client(_ provider: DevProvider, id: String = clientID, secret: String = "dev-google-secret") async throws -> OpenIDClient {
        try await Flavor.client(provider, id: id, authentication: .clientSecretPost(secret: secret))
    }

    @Test func signInHasGoogleClaimsAndVerifiesWithGoogleVerifier() async throws {
        try await Flavor.with(Self.configuration()) { provider in
            let client = try await Self.client(provider)
            #expect(client.metadata.authorizationEndpoint == provider.baseURL + "/o/oauth2/v2/auth")
            let tokens = try await Flavor.signIn(client)
            let claims = try #require(tokens.idTokenClaims)
            #expect(claims.authorizedParty == Self.clientID)
            #expect(claims.claims["hd"] == "example.com")
            #expect(claims.claims["given_name"] == "Alice")

            let endpoints = GoogleEndpoints.at(provider.baseURL)
            let verifier = try GoogleIDTokenVerifier(
                clientIDs: [Self.clientID], hostedDomains: ["example.com"], httpClient: PatientTransport.shared, endpoints: endpoints)
            let verified = try await verifier.verify(try #require(tokens.idToken))
            #expect(verified.subject == "110248495921238986420")
            let otherDomain = try GoogleIDTokenVerifier(
                clientIDs: [Self.clientID], hostedDomains: ["other.example"], httpClient: PatientTransport.shared, endpoints: endpoints)
            let refused = await #expect(throws: FederateError.self) { try await otherDomain.verify(try #require(tokens.idToken)) }
            #expect(refused?.code == .hostedDomainMismatch)
        }
    }

    @Test func legacyIssuerSpellingIsAcceptedByGoogleVerifierOnly() async throws {
        let configuration = Self.configuration { $0.clients[0].legacyIssuer = true }
        try await Flavor.with(configuration) { provider in
            let client = try await Self.client(provider)
            // The generic relying party insists on the discovered issuer...
            let generic = await #expect(throws: FederateError.self) { try await Flavor.signIn(client) }
            #expect(generic?.code == .issuerMismatch)
            // ...Google's verifier knows both spellings.
            let built = try await client.authorizationRequest(providerID: "google.com", redirectURI: Flavor.redirectURI)
            let code = try #require(try await Flavor.authorize(built.url).parameters["code"])
            let lenient = try await Flavor.client(
                provider, id: Self.clientID, authentication: .clientSecretPost(secret: "dev-google-secret"),
                profile: GoogleProfile(endpoints: .at(provider.baseURL)))
            let tokens = try await lenient.exchange(code: code, pending: built.pending)
            #expect(tokens.idTokenClaims?.issuer == String(provider.baseURL.dropFirst("http://".count)))
        }
    }

    @Test func granularConsentReportsRefusedScopesAndIncludeGrantedScopesMerges() async throws {
        try await Flavor.with(Self.configuration()) { provider in
            let client = try await Self.client(provider)
            let carol = try await Flavor.signIn(client, scopes: ["openid", "email", Self.calendar], loginHint: "carol@gmail.com")
            #expect(carol.refusedScopes == [Self.calendar])
            #expect(Set(carol.grantedScopes) == ["openid", "email"])

            _ = try await Flavor.signIn(client, scopes: ["openid", "profile"])
            let merged = try await Flavor.signIn(client, scopes: ["openid", "email"], customParameters: ["include_granted_scopes": "true"])
            #expect(Set(merged.grantedScopes) == ["openid", "email", "profile"])
        }
    }

    @Test(arguments: ["admin_policy_enforced", "org_internal", "disallowed_useragent", "access_denied"])
    func authorizationErrorsKeepGooglesCode(error: String) async throws {
        let configuration = Self.configuration { $0.clients[0].authorizationError = error }
        try await Flavor.with(configuration) { provider in
            let client = try await Self.client(provider)
            let failure = await #expect(throws: FederateError.self) { try await Flavor.signIn(client) }
            #expect(failure?.code.rawValue == error)
            #expect(failure?.providerError?.code == error)
        }
    }

    @Test func refreshKeepsTheRefreshTokenAndRevokingTheAccessTokenCascades() async throws {
        try await Flavor.with(Self.configuration()) { provider in
            let client = try await Flavor.client(
                provider, id: Self.clientID, authentication: .clientSecretPost(secret: "dev-google-secret"),
                profile: StandardOpenIDProfile(fallbackRevocationEndpoint: GoogleEndpoints.at(provider.baseURL).revocationURL))
            let tokens = try await Flavor.signIn(client)
            let refreshToken = try #require(tokens.refreshToken)
            let refreshed = try await client.refresh(refreshToken, previousIDToken: tokens.idTokenClaims)
            #expect(refreshed.refreshToken == nil || refreshed.refreshToken == refreshToken)
            _ = try await client.refresh(refreshToken)  // still valid: Google does not rotate

            let latest = try await client.refresh(refreshToken)
            try await client.revoke(latest.accessToken, hint: "access_token")
            let dead = await #expect(throws: FederateError.self) { try await client.refresh(refreshToken) }
            #expect(dead?.code == .invalidGrant)
            #expect(dead?.message.contains("expired or revoked") == true)
        }
    }

    @Test func riscEventsAreVerifiedAndReplaysAreDeduplicated() async throws {
        try await Flavor.with(Self.configuration()) { provider in
            let receiver = RISCReceiver(
                clientIDs: [Self.clientID], issuer: provider.riscIssuer,
                keys: try RemoteKeySet(url: provider.jwksURL, httpClient: PatientTransport.shared))
            let server = try await LoopbackHTTPServer.start { request in
                do throws(FederateError) {
                    let delivery = try await receiver.delivery(request.body)
                    return .json(delivery.isDuplicate ? #"{"duplicate":true}"# : "{}", status: 202)
                } catch {
                    return .json("{}", status: 400)
                }
            }
            defer { Task { try? await server.stop() } }
            let revoked = "https://schemas.openid.net/secevent/risc/event-type/sessions-revoked"
            let sent = try await provider.sendSecurityEvent(
                revoked, subject: "110248495921238986420", audience: Self.clientID, to: server.baseURL + "/risc")
            #expect(sent.status == 202)
            let replay = try await provider.sendSecurityEvent(
                revoked, subject: "110248495921238986420", audience: Self.clientID, tokenID: sent.tokenID, to: server.baseURL + "/risc")
            #expect(replay.status == 202)
            #expect(server.receivedRequests.last?.header("Content-Type") == "application/secevent+jwt")
            let foreign = try await provider.sendSecurityEvent(
                revoked, subject: "x", audience: "another-client", to: server.baseURL + "/risc")
            #expect(foreign.status == 400)

            // The RISC configuration names the issuer and keys the receiver uses.
            let document = try await PatientTransport.shared.send(HTTPRequest(url: provider.baseURL + "/.well-known/risc-configuration"))
            let object = try JSONParser().parseObject(document.body)
            #expect(object["issuer"]?.stringValue == provider.riscIssuer)
            #expect(object["jwks_uri"]?.stringValue == provider.jwksURL)
        }
    }
}
