public import Federate
public import HTTPTypes

/// An API request refused with an RFC 6750 §3 challenge: `WWW-Authenticate: SCHEME
/// error="…"` for each scheme the API takes, with `scope="…"` on `insufficient_scope` and
/// `resource_metadata="…"` (RFC 9728 §5.1) when the API publishes its metadata, and the JSON
/// body every Federate error has.
///
/// | failure | status | `error` |
/// | --- | --- | --- |
/// | no `Authorization` header, or another scheme | 401 | none: the bare challenge (RFC 6750 §3.1) |
/// | a malformed header (two headers, not token68) | 400 | `invalid_request` |
/// | a token that fails verification, inactive, or bound to a key without its proof | 401 | `invalid_token` |
/// | a token without a route's scopes | 403 | `insufficient_scope` |
/// | the introspection endpoint failing | 503 | none (the token's validity is unknown) |
/// | the provider unreachable (its discovery document or key set cannot be fetched) | 503, `Retry-After` | none |
/// | the account store failing (a DPoP replay check) | 503, `Retry-After` | none |
public struct BearerChallenge: ServerResponseError {
    /// The RFC 6750 error.
    package let oauthError: String?
    /// The Federate error, answered as the JSON body.
    public let error: FederateError
    /// The status.
    public let status: HTTPTypes.HTTPResponse.Status
    /// The schemes challenged, with their parameters.
    let presentations: [any PresentationScheme]
    /// The scopes a route requires (`insufficient_scope`).
    let scope: OAuthScopes?
    /// The scheme the request used, when it got that far: only its challenge carries `error`.
    let scheme: String?
    /// The URL of the API's RFC 9728 metadata, named in every challenge.
    let resourceMetadata: String?
    /// Fields of the scheme's own (DPoP: `DPoP-Nonce`).
    let fields: HTTPFields

    /// A refusal.
    init(
        status: HTTPTypes.HTTPResponse.Status, oauthError: String?, error: FederateError, presentations: [any PresentationScheme],
        scope: OAuthScopes? = nil, scheme: String? = nil, resourceMetadata: String? = nil, fields: HTTPFields = [:]
    ) {
        self.status = status
        self.oauthError = oauthError
        self.error = error
        self.presentations = presentations
        self.scope = scope
        self.scheme = scheme
        self.resourceMetadata = resourceMetadata
        self.fields = fields
    }

    /// The challenges, one per scheme.
    var challenges: [AuthenticationChallenge] {
        presentations.map { presentation in
            var parameters = presentation.challengeParameters.map { AuthenticationChallenge.Parameter($0.name, $0.value) }
            if scheme == nil || scheme == presentation.scheme {
                if let oauthError { parameters.append(.init("error", oauthError)) }
                if let scope, !scope.isEmpty { parameters.append(.init("scope", scope.description)) }
            }
            if let resourceMetadata { parameters.append(.init("resource_metadata", resourceMetadata)) }
            return AuthenticationChallenge(scheme: presentation.scheme, parameters: parameters)
        }
    }

    /// The JSON error with ``status``, a `WWW-Authenticate` field per challenge and the scheme's own fields.
    public var serverResponse: ServerResponse {
        var fields = self.fields
        fields[values: .wwwAuthenticate] = challenges.map(\.headerValue)
        return ErrorResponse.json(status, error, headers: fields)
    }
}

extension BearerChallenge {
    /// Throws unless `caller` was granted every one of `scopes`: 403 `insufficient_scope` naming
    /// them, or 401 `invalid_token` without a verified caller (a scope requirement mounted
    /// without the authentication before it). A route's or a tool's own requirement, once the
    /// caller is authenticated (``CallerAuthenticator``); `presentations` and `resource` are the
    /// authenticator's, so the challenge names the same schemes and metadata.
    public static func requireScopes(
        _ scopes: OAuthScopes, of caller: VerifiedToken?, presentations: [any TokenPresentation], resource: ProtectedResourceMetadata?
    ) throws(BearerChallenge) {
        let schemes = presentations.compactMap(\.presentationScheme)
        guard let caller else { throw missingCaller(schemes: schemes, resource: resource) }
        try requireScopes(scopes, of: caller, schemes: schemes, resource: resource)
    }

    /// 403 `insufficient_scope` naming `scopes` unless `caller` was granted them all.
    static func requireScopes(
        _ scopes: OAuthScopes, of caller: VerifiedToken, schemes: [any PresentationScheme], resource: ProtectedResourceMetadata?
    ) throws(BearerChallenge) {
        let missing = caller.scopes.missing(from: scopes)
        guard missing.isEmpty else {
            throw BearerChallenge(
                status: .forbidden, oauthError: "insufficient_scope",
                error: FederateError(.insufficientScope, "the token lacks the scope \(missing.joined(separator: " "))"),
                presentations: schemes, scope: scopes, resourceMetadata: resource?.metadataURL)
        }
    }

    /// 401 `invalid_token` for a request that reached a scope check without a verified caller.
    static func missingCaller(schemes: [any PresentationScheme], resource: ProtectedResourceMetadata?) -> BearerChallenge {
        BearerChallenge(
            status: .unauthorized, oauthError: "invalid_token",
            error: FederateError(.missingBearerToken, "no verified caller: add the bearer authentication before the scope check"),
            presentations: schemes, resourceMetadata: resource?.metadataURL)
    }
}

extension FederateError.Code {
    /// The request's `Authorization` header is malformed: several headers, no token, or a
    /// token outside RFC 6750's token68 syntax (answered 400 `invalid_request`).
    public static let invalidAuthorizationHeader: Self = "invalid_authorization_header"
    /// The verified token lacks a scope the route requires (answered 403 `insufficient_scope`
    /// with the required `scope`).
    public static let insufficientScope: Self = "insufficient_scope"
}
