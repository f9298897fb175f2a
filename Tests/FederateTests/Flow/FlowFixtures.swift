import Foundation
import Testing
import Federate
@testable import FederateAccounts
@testable import FederateRelyingParty
@testable import FederateTokens

/// Provider metadata and pending authorizations for flow tests that need no server.
enum FlowFixtures {
    static let issuer = "https://op.example"
    static let clientID = "client-1"
    static let redirectURI = "https://rp.example/callback"

    /// Metadata of a provider at ``issuer``; `overrides` replaces or (with `nil`) removes members.
    static func metadata(_ overrides: [String: JSONValue?] = [:]) throws -> ProviderMetadata {
        var members: [String: JSONValue] = [
            "issuer": .string(issuer),
            "authorization_endpoint": .string(issuer + "/authorize"),
            "token_endpoint": .string(issuer + "/token"),
            "jwks_uri": .string(issuer + "/jwks"),
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "code_challenge_methods_supported": ["S256"],
        ]
        for (name, value) in overrides { members[name] = value ?? nil }
        for (name, value) in overrides where value == nil { members.removeValue(forKey: name) }
        return try ProviderMetadata(members: members, expectedIssuer: issuer)
    }

    /// A freshly built request for the default client.
    static func built(
        metadata: ProviderMetadata? = nil, responseMode: ResponseMode? = nil, maxAge: Duration? = nil,
        customParameters: [String: String] = [:], now: Date = Date()
    ) throws -> BuiltAuthorizationRequest {
        try AuthorizationRequest(
            providerID: "oidc.example", clientID: clientID, redirectURI: redirectURI, responseMode: responseMode,
            maxAge: maxAge, customParameters: customParameters
        ).build(for: metadata ?? self.metadata(), now: now)
    }

    /// The query parameters of a URL, as a dictionary (the test fails on duplicates).
    static func query(of url: String) throws -> [String: String] {
        let query = try #require(url.split(separator: "?", maxSplits: 1).last.map(String.init))
        return try FormURLEncoding.decode(query)
    }
}
