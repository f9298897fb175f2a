/// Where a flavour serves each endpoint, relative to the server's root: the real
/// provider's paths, so adapters configured with `AppleEndpoints.at(_:)`-style bases work.
struct DevEndpoints: Sendable {
    var discovery: String
    var authorize: String
    var token: String
    var userinfo: String?
    var jwks: String
    var revoke: String
    var endSession: String?
    /// Firebase: Google's securetoken x509 certificate map.
    var certificates: String?
    /// Google: the RISC configuration document.
    var riscConfiguration: String?

    init(flavor: DevFlavor, projectID: String) {
        switch flavor {
        case .generic:
            self.init(
                discovery: "/.well-known/openid-configuration", authorize: "/authorize", token: "/token", userinfo: "/userinfo",
                jwks: "/jwks", revoke: "/revoke", endSession: "/logout")
        case .google:
            self.init(
                discovery: "/.well-known/openid-configuration", authorize: "/o/oauth2/v2/auth", token: "/token", userinfo: "/v1/userinfo",
                jwks: "/oauth2/v3/certs", revoke: "/revoke", endSession: nil, riscConfiguration: "/.well-known/risc-configuration")
        case .apple:
            self.init(
                discovery: "/.well-known/openid-configuration", authorize: "/auth/authorize", token: "/auth/token", userinfo: nil,
                jwks: "/auth/keys", revoke: "/auth/revoke", endSession: nil)
        case .firebase:
            self.init(
                discovery: "/\(projectID)/.well-known/openid-configuration", authorize: "/authorize", token: "/token",
                userinfo: "/userinfo",
                jwks: "/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com", revoke: "/revoke", endSession: nil,
                certificates: "/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com")
        case .microsoft:
            self = Self.microsoft
        case .github:
            // GitHub Enterprise Server's layout: no discovery, no keys, no end-session endpoint.
            self.init(
                discovery: "/.well-known/openid-configuration", authorize: "/login/oauth/authorize", token: "/login/oauth/access_token",
                userinfo: "/api/v3/user", jwks: "/jwks", revoke: "/api/v3/applications/:client/token", endSession: nil)
        }
    }

    init(
        discovery: String, authorize: String, token: String, userinfo: String?, jwks: String, revoke: String, endSession: String?,
        certificates: String? = nil, riscConfiguration: String? = nil
    ) {
        self.discovery = discovery
        self.authorize = authorize
        self.token = token
        self.userinfo = userinfo
        self.jwks = jwks
        self.revoke = revoke
        self.endSession = endSession
        self.certificates = certificates
        self.riscConfiguration = riscConfiguration
    }
}
