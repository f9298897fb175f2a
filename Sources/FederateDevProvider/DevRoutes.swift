import Federate
import Foundation
import Hummingbird

/// The dev provider's endpoints.
struct DevRoutes: Sendable {
    let configuration: DevProviderConfiguration
    let state: DevProviderState

    var issuer: String { state.issuer.withLock { $0 } }
    var minter: DevTokenMinter { DevTokenMinter(issuer: issuer, state: state, lifetime: configuration.tokenLifetime) }

    func register(on router: Router<BasicRequestContext>) {
        router.get(".well-known/openid-configuration") { _, _ in self.json(self.discovery()) }
        router.get("jwks") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "max-age=300"],
                     body: .init(byteBuffer: ByteBuffer(bytes: self.state.jwks())))
        }
        router.get("authorize") { request, _ in self.authorize(query: request.uri.query ?? "") }
        router.post("authorize") { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024)
            return self.authorize(query: String(buffer: body))
        }
        router.post("token") { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024)
            return try await self.token(form: String(buffer: body), authorization: request.headers[.authorization])
        }
        router.get("userinfo") { request, _ in self.userinfo(authorization: request.headers[.authorization]) }
        router.post("userinfo") { request, _ in self.userinfo(authorization: request.headers[.authorization]) }
        router.post("revoke") { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024)
            return self.revoke(form: String(buffer: body), authorization: request.headers[.authorization])
        }
        router.get("logout") { request, _ in self.logout(query: request.uri.query ?? "") }
    }

    func discovery() -> JSONValue {
        [
            "issuer": .string(issuer), "authorization_endpoint": .string(issuer + "/authorize"),
            "token_endpoint": .string(issuer + "/token"), "userinfo_endpoint": .string(issuer + "/userinfo"),
            "jwks_uri": .string(issuer + "/jwks"), "revocation_endpoint": .string(issuer + "/revoke"),
            "end_session_endpoint": .string(issuer + "/logout"),
            "response_types_supported": ["code"], "response_modes_supported": ["query", "fragment", "form_post"],
            "subject_types_supported": ["public"], "id_token_signing_alg_values_supported": ["RS256", "ES256"],
            "scopes_supported": ["openid", "email", "profile"], "grant_types_supported": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "code_challenge_methods_supported": ["S256"], "claims_supported": ["sub", "email", "email_verified", "name"],
            "authorization_response_iss_parameter_supported": true,
        ]
    }

    func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                 body: .init(byteBuffer: ByteBuffer(bytes: JSONSerializer.bytes(value))))
    }

    func oauthError(_ code: String, _ description: String, status: HTTPResponse.Status = .badRequest) -> Response {
        json(["error": .string(code), "error_description": .string(description)], status: status)
    }

    func client(_ id: String?) -> DevClient? {
        configuration.clients.first { $0.id == id }
    }

    func user(_ subject: String?) -> DevUser? {
        configuration.users.first { $0.subject == subject || $0.email == subject }
    }
}
