import Crypto
import Federate
import Foundation
import Hummingbird

extension DevRoutes {
    /// `POST /token`: `authorization_code` (PKCE S256 required, same `redirect_uri`) and `refresh_token`.
    func token(form: String, authorization: String?) async throws -> Response {
        guard let parameters = try? FormURLEncoding.decode(form) else { return oauthError("invalid_request", "malformed form") }
        guard let client = authenticate(parameters, authorization: authorization) else {
            return oauthError("invalid_client", "client authentication failed", status: .unauthorized)
        }
        if client.faults.contains(.serverError) { return oauthError("server_error", "injected fault", status: .internalServerError) }
        if client.faults.contains(.slowResponse) { try await Task.sleep(for: .seconds(3)) }
        if client.faults.contains(.malformedJSON) {
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{\"access_token\": ")))
        }
        switch parameters["grant_type"] {
        case "authorization_code":
            guard let code = parameters["code"], let grant = state.takeCode(code), grant.clientID == client.id else {
                return oauthError("invalid_grant", "the code is unknown, used or expired")
            }
            guard parameters["redirect_uri"] == grant.redirectURI else { return oauthError("invalid_grant", "redirect_uri differs") }
            guard let verifier = parameters["code_verifier"],
                Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8)))) == grant.codeChallenge
            else { return oauthError("invalid_grant", "PKCE verification failed") }
            return try issueTokens(client: client, user: grant.user, scopes: grant.scopes, nonce: grant.nonce, authTime: grant.authTime)
        case "refresh_token":
            guard let refresh = parameters["refresh_token"] else { return oauthError("invalid_request", "refresh_token missing") }
            let grant = state.tokens.withLock { tokens -> DevTokenGrant? in
                guard let grant = tokens[refresh], grant.clientID == client.id else { return nil }
                tokens.removeValue(forKey: refresh)  // refresh tokens rotate
                return grant
            }
            guard let grant else { return oauthError("invalid_grant", "the refresh token is unknown or revoked") }
            return try issueTokens(client: client, user: grant.user, scopes: grant.scopes, nonce: nil, authTime: grant.authTime)
        default:
            return oauthError("unsupported_grant_type", "authorization_code or refresh_token")
        }
    }

    private func issueTokens(client: DevClient, user: DevUser, scopes: [String], nonce: String?, authTime: Date) throws -> Response {
        let access = DevRandom.token(), refresh = DevRandom.token()
        let expiresAt = Date().addingTimeInterval(configuration.tokenLifetime)
        state.tokens.withLock { tokens in
            tokens[access] = DevTokenGrant(clientID: client.id, user: user, scopes: scopes, authTime: authTime, expiresAt: expiresAt, sibling: refresh)
            tokens[refresh] = DevTokenGrant(clientID: client.id, user: user, scopes: scopes, authTime: authTime, expiresAt: nil, sibling: access)
        }
        let idToken = try minter.idToken(for: user, client: client, nonce: nonce, accessToken: access, authTime: authTime, scopes: scopes)
        return json([
            "access_token": .string(access), "token_type": "Bearer", "expires_in": .integer(Int64(configuration.tokenLifetime)),
            "refresh_token": .string(refresh), "id_token": .string(idToken), "scope": .string(scopes.joined(separator: " ")),
        ])
    }

    /// Client authentication: Basic (form-encoded credentials), `client_secret_post`, or `none` for public clients.
    func authenticate(_ parameters: [String: String], authorization: String?) -> DevClient? {
        if let authorization, authorization.hasPrefix("Basic "),
            let decoded = Data(base64Encoded: String(authorization.dropFirst(6))).map({ String(decoding: $0, as: UTF8.self) }),
            let colon = decoded.firstIndex(of: ":")
        {
            let id = (try? FormURLEncoding.decode("v=" + decoded[..<colon]))?["v"]
            let secret = (try? FormURLEncoding.decode("v=" + decoded[decoded.index(after: colon)...]))?["v"]
            guard let client = client(id), let expected = client.secret, let secret, ConstantTime.equals(secret, expected) else { return nil }
            return client
        }
        guard let client = client(parameters["client_id"]) else { return nil }
        if let expected = client.secret {
            guard let secret = parameters["client_secret"], ConstantTime.equals(secret, expected) else { return nil }
        }
        return client
    }

    /// `GET/POST /userinfo` with `Authorization: Bearer`.
    func userinfo(authorization: String?) -> Response {
        guard let authorization, authorization.hasPrefix("Bearer ") else {
            return Response(status: .unauthorized, headers: [.wwwAuthenticate: "Bearer"])
        }
        let token = String(authorization.dropFirst(7))
        guard let grant = state.tokens.withLock({ $0[token] }), let expiresAt = grant.expiresAt, expiresAt > Date() else {
            return Response(status: .unauthorized, headers: [.wwwAuthenticate: "Bearer error=\"invalid_token\""])
        }
        var claims: [String: JSONValue] = ["sub": .string(grant.user.subject)]
        if grant.scopes.contains("email") {
            claims["email"] = .string(grant.user.email)
            claims["email_verified"] = .bool(grant.user.emailVerified)
        }
        if grant.scopes.contains("profile") { claims["name"] = .string(grant.user.name) }
        return json(.object(claims))
    }

    /// `POST /revoke` (RFC 7009): revoking either token of a pair revokes both.
    func revoke(form: String, authorization: String?) -> Response {
        guard let parameters = try? FormURLEncoding.decode(form) else { return oauthError("invalid_request", "malformed form") }
        guard let client = authenticate(parameters, authorization: authorization) else {
            return oauthError("invalid_client", "client authentication failed", status: .unauthorized)
        }
        if let token = parameters["token"] {
            state.tokens.withLock { tokens in
                guard let grant = tokens[token], grant.clientID == client.id else { return }
                tokens.removeValue(forKey: token)
                if let sibling = grant.sibling { tokens.removeValue(forKey: sibling) }
            }
        }
        return Response(status: .ok)
    }

    /// `GET /logout` (RP-initiated logout): back to `post_logout_redirect_uri` when it is registered.
    func logout(query: String) -> Response {
        let parameters = (try? FormURLEncoding.decode(query)) ?? [:]
        if let target = parameters["post_logout_redirect_uri"], let client = client(parameters["client_id"]), client.accepts(redirectURI: target) {
            var pairs: [(String, String)] = []
            if let state = parameters["state"] { pairs.append(("state", state)) }
            let separator = target.contains("?") ? "&" : "?"
            return Response(status: .found, headers: [.location: pairs.isEmpty ? target : target + separator + FormURLEncoding.encode(pairs)])
        }
        return page(status: .ok, title: "Signed out", body: "<p>You are signed out of the dev provider.</p>")
    }
}
