public import Federate
public import HTTPTypes

/// Requires a verified token in `Authorization`: the framework-neutral work of
/// FederateHummingbird's `BearerAuthenticationMiddleware` and FederateVapor's, written once.
///
/// Three steps, each a value of its own:
/// 1. the presentation: `Authorization: SCHEME TOKEN` read once, the scheme matched to one of
///    the presentations (``BearerPresentation`` by default; ``DPoPPresentation`` for DPoP-bound tokens);
/// 2. the verification: the verifier, any `TokenVerifier` — a provider's ID-token
///    verifier, an `AccessTokenVerifier` (RFC 9068), an `IntrospectionClient` (RFC 7662), or a
///    `CallerTokenRouter` taking several kinds;
/// 3. the binding and the scopes: the presentation confirms the token may be used on this
///    request, then the required scopes must all be granted.
///
/// Refusals are RFC 6750 §3 challenges (``BearerChallenge``): 401 with the bare challenges
/// (`Bearer`, `DPoP algs="…"`: no `error`, RFC 6750 §3.1) without a token or with another
/// scheme (code `missing_bearer_token`), 400 `invalid_request` for a malformed header, 401
/// `invalid_token` (with the verification's own code), 401 with the presentation's own error
/// when the token may not be used on this request (DPoP: `invalid_dpop_proof`,
/// `use_dpop_nonce`), 403 `insufficient_scope` with the required `scope`, and 503 when the
/// introspection endpoint fails, or with `Retry-After` when the account store cannot answer
/// (a DPoP replay check). Each `error` goes on the challenge of the scheme the request
/// used; every other scheme is still challenged, without one. With `resource`, every
/// challenge names its RFC 9728 metadata (`resource_metadata="…"`), so a client that got a 401
/// finds the authorization servers and scopes it needs.
public struct CallerAuthenticator: Sendable {
    /// Verifies the tokens.
    package let verifier: any TokenVerifier
    /// The scopes every request must have been granted (none by default).
    package let requiredScopes: OAuthScopes
    /// The schemes accepted, in the order challenges list them.
    package let presentations: [any TokenPresentation]
    /// The API's RFC 9728 metadata, named in every challenge; `nil` names none.
    package let resource: ProtectedResourceMetadata?
    /// ``presentations`` as the request path calls them (those Federate knows).
    private let schemes: [any PresentationScheme]

    /// Whether each of the schemes is a ``BearerPresentation``, confirmed by a direct call.
    private let bearerSchemes: [Bool]

    /// Creates the authenticator: `verifier` verifies the tokens of every kind the API accepts.
    public init(
        verifier: any TokenVerifier, requiredScopes: OAuthScopes = [],
        presentations: [any TokenPresentation] = [BearerPresentation()],
        resource: ProtectedResourceMetadata? = nil
    ) {
        self.verifier = verifier
        self.requiredScopes = requiredScopes
        self.presentations = presentations
        self.resource = resource
        self.schemes = presentations.compactMap(\.presentationScheme)
        self.bearerSchemes = schemes.map { $0 is BearerPresentation }
    }

    /// The caller `request` proves to be, with the fields every response to it carries, or the
    /// refusal (a ``BearerChallenge``).
    ///
    /// The header and the scheme, then the verification and the confirmation, each once, on
    /// the request's executor (`nonisolated(nonsending)`): with warm keys and a `Bearer` token
    /// nothing suspends, so the request takes no executor hop here (Docs/Performance.md, "The
    /// server"); a step that must wait (a key fetch, introspection, a DPoP replay store) simply
    /// suspends.
    public nonisolated(nonsending) func authenticate(_ request: ServerRequest) async throws(BearerChallenge) -> AuthenticatedCaller {
        let (token, index) = try presented(request)
        let presentation = schemes[index]
        let verified: VerifiedToken
        do throws(FederateError) {
            verified = try await verifier.verify(token)
        } catch {
            throw verificationRefusal(error, presentation: presentation)
        }
        let caller: VerifiedToken
        do throws(FederateError) {
            if bearerSchemes[index] {
                caller = try BearerPresentation.confirmed(verified)
            } else {
                caller = try await presentation.confirm(verified, token: token, request: request)
            }
        } catch {
            throw confirmationRefusal(error, presentation: presentation)
        }
        return try scopesChecked(caller, presentation: presentation)
    }

    /// The token in `Authorization` and the index of the presentation of its scheme.
    private func presented(_ request: ServerRequest) throws(BearerChallenge) -> (token: String, presentation: Int) {
        let credentials: AuthorizationCredentials
        switch AuthorizationCredentials.from(request.headers) {
        case .success(let found): credentials = found
        case .failure(.absent):
            // No credentials at all: the bare challenge, without an error code (RFC 6750 §3.1).
            throw challenge(.unauthorized, oauthError: nil, FederateError(.missingBearerToken, "send Authorization: Bearer TOKEN"))
        case .failure(.malformed(let reason)):
            throw challenge(.badRequest, oauthError: "invalid_request", FederateError(.invalidAuthorizationHeader, reason))
        }
        guard let presentation = schemes.firstIndex(where: { $0.scheme.caseInsensitiveEquals(String(credentials.scheme)) }) else {
            // Another scheme (`Basic`) is no credentials for this API: the bare challenge too (RFC 6750 §3.1).
            throw challenge(
                .unauthorized, oauthError: nil,
                FederateError(.missingBearerToken, "send Authorization: \(schemes.map(\.scheme).joined(separator: " or ")) TOKEN"))
        }
        return (credentials.token, presentation)
    }

    /// A token the verifier refused: 503 when introspection, the provider or the store failed
    /// (the token was not found wanting), else `invalid_token`.
    private func verificationRefusal(_ error: FederateError, presentation: any PresentationScheme) -> BearerChallenge {
        if error.code == .introspectionFailed {
            return BearerChallenge(status: .serviceUnavailable, oauthError: nil, error: error, presentations: [])
        }
        if ProviderOutage.isProviderFailure(error) {
            return BearerChallenge(
                status: .serviceUnavailable, oauthError: nil, error: error, presentations: [], fields: ProviderOutage.fields)
        }
        if StoreOutage.isStoreFailure(error) { return storeOutage(error) }
        return refusal(error, oauthError: "invalid_token", presentation: presentation)
    }

    /// A verified token the presentation refused for this request, with the scheme's own `error`;
    /// 503 when the store could not answer (a DPoP proof's replay check).
    private func confirmationRefusal(_ error: FederateError, presentation: any PresentationScheme) -> BearerChallenge {
        if StoreOutage.isStoreFailure(error) { return storeOutage(error) }
        return refusal(error, oauthError: presentation.oauthError(forRefused: error), presentation: presentation)
    }

    /// 503 with `Retry-After` and no challenge: the token was not found wanting (``StoreOutage``).
    private func storeOutage(_ error: FederateError) -> BearerChallenge {
        BearerChallenge(status: .serviceUnavailable, oauthError: nil, error: error, presentations: [], fields: StoreOutage.fields)
    }

    private func scopesChecked(
        _ caller: VerifiedToken, presentation: any PresentationScheme
    ) throws(BearerChallenge) -> AuthenticatedCaller {
        try BearerChallenge.requireScopes(requiredScopes, of: caller, schemes: schemes, resource: resource)
        return AuthenticatedCaller(caller: caller, responseFields: presentation.responseFields())
    }

    /// A challenge of every scheme, without a scheme of the request's.
    private func challenge(_ status: HTTPTypes.HTTPResponse.Status, oauthError: String?, _ error: FederateError) -> BearerChallenge {
        BearerChallenge(
            status: status, oauthError: oauthError, error: error, presentations: schemes, resourceMetadata: resource?.metadataURL)
    }

    private func refusal(_ error: FederateError, oauthError: String, presentation: any PresentationScheme) -> BearerChallenge {
        BearerChallenge(
            status: .unauthorized, oauthError: oauthError, error: error, presentations: schemes, scheme: presentation.scheme,
            resourceMetadata: resource?.metadataURL, fields: presentation.responseFields())
    }
}

/// A request's verified caller, and the fields every response to it carries (DPoP: the
/// current `DPoP-Nonce`).
public struct AuthenticatedCaller: Sendable {
    /// Who called.
    public let caller: VerifiedToken
    /// Fields to add to the response.
    public let responseFields: HTTPFields
}
