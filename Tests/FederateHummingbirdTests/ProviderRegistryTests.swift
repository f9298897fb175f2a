import Federate
import FederateApple
import FederateDevProvider
import FederateGoogle
import FederateHummingbird
import FederateOIDC
import FederateTestSupport
import Foundation
import Testing

/// The provider registry: providers found by their exact route name and provider ID, each with
/// the capabilities it declared, and nothing found by casting a provider to a protocol.
@Suite("Provider registry")
struct ProviderRegistryTests {
    static let cache = ProviderCache(httpClient: PatientTransport.shared)

    @Test func routeNamesAndProviderIDsMatchByteForByte() throws {
        let corp = try OIDCProvider(id: "oidc.Korp", issuer: "https://login.corp.example", clientID: "rp", cache: Self.cache)
        let registry = try ProviderRegistry(["corp": corp, "google": GoogleProvider(clientID: "web", cache: Self.cache)])
        #expect(registry.entries.map(\.name) == ["corp", "google"])
        #expect(registry.entry(named: "corp")?.providerID == "oidc.Korp")
        #expect(registry.entry(providerID: "oidc.Korp")?.name == "corp")
        // KELVIN SIGN is canonically equivalent to K: `==` on String would find the provider.
        #expect("oidc.\u{212A}orp" == "oidc.Korp")
        #expect(registry.entry(providerID: "oidc.\u{212A}orp") == nil)
        #expect(registry.entry(named: "Corp") == nil)
        #expect(registry.entry(named: "corp\u{200B}") == nil)
    }

    @Test func aRegistryRefusesAmbiguousOrMalformedNames() throws {
        let google = GoogleProvider(clientID: "web", cache: Self.cache)
        for name in ["", "dev;", "de\u{0301}v", "a/b", String(repeating: "x", count: 65)] {
            let error = #expect(throws: FederateError.self) { try ProviderRegistry([name: google]) }
            #expect(error?.code == .invalidConfiguration, "\(name.debugDescription)")
        }
        // Two route names for one provider ID: an identity of it would have two routes.
        let twice = #expect(throws: FederateError.self) {
            try ProviderRegistry(["google": google, "google2": GoogleProvider(clientID: "other", cache: Self.cache)])
        }
        #expect(twice?.code == .invalidConfiguration)
        #expect(twice?.message.contains("same provider ID") == true)
    }

    @Test func capabilitiesAreWhatEachProviderDeclares() throws {
        let oidc = try OIDCProvider(id: "oidc.corp", issuer: "https://login.corp.example", clientID: "rp", cache: Self.cache)
        let registry = try ProviderRegistry([
            "corp": oidc, "google": GoogleProvider(clientID: "web", cache: Self.cache), "silent": UndeclaredProvider(),
        ])
        let corp = try #require(registry.entry(named: "corp")?.capabilities)
        #expect(corp.stepUp != nil && corp.events != nil && corp.logout != nil && corp.bearerTokens != nil && corp.warming != nil)
        #expect(corp.events?.eventRoutes == [.backChannelLogout])
        let google = try #require(registry.entry(named: "google")?.capabilities)
        #expect(google.stepUp == nil && google.logout == nil)
        #expect(google.events?.eventRoutes == [.risc] && google.bearerTokens != nil && google.warming != nil)
        let silent = try #require(registry.entry(named: "silent")?.capabilities)
        #expect(silent.stepUp == nil && silent.events == nil && silent.logout == nil && silent.bearerTokens == nil && silent.warming == nil)
    }

    /// A provider type that adopts the events and step-up protocols but declares neither gets
    /// neither route: the routes read the declaration, they do not cast.
    @Test func anAdoptedProtocolIsNotACapability() async throws {
        let accounts = AccountService(store: InMemoryAccountStore())
        try await RoutesServer.run(providers: ["silent": UndeclaredProvider()], accounts: accounts) { origin in
            let events = try await TestBrowser().send(origin + "/auth/silent/notifications", method: "POST", body: "{}")
            #expect(events.status == 404)
            let stepUp = try await TestBrowser().send(origin + "/auth/silent/start?acr_values=phr")
            #expect(stepUp.status == 400)
            #expect(try JSONParser().parseObject(stepUp.body)["error"] == "invalid_request")
        }
    }

    /// A bearer verifier is made without fetching: a provider that is down when the server
    /// starts fails the request that needs it, with a typed error, and serves once it is back.
    @Test func aBearerVerifierResolvesOnFirstUse() async throws {
        try await TestIssuer.with { issuer in
            issuer.discoveryStatus = 503
            let provider = try OIDCProvider(
                id: "oidc.test", issuer: issuer.issuer, clientID: TestIssuer.defaultClientID,
                cache: ProviderCache(httpClient: PatientTransport.shared))
            let verifier = provider.bearerVerifier()
            #expect(issuer.discoveryRequestCount == 0 && issuer.jwksRequestCount == 0)

            let token = try issuer.idToken()
            let down = await #expect(throws: FederateError.self) { try await verifier.verify(token) }
            #expect(down?.code == .discoveryFailed, "\(String(describing: down))")

            issuer.discoveryStatus = 200
            let identity = try await verifier.verify(token)
            #expect(identity.providerID == "oidc.test" && identity.subject == issuer.defaultClaims()["sub"]?.stringValue)
            #expect(issuer.discoveryRequestCount == 2)
            _ = try await verifier.verify(token)
            #expect(issuer.discoveryRequestCount == 2)
        }
    }
}

/// Adopts two capability protocols and declares none of them.
private struct UndeclaredProvider: SignInProvider, ProviderEventSource, StepUpSignInProvider {
    var providerID: String { "silent.example" }
    var eventRoutes: Set<ProviderEventRoute> { Set(ProviderEventRoute.allCases) }

    func beginSignIn(_ request: SignInRequest) async throws(FederateError) -> BuiltAuthorizationRequest {
        throw FederateError(.invalidConfiguration, "not used")
    }

    func beginSignIn(_ request: SignInRequest, stepUp: StepUpRequest) async throws(FederateError) -> BuiltAuthorizationRequest {
        throw FederateError(.invalidConfiguration, "the routes must not call this: the capability is not declared")
    }

    func completeSignIn(_ callback: AuthorizationResponse, pending: PendingAuthorization) async throws(FederateError) -> Credential {
        throw FederateError(.invalidConfiguration, "not used")
    }

    func receiveEvents(on route: ProviderEventRoute, body: [UInt8]) async throws(FederateError) -> ProviderEventBatch {
        ProviderEventBatch(events: [], deliveryID: nil, rememberFor: .zero)
    }

    func revoke(_ tokens: ProviderTokens) async throws(FederateError) {}
}

/// `login_hint` on the start route reaches the provider: through the app, the dev provider
/// signs in the user it names (not always the auto-approved one); a hostile hint is refused.
@Suite("Start route: login_hint", .serialized)
struct LoginHintRouteTests {
    @Test func theStartRoutePassesLoginHintOn() async throws {
        let dev = try await DevProvider.start(configuration: FederateRoutesTests.devConfiguration(.generic, path: "/auth/dev/callback"))
        defer { Task { try? await dev.stop() } }
        let accounts = AccountService(store: InMemoryAccountStore())
        let providers: [String: any SignInProvider] = [
            "dev": try OIDCProvider(
                id: "oidc.dev", issuer: dev.issuer, clientID: "dev-client", clientSecret: "dev-secret",
                cache: ProviderCache(httpClient: PatientTransport.shared))
        ]
        try await RoutesServer.run(providers: providers, accounts: accounts) { origin in
            let browser = TestBrowser()
            _ = try await browser.navigate(origin + "/auth/dev/start?login_hint=bob%40example.com", origin: origin)
            let me = try JSONParser().parseObject(try await browser.send(origin + "/me").body)
            #expect(me["email"] == "bob@example.com", "\(me)")

            for hint in ["", "bob%1B%5B2J", "bob%E2%80%AE", String(repeating: "b", count: 257)] {
                let refused = try await TestBrowser().send(origin + "/auth/dev/start?login_hint=" + hint)
                #expect(refused.status == 400, "\(hint)")
                #expect(try JSONParser().parseObject(refused.body)["error"] == "invalid_request")
            }
        }
    }
}
