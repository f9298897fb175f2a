import Federate
import FederateDevProvider
import FederateTestSupport
import Foundation
import Testing

/// Helpers shared by the flavour tests: a provider per test, the browser's part of a sign-in.
enum Flavor {
    static let redirectURI = "http://127.0.0.1:9/callback"

    /// Runs `body` with a provider of `configuration`, and stops it afterwards.
    static func with<T>(_ configuration: DevProviderConfiguration, _ body: (DevProvider) async throws -> T) async throws -> T {
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

    /// A relying party for `clientID` at `provider`, from discovery.
    static func client(
        _ provider: DevProvider, id: String, authentication: ClientAuthentication,
        profile: any OpenIDProviderProfile = StandardOpenIDProfile()
    ) async throws -> OpenIDClient {
        let metadata = try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: provider.issuer)
        return try OpenIDClient(
            metadata: metadata, clientID: id, authentication: authentication, profile: profile, httpClient: PatientTransport.shared)
    }

    /// Plays the browser: follows the authorization URL (auto-approve or `login_hint`) and
    /// returns the callback, from a redirect (query or fragment) or a `form_post` page.
    static func authorize(_ url: String) async throws -> AuthorizationResponse {
        let response = try await PatientTransport.shared.send(HTTPRequest(url: url))
        if response.status == 200 {
            return AuthorizationResponse(parameters: HTMLForm.hiddenFields(String(decoding: response.body, as: UTF8.self)))
        }
        #expect(response.status == 302, "\(String(decoding: response.body, as: UTF8.self))")
        return try AuthorizationResponse(redirectURL: try #require(response.header("Location")))
    }

    /// A full sign-in: request, browser, callback checks, code exchange, ID-token verification.
    static func signIn(
        _ client: OpenIDClient, scopes: [String] = ["openid", "email", "profile"], responseMode: ResponseMode? = nil,
        loginHint: String? = nil, customParameters: [String: String] = [:]
    ) async throws -> TokenSet {
        let built = try await client.authorizationRequest(
            providerID: "oidc.dev", redirectURI: redirectURI, scopes: scopes, responseMode: responseMode, loginHint: loginHint,
            customParameters: customParameters)
        return try await client.finish(try await authorize(built.url), pending: built.pending).tokens
    }
}
