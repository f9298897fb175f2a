import Crypto
import Federate
import Foundation
import Hummingbird

extension DevRoutes {
    /// `POST /token`: `authorization_code` (PKCE S256 required, same `redirect_uri`) and `refresh_token`.
    func token(form: String, authorization: String?, dpop proofs: [String] = []) async throws -> Response {
        guard let parameters = try? FormURLEncoding.decode(form) else { return oauthError("invalid_request", "malformed form") }
        let client: DevClient
        switch await authenticate(parameters, authorization: authorization, endpoint: baseURL + endpoints.token) {
        case .success(let authenticated): client = authenticated
        case .failure(let failure): return invalidClient(failure)
        }
        if client.faults.contains(.serverError) { return oauthError("server_error", "injected fault", status: .internalServerError) }
        if client.faults.contains(.slowResponse) { try await Task.sleep(for: .seconds(3)) }
        if client.faults.contains(.malformedJSON) {
            return Response(
                status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{\"access_token\": "))
            )
        }
        if client.faults.contains(.truncatedBody) { return truncatedResponse() }
        let requestedResource = parameters["resource"]
        if let requestedResource, !DevAccessTokens.isResource(requestedResource) {
            return oauthError("invalid_target", "resource must be an absolute URI without a fragment (RFC 8707)")
        }
        let dpop: DPoPProof?
        switch await tokenRequestProof(proofs) {
        case .absent: dpop = nil
        case .verified(let proof): dpop = proof
        case .refused(let response): return response
        }
        switch parameters["grant_type"] {
        case "authorization_code":
            guard let code = parameters["code"], let grant = state.takeCode(code), grant.clientID == client.id else {
                return oauthError("invalid_grant", "the code is unknown, used or expired")
            }
            guard parameters["redirect_uri"] == grant.redirectURI else { return oauthError("invalid_grant", "redirect_uri differs") }
            if let bound = state.dpop.takeBinding(of: code), bound != dpop?.thumbprint {
                return oauthError("invalid_dpop_proof", "the code is bound to the dpop_jkt of its authorization request")
            }
            if let challenge = grant.codeChallenge {
                guard let verifier = parameters["code_verifier"],
                    Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8)))) == challenge
                else { return oauthError("invalid_grant", "PKCE verification failed") }
            }
            return try issueTokens(
                client: client, user: grant.user, scopes: grant.scopes, nonce: grant.nonce, authTime: grant.authTime,
                resource: requestedResource ?? grant.resource, jkt: dpop?.thumbprint)
        case "refresh_token":
            guard let refresh = parameters["refresh_token"] else { return oauthError("invalid_request", "refresh_token missing") }
            // Google and Apple keep the refresh token; the generic flavour rotates it.
            let keep = flavor == .google || flavor == .apple ? refresh : nil
            let revokesFamily = client.faults.contains(.revokeFamilyOnReuse)
            state.refreshStatistics.withLock { $0.requests += 1 }
            let grant = state.tokens.withLock { tokens -> DevTokenGrant? in
                // A refresh token bound to a DPoP key needs a proof of that key (RFC 9449 §5.2).
                guard var grant = tokens[ExactString(refresh)], grant.clientID == client.id,
                    grant.jkt == nil || grant.jkt == dpop?.thumbprint
                else {
                    return nil
                }
                guard !grant.spent else {
                    // A rotated-out refresh token came back: someone holds a copy.
                    let family = grant.family
                    state.refreshStatistics.withLock { statistics in
                        statistics.reusedRefreshTokens += 1
                        if revokesFamily, family != nil { statistics.familiesRevoked += 1 }
                    }
                    if revokesFamily, let family { tokens = tokens.filter { $0.value.family != family } }
                    return nil
                }
                if keep == nil {  // rotated out: kept only to recognize a reuse
                    grant.spent = true
                    tokens[ExactString(refresh)] = grant
                }
                return grant
            }
            guard let grant else {
                return oauthError(
                    "invalid_grant", flavor == .google ? "Token has been expired or revoked." : "the refresh token is unknown or revoked")
            }
            state.refreshStatistics.withLock { $0.refreshes += 1 }
            return try issueTokens(
                client: client, user: grant.user, scopes: grant.scopes, nonce: nil, authTime: grant.authTime,
                resource: requestedResource ?? grant.resource,
                keepRefreshToken: keep, jkt: grant.jkt ?? dpop?.thumbprint, family: grant.family)
        case DevDeviceGrant.grantType:
            return try deviceToken(parameters, client: client)
        case "client_credentials" where servesClientFlows:
            return try clientCredentialsToken(parameters, client: client, jkt: dpop?.thumbprint)
        case "urn:ietf:params:oauth:grant-type:token-exchange" where servesClientFlows:
            return try tokenExchange(parameters, client: client, jkt: dpop?.thumbprint)
        default:
            return oauthError(
                "unsupported_grant_type", "authorization_code, refresh_token, device_code, client_credentials or token exchange")
        }
    }

    /// `invalid_client` with the reason: 401, with `WWW-Authenticate: Basic` when the client
    /// tried Basic (RFC 6749 §5.2); Apple answers 400.
    func invalidClient(_ failure: DevAuthenticationFailure) -> Response {
        var response = oauthError("invalid_client", failure.reason, status: flavor == .apple ? .badRequest : .unauthorized)
        if failure.usedBasic, flavor != .apple { response.headers[.wwwAuthenticate] = "Basic realm=\"federate-dev-provider\"" }
        return response
    }

    /// Issues an access token, an ID token and (unless `keepRefreshToken`) a refresh token, all
    /// of token family `family` (a new one for a sign-in).
    func issueTokens(
        client: DevClient, user: DevUser, scopes: [String], nonce: String?, authTime: Date, resource: String? = nil,
        keepRefreshToken: String? = nil,
        jkt: String? = nil, family: String? = nil
    ) throws -> Response {
        let family = family ?? DevRandom.token()
        let audience = resource ?? configuration.accessTokenResource
        let access = try minter.accessToken(for: user, client: client, scopes: scopes, resource: audience, authTime: authTime, jkt: jkt)
        let refresh = keepRefreshToken ?? DevRandom.token()
        let expiresAt = configuration.clock.now.adding(configuration.tokenLifetime)
        state.tokens.withLock { tokens in
            if let old = tokens[ExactString(refresh)]?.sibling { tokens.removeValue(forKey: ExactString(old)) }
            tokens[ExactString(access)] = DevTokenGrant(
                clientID: client.id, user: user, scopes: scopes, authTime: authTime, expiresAt: expiresAt, sibling: refresh,
                resource: audience, jkt: jkt,
                family: family)
            tokens[ExactString(refresh)] = DevTokenGrant(
                clientID: client.id, user: user, scopes: scopes, authTime: authTime, expiresAt: nil, sibling: access, resource: resource,
                jkt: jkt,
                family: family)
        }
        var body: [String: JSONValue] = [
            "access_token": .string(access), "token_type": .string(jkt == nil ? "Bearer" : "DPoP"),
            "expires_in": .integer(configuration.tokenLifetime.wholeSeconds),
        ]
        // An ID token only for OpenID Connect requests: an API's OAuth client asked for none.
        if scopes.contains("openid") {
            body["id_token"] = .string(
                try minter.idToken(for: user, client: client, nonce: nonce, accessToken: access, authTime: authTime, scopes: scopes))
        }
        if keepRefreshToken == nil { body["refresh_token"] = .string(refresh) }
        if flavor != .apple { body["scope"] = .string(scopes.joined(separator: " ")) }
        return json(.object(body))
    }

    /// Announces a full token response and closes the connection halfway through it.
    private func truncatedResponse() -> Response {
        let full = Array(#"{"access_token": "truncated", "token_type": "Bearer", "expires_in": 3600}"#.utf8)
        return Response(
            status: .ok, headers: [.contentType: "application/json", .contentLength: String(full.count)],
            body: ResponseBody { writer in
                try await writer.write(ByteBuffer(bytes: full.prefix(full.count / 2)))
                throw DevTruncation()
            })
    }

    /// `GET/POST /userinfo` with `Authorization: Bearer`, or `DPoP` and a proof for a
    /// DPoP-bound token (which is refused as a bearer token).
    func userinfo(_ request: Request) async -> Response {
        let authorization = request.headers[.authorization]
        guard let authorization, let space = authorization.firstIndex(of: " "),
            ["bearer", "dpop"].contains(authorization[..<space].lowercased())
        else {
            return Response(status: .unauthorized, headers: [.wwwAuthenticate: "Bearer"])
        }
        let scheme = authorization[..<space].lowercased()
        let token = String(authorization[authorization.index(after: space)...])
        guard let grant = state.tokens.withLock({ $0[ExactString(token)] }), let expiresAt = grant.expiresAt,
            expiresAt > configuration.clock.now,
            (grant.jkt != nil) == (scheme == "dpop")
        else {
            return Response(
                status: .unauthorized, headers: [.wwwAuthenticate: "\(scheme == "dpop" ? "DPoP" : "Bearer") error=\"invalid_token\""])
        }
        if scheme == "dpop",
            let refusal = await userinfoProof(
                token: token, grant: grant, proofs: request.headers[values: .dpop], method: request.method.rawValue,
                path: request.uri.path)
        {
            return refusal
        }
        let client = client(grant.clientID)
        let subject = client?.faults.contains(.wrongUserInfoSubject) == true ? grant.user.subject + "-other" : grant.user.subject
        var claims: [String: JSONValue] = ["sub": .string(subject)]
        if grant.scopes.contains("email") {
            claims["email"] = .string(grant.user.email)
            claims["email_verified"] = .bool(grant.user.emailVerified)
        }
        if grant.scopes.contains("profile") { claims["name"] = .string(grant.user.name) }
        return json(.object(claims))
    }

    /// `POST /revoke` (RFC 7009): revoking either token of a pair revokes both. Google takes
    /// the token without client authentication (form or query) and answers 400
    /// `invalid_token` for an unknown one; the others authenticate the client and answer 200.
    func revoke(form: String, query: String, authorization: String?) async -> Response {
        guard let parameters = try? FormURLEncoding.decode(form), let queryParameters = try? FormURLEncoding.decode(query) else {
            return oauthError("invalid_request", "malformed form")
        }
        if flavor == .google {
            guard let token = parameters["token"] ?? queryParameters["token"] else { return oauthError("invalid_request", "token missing") }
            let revoked = state.tokens.withLock { tokens -> Bool in
                guard let grant = tokens.removeValue(forKey: ExactString(token)) else { return false }
                if let sibling = grant.sibling { tokens.removeValue(forKey: ExactString(sibling)) }
                return true
            }
            return revoked ? Response(status: .ok) : oauthError("invalid_token", "Token expired or revoked")
        }
        let client: DevClient
        switch await authenticate(parameters, authorization: authorization, endpoint: baseURL + endpoints.revoke) {
        case .success(let authenticated): client = authenticated
        case .failure(let failure): return invalidClient(failure)
        }
        if let token = parameters["token"] {
            state.tokens.withLock { tokens in
                guard let grant = tokens[ExactString(token)], grant.clientID == client.id else { return }
                tokens.removeValue(forKey: ExactString(token))
                if let sibling = grant.sibling { tokens.removeValue(forKey: ExactString(sibling)) }
            }
        }
        return Response(status: .ok)
    }

    /// `GET /logout` (RP-initiated logout 1.0): an `id_token_hint`, when sent, must be one of
    /// this provider's ID tokens (its signature, `iss`, and `aud` naming `client_id` when that is
    /// sent; expired ones are taken, as §2 allows), else 400; its user's provider session
    /// ends. Without a hint no session ends (the provider cannot tell whose), as providers
    /// that insist on a hint behave. Then back to `post_logout_redirect_uri` with `state` when it
    /// is registered for the client, else a page.
    func logout(query: String) async -> Response {
        let parameters = (try? FormURLEncoding.decode(query)) ?? [:]
        var clientID = parameters["client_id"]
        if let hint = parameters["id_token_hint"] {
            var rules: [any ClaimRule] = flavor == .microsoft ? [] : [IssuerRule([issuer])]  // Entra: each tenant its own iss
            if let clientID { rules.append(AudienceRule([clientID])) }
            let verifier = JWTVerifier(
                rules: ClaimRules(rules), allowedAlgorithms: [.rs256, .es256],
                keys: (try? JSONWebKeySet(jwks: state.jwks())) ?? .empty, clock: configuration.clock)
            guard let verified = try? await verifier.verify(hint), let subject = verified.claims["sub"]?.stringValue else {
                return page(
                    status: .badRequest, title: "Invalid id_token_hint",
                    body: "<p>The id_token_hint is not an ID token of this provider for this client.</p>")
            }
            if clientID == nil { clientID = verified.claims["aud"]?.stringValue ?? verified.claims["aud"]?.arrayValue?.first?.stringValue }
            state.logouts.withLock { $0.append(DevLogout(subject: subject, clientID: clientID, state: parameters["state"])) }
            state.ssoSessions.withLock { _ = $0.removeValue(forKey: subject) }
            state.ssoSessionIDs.withLock { _ = $0.removeValue(forKey: subject) }
        }
        if let target = parameters["post_logout_redirect_uri"], let client = client(clientID), client.accepts(redirectURI: target) {
            var pairs: [(String, String)] = []
            if let state = parameters["state"] { pairs.append(("state", state)) }
            let separator = target.contains("?") ? "&" : "?"
            return Response(
                status: .found, headers: [.location: pairs.isEmpty ? target : target + separator + FormURLEncoding.encode(pairs)])
        }
        return page(status: .ok, title: "Signed out", body: "<p>You are signed out of the dev provider.</p>")
    }
}

/// Thrown mid-body to cut a response short (the `truncated_body` fault).
struct DevTruncation: Error {}
