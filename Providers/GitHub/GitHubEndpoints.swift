import FederateRelyingParty
public import FederateTokens

/// Where GitHub is: github.com, or a GitHub Enterprise Server by its base URL.
///
/// | | github.com | GitHub Enterprise Server at `BASE` |
/// | --- | --- | --- |
/// | authorize | `https://github.com/login/oauth/authorize` | `BASE/login/oauth/authorize` |
/// | token | `https://github.com/login/oauth/access_token` | `BASE/login/oauth/access_token` |
/// | API (`/user`, `/user/emails`, `/applications/…`) | `https://api.github.com` | `BASE/api/v3` |
public struct GitHubEndpoints: Sendable, Hashable {
    /// The web host (`https://github.com`): authorization and token endpoints live under it.
    package let web: String
    /// The REST API's root (`https://api.github.com`).
    package let api: String

    /// github.com.
    public static let github = GitHubEndpoints(web: "https://github.com", api: "https://api.github.com")

    /// A GitHub Enterprise Server at `baseURL` (`https://github.example.com`; its API at
    /// `/api/v3`). Throws `insecure_endpoint` or `invalid_url` for a URL `EndpointSecurity` refuses.
    public static func enterprise(_ baseURL: String) throws(FederateError) -> GitHubEndpoints {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        try EndpointSecurity.validate(base, field: "GitHub Enterprise Server base URL")
        return GitHubEndpoints(web: base, api: base + "/api/v3")
    }

    private init(web: String, api: String) {
        self.web = web
        self.api = api
    }

    /// `/login/oauth/authorize`.
    package var authorization: String { web + "/login/oauth/authorize" }
    /// `/login/oauth/access_token`.
    package var token: String { web + "/login/oauth/access_token" }
    /// The signed-in user (`GET /user`).
    package var user: String { api + "/user" }
    /// The user's email addresses with their verification (`GET /user/emails`, scope `user:email`).
    package var emails: String { api + "/user/emails" }
    /// Revokes one token of an OAuth app (`DELETE /applications/{client_id}/token`).
    func tokenRevocation(clientID: String) -> String { api + "/applications/" + FormURLEncoding.escape(clientID) + "/token" }
}
