import FederateTestSupport
import Foundation
import Testing
import Federate
@testable import FederateAccounts
@testable import FederateRelyingParty
@testable import FederateTokens

/// RFC 8707 resource indicators on the client: configured once (`withResources`), sent as
/// `resource` on the authorization request, the code exchange and the refresh, each resource
/// checked first; never settable through custom parameters.
@Suite("Resource indicators (RFC 8707)")
struct ResourceIndicatorTests {
    /// The `resource` values of a form or query, in order (a dictionary would keep one).
    static func resources(in text: String) -> [String] {
        text.split(separator: "&").compactMap { pair -> String? in
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0] == "resource" else { return nil }
            return (try? FormURLEncoding.decode("r=" + parts[1]))?["r"]
        }
    }

    @Test func sentOnAuthorizationCodeExchangeAndRefresh() async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client().withResources([
                "https://api.example.com/mcp", "urn:example:orders", "https://api.example.com/mcp",
            ])
            #expect(client.resources == ["https://api.example.com/mcp", "urn:example:orders"])
            let built = try await client.authorizationRequest(providerID: "oidc.test", redirectURI: "http://127.0.0.1:9/callback")
            let query = try #require(built.url.split(separator: "?", maxSplits: 1).last.map(String.init))
            #expect(Self.resources(in: query) == ["https://api.example.com/mcp", "urn:example:orders"])

            provider.tokenEndpointAnswers(try provider.tokenResponse(nonce: built.pending.nonce))
            _ = try await client.exchange(code: "c", pending: built.pending)
            _ = try await client.refresh("refresh-1")
            let forms = provider.requests(to: "/token").map(\.bodyString)
            #expect(forms.count == 2)
            for form in forms { #expect(Self.resources(in: form) == ["https://api.example.com/mcp", "urn:example:orders"], "\(form)") }

            // Without resources, none is sent.
            let plain = try provider.client()
            let unbound = try await plain.authorizationRequest(providerID: "oidc.test", redirectURI: "http://127.0.0.1:9/callback")
            #expect(Self.resources(in: unbound.url).isEmpty)
        }
    }

    @Test(arguments: [
        "", "api.example.com/mcp", "/mcp", "https://api.example.com/mcp#frag", "https://api.example.com/m cp",
        "https://api.example.com/\u{212A}",
        ":no-scheme", "1http://api.example.com", "https:", String(repeating: "a", count: 2049),
    ])
    func malformedResourcesAreRefused(resource: String) throws {
        let client = try ScriptedProviderFree.client()
        #expect(throws: FederateError.self) { try client.withResources([resource]) }
        var request = AuthorizationRequest(providerID: "oidc.test", clientID: "c", redirectURI: "http://127.0.0.1:9/callback")
        request.resources = [resource]
        #expect(throws: FederateError.self) { try request.build(for: try ScriptedProviderFree.metadata(), now: Date()) }
    }

    @Test func aCustomParameterCannotSetTheResource() throws {
        var request = AuthorizationRequest(providerID: "oidc.test", clientID: "c", redirectURI: "http://127.0.0.1:9/callback")
        request.customParameters = ["resource": "https://evil.example"]
        let built = try request.build(for: try ScriptedProviderFree.metadata(), now: Date())
        #expect(built.droppedParameters == ["resource"])
        #expect(Self.resources(in: built.url).isEmpty)
        #expect(throws: FederateError.self) { try ScriptedProviderFree.client().withResources(Array(repeating: "urn:a", count: 17)) }
    }
}

/// A client and metadata with no server behind them, for checks made before anything is sent.
enum ScriptedProviderFree {
    static func metadata() throws -> ProviderMetadata {
        try ProviderMetadata(
            members: [
                "issuer": "https://login.example.com", "authorization_endpoint": "https://login.example.com/authorize",
                "token_endpoint": "https://login.example.com/token", "jwks_uri": "https://login.example.com/jwks",
                "response_types_supported": ["code"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"],
            ], expectedIssuer: "https://login.example.com")
    }

    static func client() throws -> OpenIDClient {
        try OpenIDClient(
            metadata: metadata(), clientID: "c", authentication: .none, keys: JSONWebKeySet(jwks: Array(#"{"keys":[]}"#.utf8)),
            httpClient: PatientTransport.shared)
    }
}
