import Federate
import Foundation
import Hummingbird

extension DevEndpoints {
    /// Entra's v2.0 paths under an authority segment (`common`, `organizations`, `consumers`,
    /// a tenant ID); documents name the common key set. Every path starts with the segment: a
    /// static first segment (`/common/...`) would shadow the parameter in the router.
    static let microsoft = DevEndpoints(
        discovery: "/:tenant/v2.0/.well-known/openid-configuration", authorize: "/:tenant/oauth2/v2.0/authorize",
        token: "/:tenant/oauth2/v2.0/token", userinfo: "/oidc/userinfo", jwks: "/:tenant/discovery/v2.0/keys",
        revoke: "/:tenant/oauth2/v2.0/revoke", endSession: "/:tenant/oauth2/v2.0/logout")
}

extension DevRoutes {
    /// Discovery at each authority, as Entra answers it: `common` and `organizations` give the
    /// `{tenantid}` template as `issuer`, `consumers` the personal-accounts tenant's issuer, a
    /// tenant ID its own issuer; anything else is 400.
    func registerMicrosoftDiscovery(on router: Router<BasicRequestContext>) {
        router.get(RouterPath(endpoints.discovery)) { _, context in
            self.microsoftDiscovery(segment: context.parameters.get("tenant") ?? "")
        }
    }

    func microsoftDiscovery(segment: String) -> Response {
        let issuer: String
        switch segment {
        case "common", "organizations":
            issuer = self.issuer
        case "consumers":
            issuer = microsoftIssuer(tenant: DevMicrosoftTenants.personalAccountsTenantID)
        default:
            guard TenantIDFormat.guid.accepts(segment) else {
                return oauthError("invalid_tenant", "AADSTS90002: Tenant '\(segment.prefix(64))' not found.")
            }
            issuer = microsoftIssuer(tenant: segment)
        }
        guard case .object(var document) = discovery() else { return oauthError("server_error", "no document") }
        document["issuer"] = .string(issuer)
        document["authorization_endpoint"] = .string(baseURL + "/" + segment + "/oauth2/v2.0/authorize")
        document["token_endpoint"] = .string(baseURL + "/" + segment + "/oauth2/v2.0/token")
        document["end_session_endpoint"] = .string(baseURL + "/" + segment + "/oauth2/v2.0/logout")
        return json(.object(document))
    }

    /// The issuer of `tenant`'s tokens: the template with the tenant in place.
    func microsoftIssuer(tenant: String) -> String {
        baseURL + "/" + tenant + "/v2.0"
    }

    /// What Entra's documents say besides the endpoints: no revocation endpoint, no RFC 9207.
    func addMicrosoftMetadata(to document: inout [String: JSONValue]) {
        document.removeValue(forKey: "revocation_endpoint")
        document["jwks_uri"] = .string(baseURL + "/common/discovery/v2.0/keys")
        document["scopes_supported"] = ["openid", "profile", "email", "offline_access"]
        document["response_types_supported"] = ["code", "id_token", "code id_token", "id_token token"]
        document["token_endpoint_auth_methods_supported"] = ["client_secret_post", "private_key_jwt", "client_secret_basic"]
        document["claims_supported"] = [
            "sub", "iss", "cloud_instance_name", "cloud_instance_host_name", "cloud_graph_host_name", "msgraph_host", "aud", "exp", "iat",
            "auth_time", "acr", "nonce", "preferred_username", "name", "tid", "ver", "at_hash", "c_hash", "email",
        ]
        document["request_uri_parameter_supported"] = false
        document["frontchannel_logout_supported"] = true
        document["http_logout_supported"] = true
        document["tenant_region_scope"] = .null
        document["cloud_instance_name"] = "microsoftonline.com"
    }
}

extension DevTokenMinter {
    /// Entra's v2.0 ID-token claims: `iss` the user's tenant's issuer (unless the client has
    /// the wrong-issuer fault), `tid`, `oid`, `preferred_username`, `name`, `ver`, and `email`
    /// when asked for (never `email_verified`: Entra does not send it).
    func addMicrosoftClaims(to claims: inout [String: JSONValue], user: DevUser, client: DevClient, scopes: [String]) {
        let tenant = DevMicrosoftTenants.tenantID(for: user)
        if !client.faults.contains(.wrongIssuer), let base = issuer.range(of: "/" + IssuerTemplate.placeholder) {
            claims["iss"] = .string(String(issuer[..<base.lowerBound]) + "/" + tenant + "/v2.0")
        }
        claims["tid"] = .string(tenant)
        claims["oid"] = .string(DevMicrosoftTenants.objectID(for: user))
        claims["ver"] = "2.0"
        if scopes.contains("profile") {
            claims["name"] = .string(user.name)
            claims["preferred_username"] = .string(user.email)
        }
        if scopes.contains("email") { claims["email"] = .string(user.email) }
    }
}
