import Federate
import Foundation
import Hummingbird

extension DevRoutes {
    /// Whether this flavour serves pushed requests, request objects, the device grant and
    /// `client_secret_jwt` (the generic one: the real Google, Apple and Firebase do not, or not so).
    var servesClientFlows: Bool { flavor == .generic }

    /// The routes of pushed authorization requests (RFC 9126) and the device authorization
    /// grant (RFC 8628), with the device's verification page.
    func registerClientFlows(on router: Router<BasicRequestContext>) {
        guard servesClientFlows else { return }
        let endpoints = self.endpoints
        router.post(RouterPath(endpoints.pushedAuthorization)) { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024)
            return await self.pushAuthorization(form: String(buffer: body), authorization: request.headers[.authorization])
        }
        router.post(RouterPath(endpoints.deviceAuthorization)) { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024)
            return await self.startDeviceAuthorization(form: String(buffer: body), authorization: request.headers[.authorization])
        }
        router.get(RouterPath(endpoints.deviceVerification)) { request, _ in self.devicePage(query: request.uri.query ?? "") }
        router.post(RouterPath(endpoints.deviceVerification)) { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024)
            return self.answerDevice(form: String(buffer: body))
        }
    }

    /// What discovery says about them.
    func advertiseClientFlows(in document: inout [String: JSONValue]) {
        guard servesClientFlows else { return }
        let endpoints = self.endpoints
        document["pushed_authorization_request_endpoint"] = .string(baseURL + endpoints.pushedAuthorization)
        document["require_pushed_authorization_requests"] = .bool(configuration.requirePushedAuthorizationRequests)
        document["request_parameter_supported"] = true
        document["request_uri_parameter_supported"] = false
        document["request_object_signing_alg_values_supported"] = ["RS256", "ES256", "PS256", "EdDSA", "HS256"]
        document["device_authorization_endpoint"] = .string(baseURL + endpoints.deviceAuthorization)
        document["grant_types_supported"] = [
            "authorization_code", "refresh_token", .string(DevDeviceGrant.grantType), "client_credentials",
            "urn:ietf:params:oauth:grant-type:token-exchange",
        ]
        for key in ["token_endpoint_auth_methods_supported", "revocation_endpoint_auth_methods_supported"] {
            var methods = document[key]?.arrayValue ?? []
            methods.insert("client_secret_jwt", at: min(2, methods.count))
            document[key] = .array(methods)
        }
        for key in ["token_endpoint_auth_signing_alg_values_supported", "revocation_endpoint_auth_signing_alg_values_supported"] {
            document[key] = .array((document[key]?.arrayValue ?? []) + ["HS256"])
        }
    }
}
