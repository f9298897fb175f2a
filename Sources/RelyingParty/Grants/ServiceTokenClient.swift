public import FederateTokens
import Foundation
public import Logging

/// A service's own client at an authorization server, for calls between services: the
/// client-credentials grant (RFC 6749 §4.4) and token exchange (RFC 8693), with any client
/// authentication but `none` (a public client has no credentials to grant on), and DPoP
/// (RFC 9449) when it has a key (`withDPoP(_:)`).
///
/// ```swift
/// let client = try ServiceTokenClient(
///     tokenEndpoint: "https://auth.example.com/oauth2/token", issuer: "https://auth.example.com",
///     clientID: "billing", authentication: .clientSecretBasic(secret: secret), httpClient: http)
/// let token = try await client.clientCredentials(scopes: ["invoices:read"])
/// ```
///
/// Tokens come back as ``IssuedToken``; keep them with a ``ServiceTokenCache``, which
/// refreshes them before they expire. A refusal is the server's OAuth error as a
/// `FederateError` (`invalid_client`, `unauthorized_client`, `invalid_scope`,
/// `invalid_target`, `invalid_grant`, `unsupported_grant_type`, …).
public struct ServiceTokenClient: Sendable {
    /// The issuer, for spans and logs (the token endpoint's when configured without one).
    package let issuer: String
    /// The token endpoint.
    package let tokenEndpoint: String
    /// The client ID.
    package let clientID: String
    /// How the client authenticates.
    package let authentication: ClientAuthentication
    /// The transport.
    package let httpClient: any HTTPClient
    /// The time `expires_in` is made absolute with.
    package let clock: FederateClock
    /// The DPoP key requests prove possession of (the server then binds its tokens to it), if any.
    package private(set) var dpop: DPoPProofSigner?
    /// Where its requests may connect: the issuer's private-network rule, with the allow-list given.
    let destination: DestinationPolicy
    let logger: Logger
    let observability: Observability

    /// A client for the token endpoint `tokenEndpoint` (checked by `EndpointSecurity` under the
    /// private-network rule of `issuer`, or of the endpoint itself, with `privateNetworkAllowList`'s
    /// exceptions). Throws `invalid_configuration` for `ClientAuthentication.none`.
    public init(
        tokenEndpoint: String, issuer: String? = nil, clientID: String, authentication: ClientAuthentication, httpClient: any HTTPClient,
        privateNetworkAllowList: PrivateNetworkAllowList = .none, clock: FederateClock = .system,
        logger: Logger = Logger(label: "federate.service-tokens"), observability: Observability = Observability()
    ) throws(FederateError) {
        try self.init(
            tokenEndpoint: tokenEndpoint, issuer: issuer, clientID: clientID, authentication: authentication, httpClient: httpClient,
            destination: DestinationPolicy(issuer: issuer ?? tokenEndpoint, allowing: privateNetworkAllowList), clock: clock,
            logger: logger, observability: observability)
    }

    /// The client, its requests carrying `destination`.
    private init(
        tokenEndpoint: String, issuer: String?, clientID: String, authentication: ClientAuthentication, httpClient: any HTTPClient,
        destination: DestinationPolicy, clock: FederateClock, logger: Logger, observability: Observability
    ) throws(FederateError) {
        try EndpointSecurity.validate(tokenEndpoint, field: "token_endpoint", destination: destination)
        if case .none = authentication {
            throw FederateError(
                .invalidConfiguration, "a service's grants need client authentication: a public client ('none') cannot use them")
        }
        guard !clientID.isEmpty else { throw FederateError(.invalidConfiguration, "the client ID is empty") }
        self.issuer = issuer ?? tokenEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.clientID = clientID
        self.authentication = authentication
        self.httpClient = httpClient
        self.destination = destination
        self.clock = clock
        self.logger = logger
        self.observability = observability
    }

    /// A client for the token endpoint of the server `metadata` describes.
    package init(
        metadata: AuthorizationServerMetadata, clientID: String, authentication: ClientAuthentication, httpClient: any HTTPClient,
        clock: FederateClock = .system, logger: Logger = Logger(label: "federate.service-tokens"),
        observability: Observability = Observability()
    ) throws(FederateError) {
        try self.init(
            tokenEndpoint: metadata.tokenEndpoint, issuer: metadata.issuer, clientID: clientID, authentication: authentication,
            httpClient: httpClient, destination: metadata.destination, clock: clock, logger: logger, observability: observability)
    }

    /// This client, proving possession of `signer`'s key on every token request (RFC 9449);
    /// `nil` turns DPoP off. A nonce the server asks for is fetched with one retry.
    public func withDPoP(_ signer: DPoPProofSigner?) -> ServiceTokenClient {
        var copy = self
        copy.dpop = signer
        return copy
    }

    var calls: AuthorizationServerCalls {
        AuthorizationServerCalls(
            issuer: issuer, destination: destination, clientID: clientID, authentication: authentication,
            httpClient: httpClient, dpop: dpop, clock: clock,
            logger: logger, observability: observability, explain: { $0 })
    }

    /// A token for this service itself (client credentials, RFC 6749 §4.4): with `scopes`,
    /// RFC 8707 `resources` (absolute URIs without a fragment) and an `audience` when given.
    public func clientCredentials(
        scopes: [String] = [], resources: [String] = [], audience: String? = nil
    ) async throws(FederateError) -> IssuedToken {
        var form: [(String, String)] = [("grant_type", "client_credentials")]
        if let scope = try Self.scopeParameter(scopes) { form.append(("scope", scope)) }
        for resource in resources { form.append(("resource", try Self.checkedResource(resource))) }
        if let audience {
            guard !audience.isEmpty, audience.utf8.count <= 2048 else {
                throw FederateError(.invalidConfiguration, "an audience is 1-2048 bytes")
            }
            form.append(("audience", audience))
        }
        let response = try await calls.postToTokenEndpoint(form, endpoint: tokenEndpoint)
        return IssuedToken(
            token: response.accessToken, tokenType: response.tokenType, issuedTokenType: nil,
            expiresAt: response.expiresIn.map { clock.now.addingTimeInterval($0) }, scopes: response.scopes ?? scopes,
            refreshToken: response.refreshToken, response: response.members)
    }

    /// Exchanges a token (RFC 8693 §2): the answer must carry a non-empty `issued_token_type`,
    /// and is then read by the rule of every token answer (`TokenResponse`): a non-empty
    /// `access_token`, `token_type` Bearer or DPoP (`N_A` only for a token that is not an
    /// access token), `expires_in` a number (or numeric string) from 0 to 2^53 when present;
    /// else `invalid_token_response`.
    public func exchange(_ request: TokenExchangeRequest) async throws(FederateError) -> IssuedToken {
        let body = try await calls.postForTokens(try request.form(), endpoint: tokenEndpoint)
        let members: [String: JSONValue]
        do {
            members = try JSONParser().parseObject(body)
        } catch {
            throw FederateError(.invalidTokenResponse, "the token exchange answer is not a JSON object")
        }
        guard case .string(let issuedType)? = members["issued_token_type"], !issuedType.isEmpty else {
            throw FederateError(.invalidTokenResponse, "the token exchange answer has no issued_token_type (RFC 8693 §2.2.1)")
        }
        let response = try TokenResponse(
            members: members, allowingNotApplicableType: !issuedType.utf8.elementsEqual(TokenExchangeRequest.TokenType.accessToken.utf8))
        try calls.checkBinding(response.tokenType)
        return IssuedToken(
            token: response.accessToken, tokenType: response.tokenType, issuedTokenType: issuedType,
            expiresAt: response.expiresIn.map { clock.now.addingTimeInterval($0) }, scopes: response.scopes ?? request.scopes,
            refreshToken: response.refreshToken, response: members)
    }

    /// `scope`: the scopes joined with spaces, each 1-256 printable ASCII characters without
    /// a space, `"` or `\` (RFC 6749 §3.3); `nil` when there are none.
    static func scopeParameter(_ scopes: [String]) throws(FederateError) -> String? {
        guard !scopes.isEmpty else { return nil }
        for scope in scopes {
            guard (1...256).contains(scope.utf8.count),
                scope.utf8.allSatisfy({ $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) })
            else {
                throw FederateError(
                    .invalidConfiguration, "a scope is 1-256 printable ASCII characters without spaces, '\"' or '\\' (RFC 6749 §3.3)")
            }
        }
        return scopes.joined(separator: " ")
    }

    /// An RFC 8707 resource: an absolute URI without a fragment, at most 2048 bytes.
    static func checkedResource(_ resource: String) throws(FederateError) -> String {
        guard resource.utf8.count <= 2048, let components = URLComponents(string: resource), components.scheme != nil,
            components.fragment == nil,
            !resource.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F })
        else {
            throw FederateError(.invalidConfiguration, "a resource is an absolute URI without a fragment (RFC 8707)")
        }
        return resource
    }
}
