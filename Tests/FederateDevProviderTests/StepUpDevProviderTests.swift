import Federate
@testable import FederateDevProvider
import FederateTestSupport
import Foundation
import Testing

/// The dev provider serves step-up for real: `acr_values`, `claims` and the per-user or
/// per-login method decide the `acr`/`amr` of its ID tokens, and Federate's relying party
/// checks them against what it asked for.
@Suite("Dev provider: step-up")
struct StepUpDevProviderTests {
    typealias Fixture = DevProviderTests

    /// The provider's answer to the authorization URL plus `extra` form fields (the sign-in page's choice).
    static func send(_ url: String, _ extra: String = "") async throws -> HTTPResponse {
        try await PatientTransport.shared.send(HTTPRequest(url: url + extra))
    }

    @Test func anEssentialACRIsMetByTheChosenMethodOrTheSignInFails() async throws {
        try await Fixture.with { provider in
            let client = try await Fixture.client(provider)
            let stepUp = StepUpRequest(claims: .essentialACR(["phrh", "phr"]))
            let built = try await client.authorizationRequest(providerID: "oidc.dev", redirectURI: Fixture.redirectURI, stepUp: stepUp)
            // The page's method is a one-time code: the essential acr cannot be met.
            let unmet = try await Self.send(built.url, "&user=alice&method=otp")
            let error = try AuthorizationResponse(redirectURL: try #require(unmet.header("Location")))
            #expect(error.parameters["error"] == "unmet_authentication_requirements")
            // A security key meets it; the ID token asserts the first requested value met.
            let again = try await client.authorizationRequest(providerID: "oidc.dev", redirectURI: Fixture.redirectURI, stepUp: stepUp)
            let met = try await Self.send(again.url, "&user=alice&method=securityKey")
            let tokens = try await client.finish(
                try AuthorizationResponse(redirectURL: try #require(met.header("Location"))), pending: again.pending
            ).tokens
            let idToken = try #require(tokens.idTokenClaims)
            #expect(idToken.acr == "phrh" && idToken.authenticationLevel?.amr == ["hwk", "pin", "mfa"])
            // An unknown method is refused.
            let unknown = try await Self.send(again.url, "&user=alice&method=retina")
            #expect(
                try AuthorizationResponse(redirectURL: try #require(unknown.header("Location"))).parameters["error"] == "invalid_request")
        }
    }

    @Test func theRelyingPartyRefusesAnACRBelowItsRequirement() async throws {
        var configuration = DevProviderConfiguration.standard
        configuration.users[0].authenticationMethod = .otp
        try await Fixture.with(configuration) { provider in
            let client = try await Fixture.client(provider)
            // Silent sign-in: alice's configured method is asserted.
            let plain = try await Fixture.signIn(provider, client: client)
            #expect(plain.idTokenClaims?.acr == "urn:federate:dev:mfa")
            // Asking for phr: the session's method is too weak, so the provider shows its page.
            let strong = try await client.authorizationRequest(
                providerID: "oidc.dev", redirectURI: Fixture.redirectURI, stepUp: StepUpRequest(authentication: .phishingResistant))
            let page = try await Self.send(strong.url)
            #expect(page.status == 200 && String(decoding: page.body, as: UTF8.self).contains("<option value=\"passkey\" selected>"))
            // Voluntary acr_values and the user picks a password: the provider answers its own
            // acr, and Federate refuses the ID token.
            let weak = try await Self.send(strong.url, "&user=alice&method=password")
            let callback = try AuthorizationResponse(redirectURL: try #require(weak.header("Location")))
            do {
                _ = try await client.finish(callback, pending: strong.pending).tokens
                Issue.record("an ID token below the requirement was accepted")
            } catch {
                #expect((error as? FederateError)?.code == .insufficientAuthenticationLevel, "\(error)")
            }
        }
    }

    @Test func maxAgeMakesTheProviderAuthenticateAgain() async throws {
        let time = TestClock()
        var configuration = DevProviderConfiguration.standard
        configuration.clock = time.clock
        try await Fixture.with(configuration) { provider in
            // One clock for the provider and the relying party: max_age 0 leaves only the
            // clock tolerance, which a slow machine would otherwise eat.
            let metadata = try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: provider.issuer)
            let client = try OpenIDClient(
                metadata: metadata, clientID: "dev-client", authentication: .clientSecretBasic(secret: "dev-secret"),
                httpClient: PatientTransport.shared, clock: time.clock)
            _ = try await Fixture.signIn(provider, client: client)
            time.advance(by: .seconds(2))
            let fresh = try await client.authorizationRequest(
                providerID: "oidc.dev", redirectURI: Fixture.redirectURI, stepUp: StepUpRequest(maxAge: .zero))
            // The provider session is a second old: max_age=0 shows the page rather than approving.
            #expect(try await Self.send(fresh.url).status == 200)
            let signedIn = try await Self.send(fresh.url, "&user=alice")
            let tokens = try await client.finish(
                try AuthorizationResponse(redirectURL: try #require(signedIn.header("Location"))), pending: fresh.pending
            ).tokens
            #expect(tokens.idTokenClaims?.authTime != nil)
        }
    }

    @Test func hostileClaimsParametersAreRefused() async throws {
        try await Fixture.with { provider in
            let client = try await Fixture.client(provider)
            let built = try await client.authorizationRequest(providerID: "oidc.dev", redirectURI: Fixture.redirectURI)
            let deep = String(repeating: "{\"a\":", count: 3000) + "1" + String(repeating: "}", count: 3000)
            let huge = "{\"id_token\":{\"acr\":{\"values\":[" + Array(repeating: "\"phr\"", count: 2000).joined(separator: ",") + "]}}}"
            let tooMany = (0..<17).map { "v\($0)" }.joined(separator: " ")
            for extra in [
                ("claims", deep), ("claims", huge), ("claims", "{\"id_token\":{\"acr\":5}}"), ("claims", "not json"),
                ("acr_values", tooMany),
            ] {
                let response = try await Self.send(built.url, "&" + FormURLEncoding.encode([extra]))
                let location = try #require(response.header("Location"), "\(extra.1.prefix(40))")
                #expect(try AuthorizationResponse(redirectURL: location).parameters["error"] == "invalid_request", "\(extra.1.prefix(40))")
            }
        }
    }
}
