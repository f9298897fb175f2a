import Federate
import Foundation
import Hummingbird

extension DevRoutes {
    /// `grant_type=client_credentials` (RFC 6749 §4.4), generic flavour: a confidential client
    /// (any of its authentication methods but `none`) gets an access token about itself (`sub` the
    /// client), for the scopes asked and the RFC 8707 `resource` (else its `audience`, else the
    /// default resource); DPoP-bound with a proof. No refresh token, no ID token.
    func clientCredentialsToken(_ parameters: [String: String], client: DevClient, jkt: String?) throws -> Response {
        guard client.secret != nil || client.publicKeys != nil else {
            return oauthError("unauthorized_client", "a public client cannot use client_credentials")
        }
        let scopes = (parameters["scope"] ?? "").split(separator: " ").map(String.init)
        let resource = parameters["resource"] ?? parameters["audience"] ?? configuration.accessTokenResource
        return json(
            .object(
                try serviceToken(
                    for: DevUser(subject: client.id, email: "", name: client.id), client: client, scopes: scopes, resource: resource,
                    jkt: jkt)))
    }

    /// Token exchange (RFC 8693), generic flavour: `subject_token` must be an access token this
    /// provider issued and still valid, of type `…:access_token`; an `actor_token`, when sent, too
    /// (with its type). `requested_token_type` may only be `…:access_token`. The new token is for
    /// the same user, for the `resource` (else `audience`) asked; a target under
    /// `https://forbidden.example` is refused with `invalid_target`.
    func tokenExchange(_ parameters: [String: String], client: DevClient, jkt: String?) throws -> Response {
        let accessTokenType = "urn:ietf:params:oauth:token-type:access_token"
        guard let subjectToken = parameters["subject_token"], let subjectType = parameters["subject_token_type"] else {
            return oauthError("invalid_request", "subject_token and subject_token_type are required")
        }
        guard subjectType == accessTokenType else { return oauthError("invalid_request", "this provider exchanges access tokens only") }
        let now = configuration.clock.now
        func valid(_ token: String) -> DevTokenGrant? {
            state.tokens.withLock { $0[ExactString(token)] }.flatMap { grant in (grant.expiresAt.map { $0 > now } ?? false) ? grant : nil }
        }
        guard let subject = valid(subjectToken) else {
            return oauthError("invalid_grant", "the subject_token is unknown, expired or revoked")
        }
        switch (parameters["actor_token"], parameters["actor_token_type"]) {
        case (let actor?, let type?):
            guard type == accessTokenType, valid(actor) != nil else {
                return oauthError("invalid_grant", "the actor_token is unknown, expired or revoked")
            }
        case (nil, nil): break
        default: return oauthError("invalid_request", "actor_token and actor_token_type go together")
        }
        if let requested = parameters["requested_token_type"], requested != accessTokenType {
            return oauthError("invalid_request", "only access tokens are issued")
        }
        let target = parameters["resource"] ?? parameters["audience"] ?? configuration.accessTokenResource
        if target.hasPrefix("https://forbidden.example") {
            return oauthError("invalid_target", "this client may not get tokens for that target")
        }
        let scopes = parameters["scope"].map { $0.split(separator: " ").map(String.init) } ?? subject.scopes
        var body = try serviceToken(for: subject.user, client: client, scopes: scopes, resource: target, jkt: jkt)
        body["issued_token_type"] = .string(accessTokenType)
        return json(.object(body))
    }

    private func serviceToken(
        for user: DevUser, client: DevClient, scopes: [String], resource: String, jkt: String?
    ) throws -> [String: JSONValue] {
        let access = try minter.accessToken(
            for: user, client: client, scopes: scopes, resource: resource, authTime: configuration.clock.now, jkt: jkt)
        state.tokens.withLock {
            $0[ExactString(access)] = DevTokenGrant(
                clientID: client.id, user: user, scopes: scopes, authTime: configuration.clock.now,
                expiresAt: configuration.clock.now.adding(configuration.tokenLifetime), sibling: nil, resource: resource, jkt: jkt)
        }
        var body: [String: JSONValue] = [
            "access_token": .string(access), "token_type": .string(jkt == nil ? "Bearer" : "DPoP"),
            "expires_in": .integer(configuration.tokenLifetime.wholeSeconds),
        ]
        if !scopes.isEmpty { body["scope"] = .string(scopes.joined(separator: " ")) }
        return body
    }
}
