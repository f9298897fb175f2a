import Federate
import Foundation
import Hummingbird

extension DevRoutes {
    /// Where the generic flavour introspects tokens.
    static let introspectionPath = "/introspect"

    /// `POST /introspect` (RFC 7662), generic flavour: a confidential client authenticates
    /// (Basic, `client_secret_post` or `private_key_jwt`; a public client may not introspect)
    /// and learns whether an access token it names is active. Unknown, expired, revoked and
    /// refresh tokens are `{"active": false}` and nothing else (§2.2).
    func introspect(form: String, authorization: String?) async -> Response {
        guard let parameters = try? FormURLEncoding.decode(form) else { return oauthError("invalid_request", "malformed form") }
        let credentialed = authorization != nil || parameters["client_secret"] != nil || parameters["client_assertion"] != nil
        switch await authenticate(parameters, authorization: authorization, endpoint: baseURL + Self.introspectionPath) {
        case .success where !credentialed:
            return oauthError("invalid_client", "a public client may not introspect", status: .unauthorized)
        case .success: break
        case .failure(let failure):
            var response = oauthError("invalid_client", failure.reason, status: .unauthorized)
            if failure.usedBasic { response.headers[.wwwAuthenticate] = "Basic realm=\"federate-dev-provider\"" }
            return response
        }
        guard let token = parameters["token"] else { return oauthError("invalid_request", "token missing") }
        let now = configuration.clock.now
        guard let grant = state.tokens.withLock({ $0[ExactString(token)] }), let expiresAt = grant.expiresAt, expiresAt > now else {
            return json(["active": false])
        }
        let issuedAt = expiresAt.addingTimeInterval(-configuration.tokenLifetime.inSeconds)
        var members: [String: JSONValue] = [
            "active": true, "scope": .string(grant.scopes.joined(separator: " ")), "client_id": .string(grant.clientID),
            "username": .string(grant.user.email), "token_type": "Bearer", "sub": .string(grant.user.subject), "iss": .string(issuer),
            "exp": .integer(SafeNumber.clampedInt64(expiresAt.timeIntervalSince1970)),
            "iat": .integer(SafeNumber.clampedInt64(issuedAt.timeIntervalSince1970)),
            "auth_time": .integer(SafeNumber.clampedInt64(grant.authTime.timeIntervalSince1970)),
        ]
        if let resource = grant.resource { members["aud"] = .string(resource) }
        return json(.object(members))
    }
}
