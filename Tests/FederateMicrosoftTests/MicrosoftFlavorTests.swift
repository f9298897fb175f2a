import Federate
@testable import FederateDevProvider
@testable import FederateMicrosoft
import FederateTestSupport
import Foundation
import Testing

/// FederateMicrosoft against the dev provider's Microsoft flavour, end to end: discovery at
/// `/common`, `/organizations`, `/consumers` and a tenant's authority, the code flow, and each
/// ID token's `iss` checked against its own `tid` and the application's tenant choice.
@Suite("Microsoft: multi-tenant sign-in against the dev provider")
struct MicrosoftFlavorTests {
    static let configuration = DevProviderConfiguration.microsoftStandard
    static var alice: DevUser { configuration.users[0] }  // contoso.example
    static var bob: DevUser { configuration.users[1] }  // fabrikam.example
    static var carol: DevUser { configuration.users[2] }  // outlook.com: a personal account
    static let redirectURI = "http://127.0.0.1:9/callback"

    static func with<T>(_ body: (DevProvider) async throws -> T) async throws -> T {
        let provider = try await DevProvider.start(configuration: configuration)
        do {
            let result = try await body(provider)
            try await provider.stop()
            return result
        } catch {
            try? await provider.stop()
            throw error
        }
    }

    static func provider(_ dev: DevProvider, _ audience: MicrosoftAudience) throws -> MicrosoftProvider {
        let client = configuration.clients[0]
        return try MicrosoftProvider(
            clientID: client.id, clientSecret: client.secret, audience: audience, endpoints: .at(dev.baseURL),
            cache: ProviderCache(httpClient: PatientTransport.shared))
    }

    /// A whole sign-in as `user`: request, browser (login_hint), callback, code exchange.
    static func signIn(_ microsoft: MicrosoftProvider, as user: DevUser) async throws -> Credential {
        let client = try await microsoft.client()
        let built = try await microsoft.openIDProvider.authorizationRequest(with: client, redirectURI: redirectURI, loginHint: user.email)
        let response = try await PatientTransport.shared.send(HTTPRequest(url: built.url))
        #expect(response.status == 302, "\(String(decoding: response.body, as: UTF8.self))")
        let callback = try AuthorizationResponse(redirectURL: try #require(response.header("Location")))
        return try await microsoft.completeSignIn(callback, pending: built.pending)
    }

    @Test func commonDiscoveryGivesTheTemplateAndStrictDiscoveryRefusesIt() async throws {
        try await Self.with { dev in
            #expect(dev.issuer == dev.baseURL + "/{tenantid}/v2.0")
            let discovery = DiscoveryClient(httpClient: PatientTransport.shared)
            // A caller that configured no template policy: refused, as before.
            #expect(await refusalCode { try await discovery.metadata(for: dev.baseURL + "/common/v2.0") } == .discoveryIssuerMismatch)
            let rule = try TenantIssuerRule(template: dev.issuer, tenants: .anyTenant)
            for segment in ["common", "organizations"] {
                let metadata = try await discovery.metadata(for: dev.baseURL + "/\(segment)/v2.0", tenantIssuer: rule)
                #expect(metadata.issuer == dev.issuer)
                #expect(metadata.tokenEndpoint == dev.baseURL + "/\(segment)/oauth2/v2.0/token")
                #expect(metadata.revocationEndpoint == nil)
            }
            // consumers and a tenant's own authority give that tenant's concrete issuer.
            let consumers = try await discovery.metadata(for: dev.baseURL + "/consumers/v2.0", tenantIssuer: rule)
            #expect(consumers.issuer == dev.baseURL + "/\(MicrosoftEndpoints.personalAccountsTenantID)/v2.0")
            let contoso = DevMicrosoftTenants.tenantID(for: Self.alice)
            let own = try await discovery.metadata(for: dev.baseURL + "/\(contoso)/v2.0", tenantIssuer: rule)
            #expect(own.issuer == dev.baseURL + "/\(contoso)/v2.0")
            // The same consumers document, through the same client, when the caller lists only
            // contoso: refused (never served from the cache entry of a caller with other tenants).
            let listed = try TenantIssuerRule(template: dev.issuer, tenants: .only([contoso]))
            #expect(
                await refusalCode { try await discovery.metadata(for: dev.baseURL + "/consumers/v2.0", tenantIssuer: listed) }
                    == .discoveryIssuerMismatch)
        }
    }

    @Test func listedTenantsSignInAndOthersAreRefused() async throws {
        try await Self.with { dev in
            let contoso = DevMicrosoftTenants.tenantID(for: Self.alice)
            let microsoft = try Self.provider(dev, .common(.only([contoso, MicrosoftEndpoints.personalAccountsTenantID])))
            let credential = try await Self.signIn(microsoft, as: Self.alice)
            #expect(credential.providerID == "microsoft.com")
            let account = MicrosoftAccount(idToken: try #require(credential.idToken))
            #expect(account.tenantID == contoso)
            #expect(account.objectID == DevMicrosoftTenants.objectID(for: Self.alice))
            #expect(!account.isPersonalAccount)
            #expect(credential.idToken?.issuer == dev.baseURL + "/\(contoso)/v2.0")
            // Entra's email is not verified by Microsoft: never trusted for linking.
            #expect(credential.email == "alice@contoso.example")
            #expect(!credential.emailVerified)

            let personal = MicrosoftAccount(idToken: try #require(try await Self.signIn(microsoft, as: Self.carol).idToken))
            #expect(personal.isPersonalAccount)
            // bob's organisation is not on the list.
            #expect(await refusalCode { try await Self.signIn(microsoft, as: Self.bob) } == .tenantNotAllowed)
        }
    }

    @Test func audiencesDecideWhoSignsIn() async throws {
        try await Self.with { dev in
            // organizations: any organisation, never a personal account.
            let organizations = try Self.provider(dev, .organizations(.anyTenant))
            _ = try await Self.signIn(organizations, as: Self.bob)
            #expect(await refusalCode { try await Self.signIn(organizations, as: Self.carol) } == .tenantNotAllowed)
            // consumers: personal accounts only.
            let consumers = try Self.provider(dev, .consumers)
            _ = try await Self.signIn(consumers, as: Self.carol)
            #expect(await refusalCode { try await Self.signIn(consumers, as: Self.alice) } == .tenantNotAllowed)
            // One tenant: its own authority and issuer.
            let contoso = DevMicrosoftTenants.tenantID(for: Self.alice)
            let single = try Self.provider(dev, .tenant(contoso))
            #expect(single.openIDProvider.issuer == dev.baseURL + "/\(contoso)/v2.0")
            _ = try await Self.signIn(single, as: Self.alice)
            #expect(await refusalCode { try await Self.signIn(single, as: Self.bob) } == .tenantNotAllowed)
        }
    }

    @Test func aWrongIssuerFromTheProviderIsRefused() async throws {
        var configuration = Self.configuration
        configuration.clients[0].faults = [.wrongIssuer]
        let dev = try await DevProvider.start(configuration: configuration)
        defer { Task { try? await dev.stop() } }
        let microsoft = try Self.provider(dev, .common(.anyTenant))
        #expect(await refusalCode { try await Self.signIn(microsoft, as: Self.alice) } == .issuerMismatch)
    }

    /// The raw ID token of a sign-in as `user`.
    static func idToken(_ microsoft: MicrosoftProvider, as user: DevUser) async throws -> String {
        let client = try await microsoft.client()
        let built = try await microsoft.openIDProvider.authorizationRequest(with: client, redirectURI: redirectURI, loginHint: user.email)
        let response = try await PatientTransport.shared.send(HTTPRequest(url: built.url))
        let callback = try AuthorizationResponse(redirectURL: try #require(response.header("Location")))
        return try #require(try await client.finish(callback, pending: built.pending).tokens.idToken)
    }

    @Test func bearerTokensAreCheckedTheSameWay() async throws {
        try await Self.with { dev in
            let contoso = DevMicrosoftTenants.tenantID(for: Self.alice)
            let listed = try Self.provider(dev, .organizations(.only([contoso]))).bearerVerifier()
            let anyTenant = try Self.provider(dev, .common(.anyTenant))
            let identity = try await listed.verify(try await Self.idToken(anyTenant, as: Self.alice))
            #expect(identity.providerID == "microsoft.com" && identity.idToken?.claims["tid"] == .string(contoso))
            // bob's token is genuine, but his organisation is not on this API's list.
            let bobs = try await Self.idToken(anyTenant, as: Self.bob)
            #expect(await refusalCode { try await listed.verify(bobs) } == .tenantNotAllowed)
        }
    }

    @Test func configurationMistakesAreRefused() throws {
        let cache = ProviderCache(httpClient: PatientTransport.shared)
        #expect(throws: FederateError.self) {
            try MicrosoftProvider(clientID: "c", audience: .tenant("contoso.onmicrosoft.com"), cache: cache)
        }
        #expect(throws: FederateError.self) { try MicrosoftProvider(clientID: "c", audience: .common(.only([])), cache: cache) }
        #expect(throws: FederateError.self) { try MicrosoftProvider(clientID: "c", audience: .common(.only(["not-a-guid"])), cache: cache) }
        #expect(throws: FederateError.self) {
            try MicrosoftProvider(
                clientID: "c", audience: .organizations(.only([MicrosoftEndpoints.personalAccountsTenantID])), cache: cache)
        }
        let microsoft = try MicrosoftProvider(clientID: "c", audience: .common(.anyTenant), cache: cache)
        #expect(microsoft.openIDProvider.issuer == "https://login.microsoftonline.com/common/v2.0")
        #expect(microsoft.profile.tenantIssuer?.template.template == "https://login.microsoftonline.com/{tenantid}/v2.0")
        let explained = microsoft.profile.explain(FederateError(.tenantNotAllowed, "x"))
        #expect(explained.code == .tenantNotAllowed)
    }
}
