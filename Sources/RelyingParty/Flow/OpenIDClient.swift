public import FederateTokens
import Foundation
public import Logging
import Tracing

/// A relying party for one client at one OpenID provider: builds authorization requests,
/// validates callbacks, exchanges codes, refreshes, revokes and calls UserInfo.
///
/// ```swift
/// let http = AsyncHTTPClientTransport.shared   // FederateAsyncHTTPClient, or URLSessionTransport.shared
/// let metadata = try await DiscoveryClient(httpClient: http).metadata(for: issuer)
/// let client = try OpenIDClient(
///     metadata: metadata, clientID: "app", authentication: .clientSecretBasic(secret: secret), httpClient: http)
/// let built = try await client.authorizationRequest(providerID: "oidc.example", redirectURI: redirect)
/// // … redirect the browser to built.url; at the callback:
/// let signIn = try await client.finish(AuthorizationResponse(query: query), pending: built.pending)
/// let user = signIn.idToken   // verified: never absent
/// ```
public struct OpenIDClient: Sendable {
    /// The provider's validated configuration.
    public let metadata: ProviderMetadata
    /// The client ID.
    public let clientID: String
    /// How the client authenticates to the provider.
    public let authentication: ClientAuthentication
    /// How ID tokens are verified: derived once, by the profile, when the client is built.
    package let policy: IDTokenPolicy
    /// What the provider module adds to standard OpenID Connect.
    package let profile: any OpenIDProviderProfile
    /// Where verification keys come from.
    package let keys: any KeySetProvider
    /// The transport.
    package let httpClient: any HTTPClient
    /// The revocation endpoint: discovery's, else the profile's fallback.
    package let revocationEndpoint: String?
    /// The device authorization endpoint (RFC 8628): discovery's
    /// `device_authorization_endpoint`, else the profile's fallback.
    package let deviceAuthorizationEndpoint: String?
    /// The time flows start, expire and are checked at, and ID tokens verified at.
    package let clock: FederateClock
    /// Where the client's spans (`federate.authorization.start`, `federate.callback`,
    /// `federate.token_exchange`, `federate.userinfo`, `federate.id_token.verify`) and its
    /// verification metrics go.
    package let observability: Observability
    let logger: Logger

    /// This client's ID tokens, verified as its flows verify them: its `policy`, `keys`,
    /// `clock` and `observability`. For tokens obtained elsewhere (an app's own sign-in)
    /// and bearer tokens. Built once, with the client.
    public let idTokenVerifier: IDTokenVerifier

    /// The DPoP key this client proves possession of (RFC 9449), if any (``withDPoP(_:)``):
    /// then its token, refresh and UserInfo requests carry proofs, and its authorization
    /// requests `dpop_jkt`. `nil` (the default): bearer tokens only.
    package internal(set) var dpop: DPoPProofSigner?

    /// The RFC 8707 resource indicators this client asks tokens for (``withResources(_:)``):
    /// sent as `resource` on its authorization requests, code exchanges and refreshes. Empty
    /// (the default): none, and the provider picks the audience.
    package internal(set) var resources: [String] = []

    /// Creates a client. The policy comes from `profile`; keys default to a ``RemoteKeySet``
    /// at the profile's key-set location (discovery's `jwks_uri` unless the profile says otherwise).
    public init(
        metadata: ProviderMetadata, clientID: String, authentication: ClientAuthentication,
        profile: any OpenIDProviderProfile = StandardOpenIDProfile(), keys: (any KeySetProvider)? = nil, httpClient: any HTTPClient,
        clock: FederateClock = .system, logger: Logger = Logger(label: "federate.client"),
        observability: Observability = Observability()
    ) throws(FederateError) {
        self.metadata = metadata
        self.clock = clock
        self.clientID = clientID
        self.authentication = authentication
        self.profile = profile
        self.httpClient = httpClient
        if let keys {
            self.keys = keys
        } else {
            let location = profile.keySetLocation(metadata: metadata)
            self.keys = try RemoteKeySet(
                url: location.url, format: location.format, destination: metadata.destination, httpClient: httpClient, clock: clock,
                logger: logger, observability: observability)
        }
        self.observability = observability
        self.policy = profile.policy(metadata: metadata, clientID: clientID, authentication: authentication)
        self.idTokenVerifier = IDTokenVerifier(policy: policy, keys: self.keys, clock: clock, observability: observability)
        self.revocationEndpoint = metadata.revocationEndpoint ?? profile.fallbackRevocationEndpoint
        self.deviceAuthorizationEndpoint = metadata.deviceAuthorizationEndpoint ?? profile.fallbackDeviceAuthorizationEndpoint
        self.logger = logger
    }

    // MARK: Authorization

    /// Builds an authorization request for this client.
    ///
    /// `delivery` says how the parameters reach the provider. `nil` (the default): in the
    /// redirect URL, and `pushed_authorization_required` when discovery says
    /// `require_pushed_authorization_requests`. Otherwise pushed first (PAR, RFC 9126) when the
    /// provider requires it or `delivery` asks for it (``AuthorizationDelivery/pushed``), and
    /// signed into a request object (JAR, RFC 9101) when it has a ``RequestObjectSigning``;
    /// a pushed request is sent with this client's authentication, and the returned
    /// ``BuiltAuthorizationRequest/url`` carries only `client_id` and `request_uri`, its
    /// ``BuiltAuthorizationRequest/pushed`` saying when `request_uri` expires.
    ///
    /// `stepUp` asks for, and has the ID token checked for, an authentication level (`acr_values`,
    /// `max_age`, `claims`; see ``StepUpRequest``). A step-up's `maxAge` and `maxAge` are one
    /// parameter: giving both is `invalid_configuration`.
    ///
    /// Failures of pushing: `endpoint_not_available` without a `pushed_authorization_request_endpoint`;
    /// the provider's OAuth error (`invalid_request`, `invalid_client`, …) or `unexpected_status`
    /// when it refuses; `invalid_pushed_authorization_response` for an unusable answer;
    /// `request_uri_expired` when the answer had expired before the URL was built.
    public func authorizationRequest(
        providerID: String, redirectURI: String, delivery: AuthorizationDelivery? = nil, scopes: [String] = ["openid", "email", "profile"],
        responseMode: ResponseMode? = nil, prompt: String? = nil, loginHint: String? = nil, maxAge: Duration? = nil,
        customParameters: [String: String] = [:], intent: AuthorizationIntent = .signIn, stepUp: StepUpRequest? = nil
    ) async throws(FederateError) -> BuiltAuthorizationRequest {
        if maxAge != nil, stepUp?.maxAge != nil {
            throw FederateError(.invalidConfiguration, "max_age is given twice: as maxAge and as the step-up's maxAge; give one")
        }
        return try await delivered(
            request(
                providerID: providerID, redirectURI: redirectURI, scopes: scopes, responseMode: responseMode, prompt: prompt,
                loginHint: loginHint, maxAge: maxAge, customParameters: customParameters, intent: intent, stepUp: stepUp),
            delivery: delivery)
    }

    /// The request this client builds: the profile's parameters under the caller's, and
    /// `stepUp`'s `acr_values`, `max_age` and `claims`.
    func request(
        providerID: String, redirectURI: String, scopes: [String], responseMode: ResponseMode?, prompt: String?, loginHint: String?,
        maxAge: Duration?, customParameters: [String: String], intent: AuthorizationIntent, stepUp: StepUpRequest? = nil
    ) -> AuthorizationRequest {
        AuthorizationRequest(
            providerID: providerID, clientID: clientID, redirectURI: redirectURI, scopes: scopes, responseMode: responseMode,
            prompt: prompt, loginHint: loginHint, maxAge: maxAge ?? stepUp?.maxAge, acrValues: stepUp?.acrValues ?? [],
            claims: stepUp?.claims, authentication: stepUp?.authentication,
            customParameters: profile.authorizationParameters.merging(customParameters) { _, caller in caller }
                .merging(dpop.map { ["dpop_jkt": $0.thumbprint] } ?? [:]) { _, bound in bound }, intent: intent, resources: resources)
    }

    /// Validates the callback, then exchanges the code and verifies the ID token the answer
    /// must carry (`invalid_token_response` without one). Nothing is sent to the token
    /// endpoint when the callback fails its checks.
    public func finish(_ response: AuthorizationResponse, pending: PendingAuthorization) async throws(FederateError) -> OpenIDSignIn {
        try await observability.span(
            "federate.callback",
            attributes: ["federate.provider": .string(pending.providerID), "federate.issuer": .string(metadata.issuer)]
        ) { () async throws(FederateError) in
            try OpenIDSignIn(tokens: try await validateAndExchange(response, pending: pending))
        }
    }

    private func validateAndExchange(
        _ response: AuthorizationResponse, pending: PendingAuthorization
    ) async throws(FederateError) -> TokenSet {
        let code: String
        do {
            code = try response.validate(against: pending, metadata: metadata, now: clock.now)
        } catch {
            logger.notice("callback refused", metadata: ["issuer": "\(metadata.issuer)", "error": "\(error.code)"])
            throw profile.explain(error)
        }
        logger.debug("callback accepted", metadata: ["issuer": "\(metadata.issuer)", "provider": "\(pending.providerID)"])
        return try await exchange(code: code, pending: pending)
    }

    /// Exchanges an authorization code (with the PKCE verifier and the same redirect URI)
    /// and verifies the ID token (nonce, `at_hash`, `max_age`, the `acr`/`amr` requirement).
    package func exchange(code: String, pending: PendingAuthorization) async throws(FederateError) -> TokenSet {
        guard pending.clientID == clientID, pending.issuer == metadata.issuer else {
            throw FederateError(.invalidPendingAuthorization, "the pending authorization belongs to another client or issuer")
        }
        let response = try await postToTokenEndpoint(
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", pending.redirectURI),
                ("code_verifier", pending.codeVerifier),
            ] + resourceParameters)
        return try await tokenSet(
            from: response, requestedScopes: pending.scopes, previousRefreshToken: nil, idTokenRequired: true,
            expectations: IDTokenExpectations(nonce: pending.nonce, maxAge: pending.maxAge, authentication: pending.authentication))
    }

    /// Exchanges a code this client did not request itself — one a native SDK obtained (Sign
    /// in with Apple on iOS, Google Sign-In on Android) and sent to the server — with what its
    /// request used: the redirect URI (omitted when the request had none) and PKCE verifier,
    /// if any. The ID token is verified, with `nonce` when the app sent one.
    package func exchange(
        code: String, redirectURI: String?, codeVerifier: String? = nil, nonce: String? = nil, scopes: [String] = ["openid"]
    ) async throws(FederateError) -> TokenSet {
        var form: [(String, String)] = [("grant_type", "authorization_code"), ("code", code)]
        if let redirectURI { form.append(("redirect_uri", redirectURI)) }
        if let codeVerifier { form.append(("code_verifier", codeVerifier)) }
        let response = try await postToTokenEndpoint(form)
        return try await tokenSet(
            from: response, requestedScopes: scopes, previousRefreshToken: nil, idTokenRequired: true,
            expectations: IDTokenExpectations(nonce: nonce))
    }

    /// Refreshes with `refreshToken`. A new ID token must keep the original `iss` and `sub`
    /// and name this client in `aud` (OpenID Connect Core §12.2). `invalid_grant` means the
    /// refresh token is dead: sign the user in again.
    public func refresh(
        _ refreshToken: String, previousIDToken: IDToken? = nil, scopes: [String]? = nil
    ) async throws(FederateError) -> TokenSet {
        try await refresh(
            refreshToken, scopes: scopes, keeping: previousIDToken.map { (issuer: Optional($0.issuer), subject: $0.subject) })
    }

    /// Refreshes the tokens of a sign-in whose ID token named `subject` (the account layer
    /// keeps the subject, not the ID token): a new ID token must name it too.
    package func refresh(_ refreshToken: String, subject: String) async throws(FederateError) -> TokenSet {
        try await refresh(refreshToken, scopes: nil, keeping: (issuer: nil, subject: subject))
    }

    /// The refresh; a new ID token must keep `original`'s subject, and its issuer when given
    /// (a verified ID token always has this client's issuer, or one of its tenants').
    private func refresh(
        _ refreshToken: String, scopes: [String]?, keeping original: (issuer: String?, subject: String)?
    ) async throws(FederateError) -> TokenSet {
        var form: [(String, String)] = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let scopes { form.append(("scope", scopes.joined(separator: " "))) }
        form += resourceParameters
        let response: TokenResponse
        do throws(FederateError) {
            response = try await postToTokenEndpoint(form)
        } catch  where error.code == .invalidGrant {
            throw profile.explain(
                FederateError(
                    .invalidGrant,
                    "the refresh token is no longer valid: sign the user in again (\(error.providerError?.description ?? "invalid_grant"))")
            )
        }
        let tokens = try await tokenSet(
            from: response, requestedScopes: scopes ?? [], previousRefreshToken: refreshToken, idTokenRequired: false,
            expectations: IDTokenExpectations())
        if let original, let fresh = tokens.idTokenClaims {
            guard original.issuer.map(fresh.issuer.exactlyEquals) ?? true, fresh.subject.exactlyEquals(original.subject),
                fresh.audiences.contains(where: { $0.exactlyEquals(clientID) })
            else {
                throw FederateError(.refreshedIDTokenMismatch, "the refreshed ID token changed iss or sub, or lacks this client in aud")
            }
        }
        return tokens
    }

    /// Revokes a token (RFC 7009). `hint` is `access_token` or `refresh_token`.
    public func revoke(_ token: String, hint: String? = nil) async throws(FederateError) {
        guard let endpoint = revocationEndpoint else {
            throw FederateError(.endpointNotAvailable, "the provider advertises no revocation_endpoint")
        }
        try EndpointSecurity.validate(endpoint, field: "revocation_endpoint", destination: metadata.destination)
        var form: [(String, String)] = [("token", token)]
        if let hint { form.append(("token_type_hint", hint)) }
        let response = try await postForm(form, to: endpoint)
        if response.isSuccess {
            logger.debug("token revoked", metadata: ["endpoint": "\(endpoint)", "hint": "\(hint ?? "-")"])
            return
        }
        throw logged(Self.errorFromResponse(response, endpoint: "revocation endpoint"), endpoint: endpoint)
    }

    /// Calls UserInfo with `Authorization: Bearer`, or `DPoP` with a proof when this client has
    /// a DPoP key (`userInfo(accessToken:tokenType:expectedSubject:)` names the type); its
    /// `sub` must equal `expectedSubject`. Accepts JSON, or a signed JWT (`application/jwt`)
    /// verified with the provider's keys. The claims are read by exact name (`info["email"]`).
    public func userInfo(accessToken: String, expectedSubject: String) async throws(FederateError) -> JSONMembers {
        try await userInfo(accessToken: accessToken, tokenType: nil, expectedSubject: expectedSubject)
    }

    func fetchUserInfo(accessToken: String, tokenType: String?, expectedSubject: String) async throws(FederateError) -> JSONMembers {
        guard let endpoint = metadata.userinfoEndpoint else {
            throw FederateError(.endpointNotAvailable, "the provider advertises no userinfo_endpoint")
        }
        let scheme = try authorizationScheme(for: tokenType)
        let request = HTTPRequest(
            url: endpoint, headers: [("Authorization", scheme + " " + accessToken), ("Accept", "application/json, application/jwt")],
            destination: metadata.destination)
        let response: HTTPResponse
        if scheme == "DPoP" {
            response = try await exchangeWithDPoP(request, accessToken: accessToken) { $0.asksForDPoPNonce }
        } else {
            response = try await httpClient.exchange(request)
        }
        guard response.isSuccess else { throw logged(Self.errorFromResponse(response, endpoint: "userinfo endpoint"), endpoint: endpoint) }
        let claims: JSONMembers
        if response.header("Content-Type")?.lowercased().hasPrefix("application/jwt") == true {
            claims = try await signedUserInfo(String(decoding: response.body, as: UTF8.self))
        } else {
            do {
                claims = try JSONMembers(validating: response.body, limits: .document)
            } catch {
                throw FederateError(.invalidTokenResponse, "the userinfo response is not a JSON object")
            }
        }
        guard case .string(let subject)? = claims["sub"], subject.exactlyEquals(expectedSubject) else {
            throw FederateError(.userinfoSubjectMismatch, "the userinfo 'sub' differs from the ID token's")
        }
        logger.debug(
            "userinfo fetched", metadata: ["endpoint": "\(endpoint)", "claims": "\(claims.names.sorted().joined(separator: ","))"])
        return claims
    }

    /// A signed UserInfo response, through the one JWT pipeline with the signed-userinfo rules.
    private func signedUserInfo(_ token: String) async throws(FederateError) -> JSONMembers {
        let verifier = JWTVerifier(
            rules: .signedUserInfo(issuer: metadata.issuer, clientID: clientID), allowedAlgorithms: policy.allowedAlgorithms, keys: keys,
            hmacSecret: policy.hmacSecret, clockTolerance: policy.clockTolerance, clock: clock, limits: policy.limits
        ).observed(by: observability, as: .signedUserInfo)
        return try await verifier.verify(token).claims
    }

    // MARK: Token endpoint

    /// How this client calls its provider's token and revocation endpoints.
    var calls: AuthorizationServerCalls {
        AuthorizationServerCalls(
            issuer: metadata.issuer, destination: metadata.destination, clientID: clientID, authentication: authentication,
            httpClient: httpClient, dpop: dpop, clock: clock,
            logger: logger, observability: observability, explain: { [profile] in profile.explain($0) })
    }

    /// One request to the token endpoint, in a `federate.token_exchange` span (its grant type,
    /// never a form value).
    func postToTokenEndpoint(_ form: [(String, String)]) async throws(FederateError) -> TokenResponse {
        try await calls.postToTokenEndpoint(form, endpoint: metadata.tokenEndpoint)
    }

    /// POSTs `form` to `endpoint` with the client's authentication; `proving`: with a DPoP
    /// proof when the client has a key (token endpoint), retried once for a nonce.
    func postForm(_ form: [(String, String)], to endpoint: String, proving: Bool = false) async throws(FederateError) -> HTTPResponse {
        try await calls.postForm(form, to: endpoint, proving: proving)
    }

    /// Logs a provider's refusal (its code only: descriptions are the provider's free text) and returns it.
    func logged(_ error: FederateError, endpoint: String) -> FederateError {
        calls.logged(error, endpoint: endpoint)
    }

    /// An OAuth error response as a FederateError with its provider error, else an unexpected status.
    static func errorFromResponse(_ response: HTTPResponse, endpoint: String) -> FederateError {
        AuthorizationServerCalls.errorFromResponse(response, endpoint: endpoint)
    }

    func tokenSet(
        from response: TokenResponse, requestedScopes: [String], previousRefreshToken: String?, idTokenRequired: Bool,
        expectations: IDTokenExpectations
    ) async throws(FederateError) -> TokenSet {
        if response.tokenType.caseInsensitiveEquals("DPoP"), dpop == nil {
            throw FederateError(.invalidTokenResponse, "the provider issued a DPoP-bound token to a client without a DPoP key")
        }
        var idTokenClaims: IDToken?
        if let token = response.idToken {
            var expectations = expectations
            expectations.accessToken = response.accessToken
            idTokenClaims = try await idTokenVerifier.verify(token, expecting: expectations)
        } else if idTokenRequired {
            throw FederateError(.invalidTokenResponse, "the token response has no id_token although openid was requested")
        }
        // No `scope` means the requested scopes were granted (RFC 6749 §5.1).
        let granted = response.scopes ?? requestedScopes
        logger.debug(
            "tokens accepted",
            metadata: [
                "issuer": "\(metadata.issuer)", "expires_in": "\(response.expiresIn.map(SafeNumber.text) ?? "-")",
                "granted_scopes": "\(granted.joined(separator: " "))", "refresh_token": "\(response.refreshToken != nil)",
                "id_token_kid": "\(idTokenClaims?.keyID ?? "-")", "id_token_alg": "\(idTokenClaims?.algorithm.rawValue ?? "-")",
            ])
        return TokenSet(
            accessToken: response.accessToken, tokenType: response.tokenType,
            expiresAt: response.expiresIn.map { clock.now.addingTimeInterval($0) },
            refreshToken: response.refreshToken ?? previousRefreshToken, idToken: response.idToken,
            idTokenClaims: idTokenClaims, grantedScopes: granted, refusedScopes: requestedScopes.filter { !granted.contains($0) },
            response: response.members)
    }
}
