import Federate
import Foundation
import Hummingbird

/// The dev provider's endpoints, laid out as its flavour's real provider lays them out.
struct DevRoutes: Sendable {
    let configuration: DevProviderConfiguration
    let state: DevProviderState

    var flavor: DevFlavor { configuration.flavor }
    var issuer: String { state.issuer.withLock { $0 } }
    /// The server's root URL (`http://127.0.0.1:PORT`).
    var baseURL: String { state.baseURL.withLock { $0 } }
    var endpoints: DevEndpoints { DevEndpoints(flavor: flavor, projectID: configuration.projectID) }
    var minter: DevTokenMinter { DevTokenMinter(issuer: issuer, flavor: flavor, configuration: configuration, state: state) }

    func register(on router: Router<BasicRequestContext>) {
        let endpoints = self.endpoints
        if flavor == .github { return registerGitHub(on: router) }
        if flavor == .microsoft {
            registerMicrosoftDiscovery(on: router)
        } else {
            router.get(RouterPath(endpoints.discovery)) { _, _ in self.json(self.discovery()) }
        }
        router.get(RouterPath(endpoints.jwks)) { _, _ in
            self.keys(self.state.jwks(includeEC: self.flavor == .generic))
        }
        if let certificates = endpoints.certificates {
            router.get(RouterPath(certificates)) { _, _ in self.keys(self.state.certificateMap()) }
        }
        if flavor == .firebase { registerFirebaseSessionCookieKeys(on: router) }
        if let risc = endpoints.riscConfiguration {
            router.get(RouterPath(risc)) { _, _ in
                self.json([
                    "issuer": .string(self.issuer + "/"), "jwks_uri": .string(self.baseURL + endpoints.jwks),
                    "delivery_methods_supported": ["https://schemas.openid.net/secevent/risc/delivery-method/push"],
                ])
            }
        }
        router.get(RouterPath(endpoints.authorize)) { request, _ in await self.authorize(query: request.uri.query ?? "") }
        router.post(RouterPath(endpoints.authorize)) { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024)
            return await self.authorize(query: String(buffer: body))
        }
        router.post(RouterPath(endpoints.token)) { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024)
            return try await self.token(
                form: String(buffer: body), authorization: request.headers[.authorization], dpop: request.headers[values: .dpop])
        }
        if let userinfo = endpoints.userinfo {
            router.get(RouterPath(userinfo)) { request, _ in await self.userinfo(request) }
            router.post(RouterPath(userinfo)) { request, _ in await self.userinfo(request) }
        }
        router.post(RouterPath(endpoints.revoke)) { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024)
            return await self.revoke(
                form: String(buffer: body), query: request.uri.query ?? "", authorization: request.headers[.authorization])
        }
        if let endSession = endpoints.endSession {
            router.get(RouterPath(endSession)) { request, _ in await self.logout(query: request.uri.query ?? "") }
        }
        registerClientFlows(on: router)
        if flavor == .generic {
            router.post(RouterPath(Self.introspectionPath)) { request, _ in
                var request = request
                let body = try await request.collectBody(upTo: 64 * 1024)
                return await self.introspect(form: String(buffer: body), authorization: request.headers[.authorization])
            }
        }
    }

    func discovery() -> JSONValue {
        let endpoints = self.endpoints
        var document: [String: JSONValue] = [
            "issuer": .string(issuer), "authorization_endpoint": .string(baseURL + endpoints.authorize),
            "token_endpoint": .string(baseURL + endpoints.token), "jwks_uri": .string(baseURL + endpoints.jwks),
            "revocation_endpoint": .string(baseURL + endpoints.revoke),
            "response_types_supported": ["code"], "response_modes_supported": ["query", "fragment", "form_post"],
            "subject_types_supported": flavor == .apple ? ["pairwise"] : ["public"],
            "id_token_signing_alg_values_supported": flavor == .generic ? ["RS256", "ES256"] : ["RS256"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "dpop_signing_alg_values_supported": ["ES256", "ES384", "ES512", "RS256", "PS256", "EdDSA"],
        ]
        if let userinfo = endpoints.userinfo { document["userinfo_endpoint"] = .string(baseURL + userinfo) }
        if let endSession = endpoints.endSession { document["end_session_endpoint"] = .string(baseURL + endSession) }
        switch flavor {
        case .apple:
            document["scopes_supported"] = ["openid", "email", "name"]
            document["token_endpoint_auth_methods_supported"] = ["client_secret_post"]
            document["revocation_endpoint_auth_methods_supported"] = ["client_secret_post"]
            document["claims_supported"] = [
                "aud", "email", "email_verified", "exp", "iat", "is_private_email", "iss", "nonce", "nonce_supported", "sub",
            ]
        case .google:
            document["scopes_supported"] = ["openid", "email", "profile"]
            document["token_endpoint_auth_methods_supported"] = ["client_secret_post", "client_secret_basic"]
            document["revocation_endpoint_auth_methods_supported"] = ["none"]
            document["claims_supported"] = [
                "aud", "email", "email_verified", "exp", "family_name", "given_name", "hd", "iat", "iss", "name", "picture", "sub",
            ]
            document["authorization_response_iss_parameter_supported"] = true
        case .microsoft:
            addMicrosoftMetadata(to: &document)
        case .generic, .firebase, .github:
            document["scopes_supported"] = ["openid", "email", "profile"]
            document["token_endpoint_auth_methods_supported"] = ["client_secret_basic", "client_secret_post", "private_key_jwt", "none"]
            document["token_endpoint_auth_signing_alg_values_supported"] = ["RS256", "ES256", "PS256", "EdDSA"]
            document["revocation_endpoint_auth_methods_supported"] = [
                "client_secret_basic", "client_secret_post", "private_key_jwt", "none",
            ]
            document["revocation_endpoint_auth_signing_alg_values_supported"] = ["RS256", "ES256", "PS256", "EdDSA"]
            document["claims_supported"] = ["sub", "email", "email_verified", "name", "sid"]
            document["introspection_endpoint"] = .string(baseURL + Self.introspectionPath)
            document["introspection_endpoint_auth_methods_supported"] = ["client_secret_basic", "client_secret_post", "private_key_jwt"]
            document["backchannel_logout_supported"] = true
            document["backchannel_logout_session_supported"] = true
            document["authorization_response_iss_parameter_supported"] = true
        }
        advertiseClientFlows(in: &document)
        return .object(document)
    }

    /// A key set or certificate map, cached as configured.
    func keys(_ body: [UInt8]) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/json", .cacheControl: "public, max-age=\(configuration.keysMaxAge.wholeSeconds)"],
            body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: JSONSerializer.bytes(value))))
    }

    func oauthError(_ code: String, _ description: String, status: HTTPResponse.Status = .badRequest) -> Response {
        json(["error": .string(code), "error_description": .string(description)], status: status)
    }

    func client(_ id: String?) -> DevClient? {
        guard let id else { return nil }
        return configuration.clients.first { $0.id.exactlyEquals(id) }
    }

    func user(_ subject: String?) -> DevUser? {
        guard let subject else { return nil }
        return configuration.users.first { $0.subject.exactlyEquals(subject) || $0.email.exactlyEquals(subject) }
    }
}
