// A fourth provider in under 100 lines: Microsoft Entra ID for one tenant, plugged into
// Federate through the same protocols as Google and Apple (Docs/Architecture.md). The full
// provider is FederateMicrosoft's MicrosoftProvider.
public import FederateAccounts
import FederateOIDC
public import FederateRelyingParty
public import FederateTokens

/// What Entra adds to OpenID Connect: advice for its most common refusals.
public struct EntraTenantProfile: OpenIDProviderProfile {
    /// Creates the profile.
    public init() {}

    public func explain(_ error: FederateError) -> FederateError {
        switch error.code {
        case .invalidClient:
            return error.withGuidance("check the client secret under Certificates & secrets in the app registration; secrets expire")
        case .invalidGrant:
            return error.withGuidance(
                "the code or refresh token expired or was revoked (AADSTS70008, AADSTS700082): sign the user in again")
        default:
            return error
        }
    }
}

/// Sign in with Microsoft Entra ID, one tenant, provider ID `microsoft.com`: discovery at
/// `https://login.microsoftonline.com/{tenant}/v2.0`, the code flow with PKCE, and the ID
/// tokens of the tenant's apps as bearer tokens.
public struct EntraTenantProvider: SignInProvider, BearerTokenSource {
    /// The provider ID credentials carry.
    public static let providerID = "microsoft.com"
    private let oidc: OIDCProvider

    /// Creates the provider for `tenant` (its ID or domain). `issuer` replaces Entra's for a
    /// stand-in (tests, the dev provider).
    public init(tenant: String, clientID: String, clientSecret: String?, issuer: String? = nil, cache: ProviderCache) throws(FederateError)
    {
        oidc = try OIDCProvider(
            id: "oidc.microsoft", issuer: issuer ?? "https://login.microsoftonline.com/\(tenant)/v2.0", clientID: clientID,
            clientSecret: clientSecret, profile: EntraTenantProfile(), cache: cache)
    }

    public var providerID: String { Self.providerID }

    public var capabilities: ProviderCapabilities { ProviderCapabilities(bearerTokens: self) }

    public func beginSignIn(_ request: SignInRequest) async throws(FederateError) -> BuiltAuthorizationRequest {
        try await oidc.client().authorizationRequest(
            providerID: Self.providerID, redirectURI: request.redirectURI, loginHint: request.loginHint, intent: request.intent)
    }

    public func completeSignIn(_ callback: AuthorizationResponse, pending: PendingAuthorization) async throws(FederateError) -> Credential {
        let signIn = try await oidc.client().finish(callback, pending: pending)
        return Credential(providerID: Self.providerID, signIn: signIn, rawNonce: pending.nonce)
    }

    public func revoke(_ tokens: ProviderTokens) async throws(FederateError) {
        // Entra has no RFC 7009 endpoint: a user's tokens are revoked by an administrator.
    }

    public func bearerVerifier() -> any TokenVerifier { BearerVerifier(oidc: oidc) }

    /// The tenant's ID tokens, verified as a sign-in's, with the discovery and keys of the
    /// provider's cache.
    struct BearerVerifier: TokenVerifier {
        let oidc: OIDCProvider

        nonisolated(nonsending) func verify(_ token: String) async throws(FederateError) -> VerifiedToken {
            VerifiedToken(idToken: try await oidc.client().idTokenVerifier.verify(token), providerID: EntraTenantProvider.providerID)
        }
    }
}
