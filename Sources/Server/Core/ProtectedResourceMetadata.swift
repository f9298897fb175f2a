public import Federate
import Foundation
import HTTPTypes

/// An API's OAuth 2.0 Protected Resource Metadata (RFC 9728): what a client that got a 401
/// needs to obtain a token for it — the resource identifier to ask for (RFC 8707 `resource`),
/// the authorization servers that issue its tokens, the scopes it knows, and how tokens are
/// presented.
///
/// Served at ``metadataPath`` (`/.well-known/oauth-protected-resource`, followed by the
/// resource's path, RFC 9728 §3.1) by `ProtectedResourceRoutes` (FederateHummingbird,
/// FederateVapor) and `federate serve`, and named in every challenge of a
/// ``CallerAuthenticator`` given it (`resource_metadata="…"`, §5.1). The MCP authorization
/// specification requires both of an MCP server.
///
/// ```swift
/// let metadata = try ProtectedResourceMetadata(
///     resource: "https://api.example.com/mcp", authorizationServers: ["https://login.example.com"],
///     scopesSupported: ["tools:read", "tools:call"])
/// // metadata.metadataURL == "https://api.example.com/.well-known/oauth-protected-resource/mcp"
/// ```
public struct ProtectedResourceMetadata: Sendable, Equatable {
    /// The well-known path prefix (RFC 9728 §3).
    static let wellKnownPath = "/.well-known/oauth-protected-resource"

    /// The resource identifier: the tokens' audience (`aud`), the `resource` clients ask for.
    public let resource: String
    /// The issuers of the authorization servers whose tokens the API takes (`authorization_servers`).
    package let authorizationServers: [String]
    /// The scopes the API knows (`scopes_supported`); empty omits the member.
    package let scopesSupported: OAuthScopes
    /// How tokens may be sent (`bearer_methods_supported`): Federate reads the `Authorization`
    /// header only, so `["header"]`.
    let bearerMethodsSupported: [String]
    /// The DPoP proof algorithms taken (`dpop_signing_alg_values_supported`, RFC 9449 §5.1);
    /// empty omits the member (`DPoPPresentation.signingAlgorithms` gives them).
    package let dpopSigningAlgValuesSupported: [String]
    /// Whether only DPoP-bound tokens are taken (`dpop_bound_access_tokens_required`).
    let dpopBoundAccessTokensRequired: Bool
    /// A name for people (`resource_name`).
    package let resourceName: String?
    /// Where its documentation is (`resource_documentation`).
    let resourceDocumentation: String?

    /// Creates the metadata. `invalid_configuration` unless `resource` is an absolute `https`
    /// URL (or `http` on a loopback host, for development) without query, fragment or user
    /// information, every authorization server an issuer of the same kind, every scope in RFC
    /// 6749 §3.3's grammar, and `resourceDocumentation`, when given, an absolute URL.
    public init(
        resource: String, authorizationServers: [String], scopesSupported: OAuthScopes = [], dpopSigningAlgValuesSupported: [String] = [],
        dpopBoundAccessTokensRequired: Bool = false, resourceName: String? = nil, resourceDocumentation: String? = nil
    ) throws(FederateError) {
        try Self.checkIdentifier(resource, field: "the protected resource's identifier")
        guard !authorizationServers.isEmpty else {
            throw FederateError(.invalidConfiguration, "name at least one authorization server of the protected resource")
        }
        for server in authorizationServers { try Self.checkIdentifier(server, field: "an authorization server's issuer") }
        for scope in scopesSupported {
            guard (try? OAuthScopes.validate(scope)) == 1 else {
                throw FederateError(.invalidConfiguration, "a supported scope is one scope token of RFC 6749 §3.3")
            }
        }
        for algorithm in dpopSigningAlgValuesSupported
        where !algorithm.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") }) {
            throw FederateError(.invalidConfiguration, "a DPoP algorithm name is printable ASCII: \(algorithm.debugDescription.prefix(40))")
        }
        if let resourceDocumentation {
            do {
                try EndpointSecurity.validate(resourceDocumentation, field: "resource_documentation")
            } catch {
                throw FederateError(.invalidConfiguration, error.message)
            }
        }
        self.resource = resource
        self.authorizationServers = authorizationServers
        self.scopesSupported = scopesSupported
        self.bearerMethodsSupported = ["header"]
        self.dpopSigningAlgValuesSupported = dpopSigningAlgValuesSupported
        self.dpopBoundAccessTokensRequired = dpopBoundAccessTokensRequired
        self.resourceName = resourceName
        self.resourceDocumentation = resourceDocumentation
    }

    /// Where the metadata is served: the well-known prefix, then the resource identifier's path
    /// when it has one other than `/` (RFC 9728 §3.1): `/.well-known/oauth-protected-resource/mcp`
    /// for `https://api.example.com/mcp`.
    public var metadataPath: String {
        let path = Self.path(of: resource)
        return path.isEmpty || path == "/" ? Self.wellKnownPath : Self.wellKnownPath + path
    }

    /// The metadata's URL, as challenges name it (`resource_metadata`).
    public var metadataURL: String { Self.origin(of: resource) + metadataPath }

    /// The metadata document (RFC 9728 §2).
    package var json: JSONValue {
        var members: [String: JSONValue] = [
            "resource": .string(resource),
            "authorization_servers": .array(authorizationServers.map(JSONValue.string)),
            "bearer_methods_supported": .array(bearerMethodsSupported.map(JSONValue.string)),
        ]
        if !scopesSupported.isEmpty { members["scopes_supported"] = .array(scopesSupported.values.map(JSONValue.string)) }
        if !dpopSigningAlgValuesSupported.isEmpty {
            members["dpop_signing_alg_values_supported"] = .array(dpopSigningAlgValuesSupported.map(JSONValue.string))
        }
        if dpopBoundAccessTokensRequired { members["dpop_bound_access_tokens_required"] = true }
        if let resourceName { members["resource_name"] = .string(resourceName) }
        if let resourceDocumentation { members["resource_documentation"] = .string(resourceDocumentation) }
        return .object(members)
    }

    /// The answer at ``metadataPath``: the document as `application/json`, cacheable for five
    /// minutes and readable by any origin (a browser-based MCP client fetches it cross-origin).
    public var response: ServerResponse {
        ServerResponse(
            status: .ok,
            headers: [.contentType: "application/json", .cacheControl: "public, max-age=300", .accessControlAllowOrigin: "*"],
            body: JSONSerializer.bytes(json))
    }

    /// An `https` (or loopback `http`) URL without user information, query or fragment.
    private static func checkIdentifier(_ url: String, field: String) throws(FederateError) {
        do {
            try EndpointSecurity.validate(url, field: field)
        } catch {
            throw FederateError(.invalidConfiguration, error.message)
        }
        guard !url.contains("?"), !url.contains("#"), !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7F }) else {
            throw FederateError(.invalidConfiguration, "\(field) carries no query, fragment, space or non-ASCII character (RFC 9728 §1.2)")
        }
    }

    /// `scheme://authority` of an absolute URL already checked.
    package static func origin(of url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let authority = url[schemeEnd.upperBound...].prefix { $0 != "/" }
        return String(url[..<schemeEnd.upperBound]) + authority
    }

    /// The path of an absolute URL already checked (`""` when it has none).
    package static func path(of url: String) -> String {
        String(url.dropFirst(origin(of: url).count))
    }
}
