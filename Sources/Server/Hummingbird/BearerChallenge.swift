public import Federate
public import Hummingbird

/// An API request refused with an RFC 6750 §3 challenge: `WWW-Authenticate: SCHEME
/// error="…"` for each scheme the API takes, with `scope="…"` on `insufficient_scope`, and
/// the JSON body every Federate error has.
///
/// | failure | status | `error` |
/// | --- | --- | --- |
/// | no `Authorization` header, or another scheme | 401 | none: the bare challenge (RFC 6750 §3.1) |
/// | a malformed header (two headers, not token68) | 400 | `invalid_request` |
/// | a token that fails verification, inactive, or bound to a key without its proof | 401 | `invalid_token` |
/// | a token without a route's scopes | 403 | `insufficient_scope` |
/// | the introspection endpoint failing | 503 | none (the token's validity is unknown) |
/// | the account store failing (a DPoP replay check) | 503, `Retry-After` | none |
public struct BearerChallenge: HTTPResponseError {
    /// The RFC 6750 error.
    public let oauthError: String?
    /// The Federate error, answered as the JSON body.
    public let error: FederateError
    /// The status.
    public let status: HTTPResponse.Status
    /// The schemes challenged, with their parameters.
    let presentations: [any TokenPresentation]
    /// The scopes a route requires (`insufficient_scope`).
    let scope: OAuthScopes?
    /// The scheme the request used, when it got that far: only its challenge carries `error`.
    let scheme: String?
    /// Fields of the scheme's own (DPoP: `DPoP-Nonce`).
    let fields: HTTPFields

    /// A refusal.
    init(
        status: HTTPResponse.Status, oauthError: String?, error: FederateError, presentations: [any TokenPresentation],
        scope: OAuthScopes? = nil, scheme: String? = nil, fields: HTTPFields = [:]
    ) {
        self.status = status
        self.oauthError = oauthError
        self.error = error
        self.presentations = presentations
        self.scope = scope
        self.scheme = scheme
        self.fields = fields
    }

    /// The `WWW-Authenticate` values, one per scheme.
    var challenges: [String] {
        presentations.map { presentation in
            var parameters = presentation.challengeParameters
            if scheme == nil || scheme == presentation.scheme {
                if let oauthError { parameters.append(("error", oauthError)) }
                if let scope, !scope.isEmpty { parameters.append(("scope", scope.description)) }
            }
            let rendered = parameters.map { "\($0.name)=\"\(Self.quoted($0.value))\"" }.joined(separator: ", ")
            return rendered.isEmpty ? presentation.scheme : presentation.scheme + " " + rendered
        }
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var fields = self.fields
        fields[values: .wwwAuthenticate] = challenges
        return ErrorResponse.json(status, error, headers: fields)
    }

    /// A quoted-string's content: only RFC 6750's `%x20-21 / %x23-5B / %x5D-7E`.
    static func quoted(_ value: String) -> String {
        String(String.UnicodeScalarView(value.unicodeScalars.filter { scalar in
            let v = scalar.value
            return v == 0x20 || v == 0x21 || (0x23...0x5B).contains(v) || (0x5D...0x7E).contains(v)
        }))
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
