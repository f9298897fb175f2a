public import FederateTokens
import Foundation

/// What a client needs to know about an OAuth 2.0 authorization server: its endpoints and
/// what it supports. Discovered from its RFC 8414 document
/// (`/.well-known/oauth-authorization-server`), or configured for a server that publishes
/// none (GitHub).
///
/// Validation: the `issuer` equals the issuer the document was fetched for, byte for byte
/// (RFC 8414 §3.3); `authorization_endpoint` and `token_endpoint` are present; every endpoint
/// passes `EndpointSecurity` (HTTPS, or HTTP on a loopback host). Unlike an OpenID
/// provider's document (``ProviderMetadata``), no key set and no ID-token algorithms are required.
public struct AuthorizationServerMetadata: Sendable {
    /// `issuer`: the authorization server's identifier, also the RFC 9207 `iss` its callbacks carry.
    package let issuer: String
    /// `authorization_endpoint`.
    package let authorizationEndpoint: String
    /// `token_endpoint`.
    package let tokenEndpoint: String
    /// `revocation_endpoint` (RFC 7009), if any.
    package let revocationEndpoint: String?
    /// `introspection_endpoint` (RFC 7662), if any.
    package let introspectionEndpoint: String?
    /// `jwks_uri`, if any (not needed without ID tokens).
    package let jwksURI: String?
    /// `token_endpoint_auth_methods_supported`, if advertised (RFC 8414's default is `client_secret_basic`).
    package let tokenEndpointAuthMethodsSupported: [String]?
    /// `code_challenge_methods_supported`, if advertised.
    package let codeChallengeMethodsSupported: [String]?
    /// `grant_types_supported`, if advertised.
    let grantTypesSupported: [String]?
    /// `scopes_supported`, if advertised.
    package let scopesSupported: [String]?
    /// `authorization_response_iss_parameter_supported` (RFC 9207); `false` when absent. When
    /// `true`, a callback without `iss` is refused.
    package let authorizationResponseIssParameterSupported: Bool
    /// Every member of the document (empty when configured).
    package let document: [String: JSONValue]
    /// Where the requests made for this server may connect: any address for an issuer on
    /// loopback, else public addresses only (the private-network rule, ``DestinationPolicy``).
    /// Every endpoint was checked against it, and every request carries it.
    package let destination: DestinationPolicy

    /// Endpoints configured by hand, for a server that publishes no RFC 8414 document. Each is
    /// checked by `EndpointSecurity` under the issuer's `destination`; throws
    /// `insecure_endpoint`, `invalid_url` or `private_address_refused`.
    public init(
        issuer: String, authorizationEndpoint: String, tokenEndpoint: String, revocationEndpoint: String? = nil,
        introspectionEndpoint: String? = nil, tokenEndpointAuthMethodsSupported: [String]? = nil,
        authorizationResponseIssParameterSupported: Bool = false
    ) throws(FederateError) {
        let destination = DestinationPolicy(issuer: issuer)
        for (field, url) in [
            ("issuer", issuer), ("authorization_endpoint", authorizationEndpoint), ("token_endpoint", tokenEndpoint),
            ("revocation_endpoint", revocationEndpoint), ("introspection_endpoint", introspectionEndpoint),
        ] {
            if let url { try EndpointSecurity.validate(url, field: field, destination: destination) }
        }
        self.destination = destination
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.introspectionEndpoint = introspectionEndpoint
        self.jwksURI = nil
        self.tokenEndpointAuthMethodsSupported = tokenEndpointAuthMethodsSupported
        self.codeChallengeMethodsSupported = nil
        self.grantTypesSupported = nil
        self.scopesSupported = nil
        self.authorizationResponseIssParameterSupported = authorizationResponseIssParameterSupported
        self.document = [:]
    }

    /// Parses and validates a metadata document (RFC 8414, or an OpenID provider's discovery
    /// document, which has the same members) fetched for `expectedIssuer`, under its
    /// private-network rule with `allowList`'s exceptions. Throws `invalid_discovery_document`,
    /// `discovery_issuer_mismatch`, `insecure_endpoint`, `invalid_url`, `private_address_refused`.
    package init(
        document bytes: some Collection<UInt8>, expectedIssuer: String, allowing allowList: PrivateNetworkAllowList = .none
    ) throws(FederateError) {
        let members: [String: JSONValue]
        do {
            members = try JSONParser().parseObject(bytes)
        } catch {
            throw FederateError(.invalidDiscoveryDocument, "the authorization server metadata is not a JSON object (\(error))")
        }
        func string(_ name: String) throws(FederateError) -> String? {
            guard let value = members[name] else { return nil }
            guard case .string(let text) = value, !text.isEmpty else {
                throw FederateError(.invalidDiscoveryDocument, "'\(name)' is not a non-empty string")
            }
            return text
        }
        let destination = DestinationPolicy(issuer: expectedIssuer, allowing: allowList)
        func endpoint(_ name: String, required: Bool) throws(FederateError) -> String? {
            guard let url = try string(name) else {
                if required { throw FederateError(.invalidDiscoveryDocument, "required field '\(name)' is missing") }
                return nil
            }
            try EndpointSecurity.validate(url, field: name, destination: destination)
            return url
        }
        func strings(_ name: String) throws(FederateError) -> [String]? {
            guard let value = members[name] else { return nil }
            guard case .array(let entries) = value else { throw FederateError(.invalidDiscoveryDocument, "'\(name)' is not an array") }
            var result: [String] = []
            for entry in entries {
                guard case .string(let text) = entry else { throw FederateError(.invalidDiscoveryDocument, "'\(name)' must hold strings") }
                result.append(text)
            }
            return result
        }
        guard let issuer = try string("issuer") else {
            throw FederateError(.invalidDiscoveryDocument, "required field 'issuer' is missing")
        }
        guard issuer.exactlyEquals(expectedIssuer) else {
            throw FederateError(
                .discoveryIssuerMismatch,
                "the document's issuer '\(issuer.prefix(200))' differs from the requested issuer '\(expectedIssuer.prefix(200))'")
        }
        try EndpointSecurity.validate(issuer, field: "issuer", destination: destination)
        self.destination = destination
        self.issuer = issuer
        self.authorizationEndpoint = try endpoint("authorization_endpoint", required: true) ?? ""
        self.tokenEndpoint = try endpoint("token_endpoint", required: true) ?? ""
        self.revocationEndpoint = try endpoint("revocation_endpoint", required: false)
        self.introspectionEndpoint = try endpoint("introspection_endpoint", required: false)
        self.jwksURI = try endpoint("jwks_uri", required: false)
        self.tokenEndpointAuthMethodsSupported = try strings("token_endpoint_auth_methods_supported")
        self.codeChallengeMethodsSupported = try strings("code_challenge_methods_supported")
        self.grantTypesSupported = try strings("grant_types_supported")
        self.scopesSupported = try strings("scopes_supported")
        if let flag = members["authorization_response_iss_parameter_supported"] {
            guard case .bool(let supported) = flag else {
                throw FederateError(.invalidDiscoveryDocument, "'authorization_response_iss_parameter_supported' is not a Boolean")
            }
            self.authorizationResponseIssParameterSupported = supported
        } else {
            self.authorizationResponseIssParameterSupported = false
        }
        self.document = members
    }

    /// The metadata of an OpenID provider, seen as an authorization server.
    package init(_ metadata: ProviderMetadata) {
        self.issuer = metadata.issuer
        self.authorizationEndpoint = metadata.authorizationEndpoint
        self.tokenEndpoint = metadata.tokenEndpoint
        self.revocationEndpoint = metadata.revocationEndpoint
        self.introspectionEndpoint = metadata.introspectionEndpoint
        self.jwksURI = metadata.jwksURI
        self.tokenEndpointAuthMethodsSupported = metadata.tokenEndpointAuthMethodsSupported
        self.codeChallengeMethodsSupported = metadata.codeChallengeMethodsSupported
        self.grantTypesSupported = metadata.grantTypesSupported
        self.scopesSupported = metadata.scopesSupported
        self.authorizationResponseIssParameterSupported = metadata.authorizationResponseIssParameterSupported
        self.document = metadata.document
        self.destination = metadata.destination
    }

    /// RFC 8414 §3: `/.well-known/oauth-authorization-server` inserted between the issuer's
    /// host and its path (`https://a.example/tenant` → `https://a.example/.well-known/oauth-authorization-server/tenant`).
    package static func metadataURL(forIssuer issuer: String) -> String {
        var trimmed = issuer
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let schemeEnd = trimmed.range(of: "://") else { return trimmed + "/.well-known/oauth-authorization-server" }
        let afterScheme = trimmed[schemeEnd.upperBound...]
        guard let slash = afterScheme.firstIndex(of: "/") else { return trimmed + "/.well-known/oauth-authorization-server" }
        return String(trimmed[..<slash]) + "/.well-known/oauth-authorization-server" + String(trimmed[slash...])
    }
}
