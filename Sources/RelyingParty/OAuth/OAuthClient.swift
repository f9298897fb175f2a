package import FederateTokens
import Foundation
package import Logging

/// A relying party for one client at an OAuth 2.0 authorization server that issues no ID
/// token (GitHub, Discord, an internal OAuth server): the authorization-code flow with PKCE
/// (S256) and `state` always, the token exchange, the provider's user endpoint, revocation.
///
/// Without an ID token nothing is signed: who the user is comes from the user endpoint,
/// called with the access token over HTTPS (or loopback HTTP) only, its answer bounded and
/// strictly parsed (`userResource(at:accessToken:tokenType:)`). The provider modules
/// (`FederateOAuth2`, `FederateGitHub`) turn that answer into a credential.
///
/// ```swift
/// let metadata = try await AuthorizationServerDiscovery(httpClient: http).metadata(for: "https://auth.example")
/// let client = OAuthClient(metadata: metadata, clientID: "app", authentication: .clientSecretBasic(secret: secret), httpClient: http)
/// let built = try client.authorizationRequest(providerID: "oauth2.example", redirectURI: callback, scopes: ["read"])
/// // … at the callback:
/// let tokens = try await client.finish(AuthorizationResponse(query: query), pending: built.pending)
/// let user = try await client.userResource(at: "https://api.example/me", accessToken: tokens.accessToken)
/// ```
package struct OAuthClient: Sendable {
    /// The authorization server.
    package let metadata: AuthorizationServerMetadata
    /// The client ID.
    package let clientID: String
    /// How the client authenticates at the token and revocation endpoints.
    package let authentication: ClientAuthentication
    /// The transport.
    package let httpClient: any HTTPClient
    /// The time flows start, expire and are checked at.
    package let clock: FederateClock
    /// Where the client's spans and metrics go.
    package let observability: Observability
    let logger: Logger

    /// The largest user-endpoint answer accepted: 256 KiB.
    static let maximumUserResourceBytes = 256 * 1024
    /// The deepest user-endpoint answer accepted (the top level counts as 1).
    static let maximumUserResourceDepth = 8

    /// Creates a client.
    package init(
        metadata: AuthorizationServerMetadata, clientID: String, authentication: ClientAuthentication, httpClient: any HTTPClient,
        clock: FederateClock = .system, logger: Logger = Logger(label: "federate.oauth"), observability: Observability = Observability()
    ) {
        self.metadata = metadata
        self.clientID = clientID
        self.authentication = authentication
        self.httpClient = httpClient
        self.clock = clock
        self.logger = logger
        self.observability = observability
    }

    var calls: AuthorizationServerCalls {
        AuthorizationServerCalls(
            issuer: metadata.issuer, destination: metadata.destination, clientID: clientID, authentication: authentication,
            httpClient: httpClient, dpop: nil, clock: clock,
            logger: logger, observability: observability, explain: { $0 })
    }

    /// Builds an authorization request: `response_type=code`, a fresh `state` and PKCE S256
    /// verifier (256 bits each), the scopes as given (no `openid`: no ID token is asked for),
    /// `login_hint` when given, and the custom parameters minus those Federate owns
    /// (``AuthorizationRequest/reservedParameters``, listed in `droppedParameters`). The
    /// pending authorization's `nonce` is empty: there is no ID token to bind it to.
    package func authorizationRequest(
        providerID: String, redirectURI: String, scopes: [String], loginHint: String? = nil, customParameters: [String: String] = [:],
        intent: AuthorizationIntent = .signIn, lifetime: Duration = .seconds(600)
    ) throws(FederateError) -> BuiltAuthorizationRequest {
        if let methods = metadata.codeChallengeMethodsSupported, !methods.contains("S256") {
            throw FederateError(.invalidConfiguration, "the authorization server does not advertise PKCE S256")
        }
        guard let redirect = URLComponents(string: redirectURI), redirect.scheme != nil, redirect.fragment == nil else {
            throw FederateError(.invalidConfiguration, "the redirect URI must be absolute and carry no fragment")
        }
        var seen = Set<String>()
        let scopeList = scopes.filter { !$0.isEmpty && seen.insert($0).inserted }
        let pkce = PKCE()
        let now = clock.now
        let pending = PendingAuthorization(
            issuer: metadata.issuer, providerID: providerID, clientID: clientID, redirectURI: redirectURI, state: SecureRandom.token(),
            nonce: "", codeVerifier: pkce.verifier, scopes: scopeList, responseMode: nil, maxAge: nil, intent: intent, createdAt: now,
            expiresAt: now.adding(lifetime))
        var parameters: [(String, String)] = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI), ("state", pending.state),
            ("code_challenge", pkce.challenge), ("code_challenge_method", pkce.method),
        ]
        if !scopeList.isEmpty { parameters.append(("scope", scopeList.joined(separator: " "))) }
        if let loginHint { parameters.append(("login_hint", loginHint)) }
        var dropped: [String] = []
        for name in customParameters.keys.sorted() {
            if AuthorizationRequest.reservedParameters.contains(name) || parameters.contains(where: { $0.0 == name }) {
                dropped.append(name)
                logger.warning("custom authorization parameter dropped: Federate owns it", metadata: ["parameter": "\(name)"])
                continue
            }
            parameters.append((name, customParameters[name] ?? ""))
        }
        let separator = metadata.authorizationEndpoint.contains("?") ? "&" : "?"
        return BuiltAuthorizationRequest(
            url: metadata.authorizationEndpoint + separator + FormURLEncoding.encode(parameters), pending: pending,
            droppedParameters: dropped)
    }

    /// Validates the callback (expiry, `state` in constant time, RFC 9207 `iss` when
    /// advertised and whenever present, the provider's `error`), then exchanges the code with
    /// the PKCE verifier and the same redirect URI. Nothing is sent when the callback fails
    /// its checks. An `id_token` in the answer is ignored: the token set's ``TokenSet/idToken`` is `nil`.
    package func finish(_ response: AuthorizationResponse, pending: PendingAuthorization) async throws(FederateError) -> TokenSet {
        try await observability.span(
            "federate.callback",
            attributes: ["federate.provider": .string(pending.providerID), "federate.issuer": .string(metadata.issuer)]
        ) { () async throws(FederateError) in
            let code: String
            do throws(FederateError) {
                code = try response.validate(
                    against: pending, issuer: metadata.issuer, issParameterSupported: metadata.authorizationResponseIssParameterSupported,
                    now: clock.now)
            } catch {
                logger.notice("callback refused", metadata: ["issuer": "\(metadata.issuer)", "error": "\(error.code)"])
                throw error
            }
            guard pending.clientID == clientID else {
                throw FederateError(.invalidPendingAuthorization, "the pending authorization belongs to another client")
            }
            let tokens = try await calls.postToTokenEndpoint(
                [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", pending.redirectURI),
                    ("code_verifier", pending.codeVerifier),
                ],
                endpoint: metadata.tokenEndpoint)
            return tokenSet(tokens, requestedScopes: pending.scopes)
        }
    }

    /// A token set from a token response of this server: no ID token (none is verified here).
    func tokenSet(_ response: TokenResponse, requestedScopes: [String]) -> TokenSet {
        let granted = response.scopes ?? requestedScopes
        return TokenSet(
            accessToken: response.accessToken, tokenType: response.tokenType,
            expiresAt: response.expiresIn.map { clock.now.addingTimeInterval($0) },
            refreshToken: response.refreshToken, idToken: nil, idTokenClaims: nil, grantedScopes: granted,
            refusedScopes: requestedScopes.filter { !granted.contains($0) }, response: response.members)
    }

    /// Refreshes with `refreshToken` (RFC 6749 §6). `invalid_grant` means it is dead: sign the user in again.
    package func refresh(_ refreshToken: String, scopes: [String]? = nil) async throws(FederateError) -> TokenSet {
        var form: [(String, String)] = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let scopes { form.append(("scope", scopes.joined(separator: " "))) }
        let response = try await calls.postToTokenEndpoint(form, endpoint: metadata.tokenEndpoint)
        let tokens = tokenSet(response, requestedScopes: scopes ?? [])
        guard tokens.refreshToken == nil else { return tokens }
        return TokenSet(
            accessToken: tokens.accessToken, tokenType: tokens.tokenType, expiresAt: tokens.expiresAt, refreshToken: refreshToken,
            idToken: nil,
            idTokenClaims: nil, grantedScopes: tokens.grantedScopes, refusedScopes: tokens.refusedScopes, response: tokens.response)
    }

    /// Revokes a token at the server's `revocation_endpoint` (RFC 7009); `endpoint_not_available` without one.
    package func revoke(_ token: String, hint: String? = nil) async throws(FederateError) {
        guard let endpoint = metadata.revocationEndpoint else {
            throw FederateError(.endpointNotAvailable, "the authorization server advertises no revocation_endpoint")
        }
        var form: [(String, String)] = [("token", token)]
        if let hint { form.append(("token_type_hint", hint)) }
        let response = try await calls.postForm(form, to: endpoint)
        guard response.isSuccess else {
            throw calls.logged(AuthorizationServerCalls.errorFromResponse(response, endpoint: "revocation endpoint"), endpoint: endpoint)
        }
    }

    /// GETs a resource of the provider's API about the signed-in user (GitHub's `/user`, an
    /// OAuth server's user endpoint) with `Authorization: Bearer` (a `tokenType` other than
    /// Bearer is refused: this client has no DPoP key), and returns its JSON.
    ///
    /// The URL must pass `EndpointSecurity` under the server's ``AuthorizationServerMetadata/destination``
    /// (HTTPS, or HTTP on a loopback host of a loopback issuer; no private address for a public one); the answer
    /// must be 200, at most ``maximumUserResourceBytes`` (`response_too_large`), a JSON text
    /// nested at most ``maximumUserResourceDepth`` deep, of a JSON media type when it names
    /// one. Anything else is `invalid_user_response` (a 401 or 403: the provider's refusal,
    /// `unexpected_status`, with its OAuth error when it sent one).
    package func userResource(at url: String, accessToken: String, tokenType: String? = nil) async throws(FederateError) -> JSONValue {
        guard let resource = try await userResource(at: url, accessToken: accessToken, tokenType: tokenType, absentWhen: []) else {
            throw FederateError(.invalidUserResponse, "the user endpoint answered no resource")
        }
        return resource
    }

    /// ``userResource(at:accessToken:tokenType:)``, or `nil` when the endpoint answers one of
    /// the statuses in `absent` (a resource the token's scopes do not reach, 403 or 404). Any
    /// other status, a 500 among them, is `unexpected_status`: an outage is never taken for
    /// an answer.
    package func userResource(
        at url: String, accessToken: String, tokenType: String?, absentWhen absent: Set<Int>
    ) async throws(FederateError) -> JSONValue? {
        try EndpointSecurity.validate(url, field: "user endpoint", destination: metadata.destination)
        if let tokenType, !tokenType.caseInsensitiveEquals("Bearer") {
            throw FederateError(
                .invalidConfiguration, "the user endpoint is called with a Bearer token; this one is '\(tokenType.prefix(20))'")
        }
        return try await observability.span("federate.userinfo", attributes: ["federate.issuer": .string(metadata.issuer)]) {
            () async throws(FederateError) in
            let response = try await httpClient.exchange(
                HTTPRequest(
                    url: url, headers: [("Authorization", "Bearer " + accessToken), ("Accept", "application/json")],
                    maxResponseBytes: Self.maximumUserResourceBytes, destination: metadata.destination))
            if absent.contains(response.status) { return nil }
            guard response.status == 200 else {
                throw calls.logged(AuthorizationServerCalls.errorFromResponse(response, endpoint: "user endpoint"), endpoint: url)
            }
            if let type = response.header("Content-Type")?.lowercased(), !Self.isJSONMediaType(type) {
                throw FederateError(.invalidUserResponse, "the user endpoint answered \(String(type.prefix(60))), not JSON")
            }
            do {
                return try JSONParser(limits: .init(maxBytes: Self.maximumUserResourceBytes, maxDepth: Self.maximumUserResourceDepth))
                    .parse(response.body)
            } catch {
                throw FederateError(.invalidUserResponse, "the user endpoint's answer is not JSON within the limits (\(error))")
            }
        }
    }

    /// `application/json`, or `application/…+json`, with parameters.
    static func isJSONMediaType(_ type: String) -> Bool {
        let essence = type.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return essence == "application/json" || (essence.hasPrefix("application/") && essence.hasSuffix("+json"))
    }
}
