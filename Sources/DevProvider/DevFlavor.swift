/// Which real provider the dev provider imitates, quirks included (see `Docs/DevProvider.md`).
public enum DevFlavor: String, Sendable, Hashable, CaseIterable {
    /// A plain, standards-compliant OpenID provider.
    case generic
    /// Google: Google's endpoint paths, `azp` and `hd` claims, tokens with the legacy
    /// issuer spelling for clients that ask for it, granular consent, Google's error codes,
    /// revocation that cascades to the refresh token, and RISC security events.
    case google
    /// Sign in with Apple: Apple's endpoint paths, `form_post` required for the `name` and
    /// `email` scopes, the one-time `user` JSON, ES256 client-secret JWTs, string booleans
    /// in ID tokens, and server-to-server notifications.
    case apple
    /// Firebase Authentication: securetoken-style ID tokens (`iss` is the issuer base plus the
    /// project ID, `aud` the project ID, `firebase.sign_in_provider`) and the x509
    /// certificate map `{kid: PEM}` served with `Cache-Control: max-age`.
    case firebase
    /// Microsoft Entra ID: discovery at `/common/v2.0`, `/organizations/v2.0` (issuer the
    /// template `BASE/{tenantid}/v2.0`), `/consumers/v2.0` and `/TENANT/v2.0` (a tenant's own
    /// issuer); ID tokens with `tid`, `oid`, `preferred_username` and `ver` 2.0 whose `iss` is
    /// their tenant's; users in several tenants (`DevMicrosoftTenants`); no RFC 9207 `iss`,
    /// no revocation endpoint.
    case microsoft
    /// GitHub: OAuth 2.0 without ID tokens (no discovery, no keys, no `openid`) at GitHub
    /// Enterprise Server's paths (`/login/oauth/authorize`, `/login/oauth/access_token`,
    /// `/api/v3/user`, `/api/v3/user/emails`, `DELETE /api/v3/applications/{client_id}/token`),
    /// so `GitHubEndpoints.enterprise(provider.baseURL)` points at it: numeric user IDs, email
    /// lists with unverified addresses, logins a user can rename (``DevProvider/renameGitHubUser(subject:to:)``),
    /// comma-separated scopes, errors answered with HTTP 200, `prompt` ignored.
    case github
}
