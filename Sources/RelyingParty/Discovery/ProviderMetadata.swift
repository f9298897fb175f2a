public import FederateTokens
/// An OpenID provider's configuration (OpenID Connect Discovery 1.0 §3), validated.
///
/// Validation: the document is a JSON object; `issuer` equals the issuer it was fetched
/// for, exactly (§4.3: this is what stops one provider impersonating another); the
/// required fields are present; every endpoint member (every `…_endpoint`, `jwks_uri`, and
/// the `mtls_endpoint_aliases` of RFC 8705, whatever names later specifications add) is a
/// string that `EndpointSecurity` accepts under the issuer's ``destination``: printable ASCII,
/// HTTPS (plain HTTP only on loopback, for a loopback issuer), and, unless the issuer is on
/// loopback, no loopback, link-local, private or unspecified address in any spelling except
/// what the provider's `PrivateNetworkAllowList` names.
public struct ProviderMetadata: Sendable {
    /// `issuer`.
    public let issuer: String
    /// `authorization_endpoint`.
    public let authorizationEndpoint: String
    /// `token_endpoint`.
    public let tokenEndpoint: String
    /// `jwks_uri`.
    public let jwksURI: String
    /// `userinfo_endpoint`, if advertised.
    package let userinfoEndpoint: String?
    /// `revocation_endpoint` (RFC 7009), if advertised.
    package let revocationEndpoint: String?
    /// `end_session_endpoint` (RP-initiated logout), if advertised.
    package let endSessionEndpoint: String?
    /// `introspection_endpoint` (RFC 7662), if advertised.
    package let introspectionEndpoint: String?
    /// `response_types_supported`.
    package let responseTypesSupported: [String]
    /// `subject_types_supported`.
    let subjectTypesSupported: [String]
    /// `id_token_signing_alg_values_supported`, as written.
    package let idTokenSigningAlgValuesSupported: [String]
    /// `scopes_supported`, if advertised.
    package let scopesSupported: [String]?
    /// `response_modes_supported`, if advertised.
    package let responseModesSupported: [String]?
    /// `grant_types_supported`, if advertised.
    let grantTypesSupported: [String]?
    /// `token_endpoint_auth_methods_supported`, if advertised (the spec's default is `client_secret_basic`).
    package let tokenEndpointAuthMethodsSupported: [String]?
    /// `code_challenge_methods_supported`, if advertised.
    package let codeChallengeMethodsSupported: [String]?
    /// `claims_supported`, if advertised.
    let claimsSupported: [String]?
    /// `authorization_response_iss_parameter_supported` (RFC 9207); `false` when absent.
    package let authorizationResponseIssParameterSupported: Bool
    /// Every member of the document, for provider-specific fields.
    package let document: [String: JSONValue]
    /// Where the requests made for this provider may connect: any address when the issuer is
    /// on loopback, else public addresses only, except the allow-list it was validated with.
    /// Every request Federate makes for the provider carries it (`HTTPRequest/destination`).
    public let destination: DestinationPolicy

    /// The signing algorithms to allow for ID tokens by default: those advertised that
    /// Federate implements for key sets, or RS256 when none is advertised or usable.
    package var defaultIDTokenAlgorithms: Set<JWSAlgorithm> {
        let advertised = Set(idTokenSigningAlgValuesSupported.compactMap(JWSAlgorithm.init(rawValue:)).filter { !$0.isSymmetric })
        return advertised.isEmpty ? [.rs256] : advertised
    }

    /// Parses and validates a discovery document fetched for `expectedIssuer`, whose provider
    /// may use the private destinations `privateNetworkAllowList` names (``destination``).
    public init(
        document bytes: some Collection<UInt8>, expectedIssuer: String, privateNetworkAllowList: PrivateNetworkAllowList = .none
    ) throws(FederateError) {
        try self.init(document: bytes, expecting: .exactly(expectedIssuer), allowing: privateNetworkAllowList)
    }

    /// Parses and validates a discovery document whose `issuer` must be what `expected` accepts.
    init(
        document bytes: some Collection<UInt8>, expecting expected: DiscoveredIssuer, allowing allowList: PrivateNetworkAllowList = .none
    ) throws(FederateError) {
        let members: [String: JSONValue]
        do {
            members = try JSONParser().parseObject(bytes)
        } catch {
            throw FederateError(.invalidDiscoveryDocument, "the discovery document is not a JSON object (\(error))")
        }
        try self.init(members: members, expecting: expected, allowing: allowList)
    }

    /// Validates already-parsed members, as ``init(document:expectedIssuer:privateNetworkAllowList:)`` does.
    package init(
        members: [String: JSONValue], expectedIssuer: String, privateNetworkAllowList: PrivateNetworkAllowList = .none
    ) throws(FederateError) {
        try self.init(members: members, expecting: .exactly(expectedIssuer), allowing: privateNetworkAllowList)
    }

    /// Validates already-parsed members whose `issuer` must be what `expected` accepts.
    init(
        members: [String: JSONValue], expecting expected: DiscoveredIssuer, allowing allowList: PrivateNetworkAllowList = .none
    ) throws(FederateError) {
        func string(_ name: String) throws(FederateError) -> String? {
            guard let value = members[name] else { return nil }
            guard case .string(let s) = value else {
                throw FederateError(.invalidDiscoveryDocument, "'\(name)' is not a string")
            }
            return s
        }
        func required(_ name: String) throws(FederateError) -> String {
            guard let s = try string(name), !s.isEmpty else {
                throw FederateError(.invalidDiscoveryDocument, "required field '\(name)' is missing")
            }
            return s
        }
        func endpoint(_ name: String, required isRequired: Bool) throws(FederateError) -> String? {
            isRequired ? try required(name) : try string(name)
        }
        func strings(_ name: String) throws(FederateError) -> [String]? {
            guard let value = members[name] else { return nil }
            guard case .array(let entries) = value else {
                throw FederateError(.invalidDiscoveryDocument, "'\(name)' is not an array")
            }
            var result: [String] = []
            for entry in entries {
                guard case .string(let s) = entry else {
                    throw FederateError(.invalidDiscoveryDocument, "'\(name)' must hold strings")
                }
                result.append(s)
            }
            return result
        }
        func requiredStrings(_ name: String) throws(FederateError) -> [String] {
            guard let list = try strings(name), !list.isEmpty else {
                throw FederateError(.invalidDiscoveryDocument, "required field '\(name)' is missing or empty")
            }
            return list
        }

        let issuer = try required("issuer")
        let acceptedIssuer = try expected.accept(issuer)
        let destination = DestinationPolicy(issuer: acceptedIssuer, allowing: allowList)
        try EndpointSecurity.validate(acceptedIssuer, field: "issuer", destination: destination)
        try Self.validateEndpoints(members, destination: destination)
        self.issuer = issuer
        self.destination = destination
        self.authorizationEndpoint = try endpoint("authorization_endpoint", required: true) ?? ""
        self.tokenEndpoint = try endpoint("token_endpoint", required: true) ?? ""
        self.jwksURI = try endpoint("jwks_uri", required: true) ?? ""
        self.userinfoEndpoint = try endpoint("userinfo_endpoint", required: false)
        self.revocationEndpoint = try endpoint("revocation_endpoint", required: false)
        self.endSessionEndpoint = try endpoint("end_session_endpoint", required: false)
        self.introspectionEndpoint = try endpoint("introspection_endpoint", required: false)
        self.responseTypesSupported = try requiredStrings("response_types_supported")
        self.subjectTypesSupported = try requiredStrings("subject_types_supported")
        self.idTokenSigningAlgValuesSupported = try requiredStrings("id_token_signing_alg_values_supported")
        self.scopesSupported = try strings("scopes_supported")
        self.responseModesSupported = try strings("response_modes_supported")
        self.grantTypesSupported = try strings("grant_types_supported")
        self.tokenEndpointAuthMethodsSupported = try strings("token_endpoint_auth_methods_supported")
        self.codeChallengeMethodsSupported = try strings("code_challenge_methods_supported")
        self.claimsSupported = try strings("claims_supported")
        if let flag = members["authorization_response_iss_parameter_supported"] {
            guard case .bool(let b) = flag else {
                throw FederateError(.invalidDiscoveryDocument, "'authorization_response_iss_parameter_supported' is not a Boolean")
            }
            self.authorizationResponseIssParameterSupported = b
        } else {
            self.authorizationResponseIssParameterSupported = false
        }
        self.document = members
    }

    /// Whether a member names an endpoint: every `…_endpoint` and `…jwks_uri`.
    package static func isEndpointMember(_ name: String) -> Bool {
        name.hasSuffix("_endpoint") || name.hasSuffix("jwks_uri")
    }

    /// The one rule for every endpoint the document publishes, and every alias in
    /// `mtls_endpoint_aliases` (RFC 8705 §5): a string that `EndpointSecurity` accepts under
    /// `destination`. Members are checked in name order, so the refusal is the same every time.
    static func validateEndpoints(_ members: [String: JSONValue], destination: DestinationPolicy) throws(FederateError) {
        var endpoints = members.filter { isEndpointMember($0.key) }.map { (field: $0.key, value: $0.value) }
        if let aliases = members["mtls_endpoint_aliases"] {
            guard case .object(let entries) = aliases else {
                throw FederateError(.invalidDiscoveryDocument, "'mtls_endpoint_aliases' is not an object")
            }
            endpoints += entries.map { (field: "mtls_endpoint_aliases." + $0.key, value: $0.value) }
        }
        for (field, value) in endpoints.sorted(by: { $0.field.utf8.lexicographicallyPrecedes($1.field.utf8) }) {
            let name = field.utf8.count <= 80 ? field : String(decoding: field.utf8.prefix(80), as: UTF8.self) + "…"
            guard case .string(let url) = value else {
                throw FederateError(.invalidDiscoveryDocument, "'\(name)' is not a string")
            }
            try EndpointSecurity.validate(url, field: name, destination: destination)
        }
    }

    /// The discovery URL for an issuer: the issuer without a trailing `/`, then
    /// `/.well-known/openid-configuration` (Discovery §4).
    package static func discoveryURL(forIssuer issuer: String) -> String {
        var base = issuer
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/.well-known/openid-configuration"
    }
}
