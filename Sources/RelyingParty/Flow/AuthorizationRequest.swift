import FederateTokens
import Foundation
import Logging

/// How the provider returns the authorization response.
public enum ResponseMode: String, Sendable, Hashable, CaseIterable {
    /// In the redirect's query string (the default for `response_type=code`).
    case query
    /// In the redirect's fragment (only for clients that can read it).
    case fragment
    /// As an HTML form POSTed to the redirect URI (Apple, when `name`/`email` are requested).
    case formPost = "form_post"
}

/// Why an authorization is being started: the account layer acts on it at the callback.
public enum AuthorizationIntent: String, Sendable, Hashable, CaseIterable {
    /// Sign in (or sign up).
    case signIn
    /// Link the provider to the signed-in user.
    case link
    /// Prove a fresh sign-in before a sensitive operation.
    case reauthenticate
}

/// An OpenID Connect authorization request (authorization-code flow with PKCE).
///
/// Federate always uses `response_type=code`, `S256` PKCE, and fresh `state` and `nonce`
/// of 256 bits each; `scope` always contains `openid`. Custom parameters can add
/// provider-specific values (`login_hint`, `hd`, `include_granted_scopes`, …) but never
/// set the parameters Federate owns: those are dropped, logged as a warning, and listed in
/// ``BuiltAuthorizationRequest/droppedParameters``.
struct AuthorizationRequest: Sendable {
    /// Parameters that custom parameters can never set: those Federate owns, and the step-up
    /// parameters (`max_age`, `acr_values`, `claims`), which are typed (``maxAge``,
    /// ``acrValues``, ``claims``) so that what they demand is checked on the ID token.
    static let reservedParameters: Set<String> = [
        "client_id", "response_type", "redirect_uri", "state", "scope", "response_mode", "nonce",
        "code_challenge", "code_challenge_method", "acr_values", "claims", "max_age", "resource",
    ]

    /// The provider ID the credential will carry (`google.com`, `apple.com`, `oidc.<name>`).
    var providerID: String
    /// The client ID.
    var clientID: String
    /// The redirect URI, exactly as registered with the provider.
    var redirectURI: String
    /// Requested scopes; `openid` is added when missing.
    var scopes: [String]
    /// `response_type`: only `code` is accepted (the implicit and hybrid flows are refused).
    var responseType: String
    /// `response_mode`; `nil` sends none (the provider's default, `query`, for `code`).
    var responseMode: ResponseMode?
    /// `prompt` (e.g. `login`, `consent`, `select_account`, `none`).
    var prompt: String?
    /// `login_hint` (an email address or a subject identifier).
    var loginHint: String?
    /// `max_age` (sent in whole seconds); the ID token's `auth_time` is then checked against it.
    var maxAge: Duration?
    /// `acr_values`: the authentication context classes wanted, in order of preference (OpenID
    /// Connect Core §3.1.2.1), e.g. `phrh`, `phr`. Voluntary: the provider may ignore them, so
    /// the level is what the ID token's `acr` says (kept in the session); to refuse a sign-in
    /// below it, set ``authentication``, or ask for an essential `acr` in ``claims``.
    var acrValues: [String]
    /// The `claims` parameter (OpenID Connect Core §5.5). An essential `acr` in it is checked
    /// on the returned ID token (``ClaimsRequest/requiredAuthentication``).
    var claims: ClaimsRequest?
    /// The `acr`/`amr` the returned ID token must show, or the sign-in fails with
    /// `insufficient_authentication_level`. When ``acrValues`` is empty, the requirement's
    /// accepted `acr` values (`AuthenticationRequirement.acrValues`) are sent as `acr_values`.
    /// Set this or an essential `acr` in ``claims``, not both.
    var authentication: AuthenticationRequirement?
    /// Provider-specific parameters. Reserved names are dropped.
    var customParameters: [String: String]
    /// Why the flow runs. A ``AuthorizationIntent/reauthenticate`` or
    /// ``AuthorizationIntent/link`` request asks the provider to sign the user in again,
    /// whatever its own session: it sends `prompt=login` and `max_age=0` (OpenID Connect Core
    /// §3.1.2.1) unless ``prompt`` or ``maxAge`` is set. The proof is checked when the flow
    /// ends: the ID token's `auth_time` must not be earlier than the flow's start
    /// (`AccountService/reauthenticate(_:with:authenticatedAfter:)`; for a link, before its
    /// merge ticket may absorb another account), so a provider that ignores both parameters
    /// cannot pass off an old sign-in as new.
    var intent: AuthorizationIntent
    /// How long the pending authorization stays valid. Default 10 minutes.
    var lifetime: Duration
    /// RFC 8707 resource indicators, each sent as a `resource` parameter: the APIs the access
    /// token is for (its audience). `OpenIDClient.withResources(_:)` sets them for every request.
    var resources: [String]

    /// Creates a request with the basic profile scopes.
    init(
        providerID: String, clientID: String, redirectURI: String,
        scopes: [String] = ["openid", "email", "profile"],
        responseType: String = "code", responseMode: ResponseMode? = nil,
        prompt: String? = nil, loginHint: String? = nil, maxAge: Duration? = nil,
        acrValues: [String] = [], claims: ClaimsRequest? = nil, authentication: AuthenticationRequirement? = nil,
        customParameters: [String: String] = [:], intent: AuthorizationIntent = .signIn,
        lifetime: Duration = .seconds(600), resources: [String] = []
    ) {
        self.resources = resources
        self.acrValues = acrValues
        self.claims = claims
        self.authentication = authentication
        self.providerID = providerID
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.responseType = responseType
        self.responseMode = responseMode
        self.prompt = prompt
        self.loginHint = loginHint
        self.maxAge = maxAge
        self.customParameters = customParameters
        self.intent = intent
        self.lifetime = lifetime
    }

    /// The checked parameters, in order, with fresh `state`, `nonce` and PKCE: what the authorization URL
    /// carries, and what a pushed request (RFC 9126) or a request object (RFC 9101) carries instead.
    func prepare(for metadata: ProviderMetadata, now: Date, logger: Logger) throws(FederateError) -> PreparedAuthorization {
        guard responseType == "code" else {
            throw FederateError(
                .unsupportedResponseType,
                "response_type '\(responseType.prefix(40))' is refused: Federate uses the authorization-code flow with PKCE only (the implicit flow leaks tokens)"
            )
        }
        if let methods = metadata.codeChallengeMethodsSupported, !methods.contains("S256") {
            throw FederateError(.invalidConfiguration, "the provider does not advertise PKCE S256")
        }
        if let responseMode, let modes = metadata.responseModesSupported, !modes.contains(responseMode.rawValue) {
            throw FederateError(.invalidConfiguration, "the provider does not support response_mode \(responseMode.rawValue)")
        }
        guard let redirect = URLComponents(string: redirectURI), redirect.scheme != nil, redirect.fragment == nil else {
            throw FederateError(.invalidConfiguration, "the redirect URI must be absolute and carry no fragment")
        }
        if let maxAge, maxAge < .zero { throw FederateError(.invalidConfiguration, "max_age must not be negative") }
        let required = try requiredAuthentication()
        let acrValues = try requestedACRValues(required: required)

        var scopeList = scopes.filter { !$0.isEmpty }
        if !scopeList.contains("openid") { scopeList.insert("openid", at: 0) }
        var seen = Set<String>()
        scopeList = scopeList.filter { seen.insert($0).inserted }

        let pkce = PKCE()
        let pending = PendingAuthorization(
            issuer: metadata.issuer, providerID: providerID, clientID: clientID, redirectURI: redirectURI,
            state: SecureRandom.token(), nonce: SecureRandom.token(), codeVerifier: pkce.verifier,
            scopes: scopeList, responseMode: responseMode, maxAge: maxAge, intent: intent,
            createdAt: now, expiresAt: now.adding(lifetime), acrValues: acrValues, authentication: required)

        var parameters: [(String, String)] = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI),
            ("scope", scopeList.joined(separator: " ")), ("state", pending.state), ("nonce", pending.nonce),
            ("code_challenge", pkce.challenge), ("code_challenge_method", pkce.method),
        ]
        if let responseMode { parameters.append(("response_mode", responseMode.rawValue)) }
        let reauthenticating = intent == .reauthenticate || intent == .link
        if let prompt = prompt ?? (reauthenticating ? "login" : nil) { parameters.append(("prompt", prompt)) }
        if let loginHint { parameters.append(("login_hint", loginHint)) }
        // For a reauthentication or a link, `max_age=0` is sent but not enforced as a max age on
        // the ID token: the account layer compares `auth_time` with the flow's start instead
        // (`requires_recent_login` for a reauthentication, a merge ticket that cannot absorb an
        // account for a link) when the provider did not sign the user in again.
        if let maxAge = maxAge ?? (reauthenticating ? .zero : nil) { parameters.append(("max_age", String(maxAge.wholeSeconds))) }
        if !acrValues.isEmpty { parameters.append(("acr_values", acrValues.joined(separator: " "))) }
        if let claims { parameters.append(("claims", claims.parameterValue)) }
        for resource in resources {
            try OpenIDClient.checkResource(resource)
            parameters.append(("resource", resource))
        }

        var dropped: [String] = []
        for name in customParameters.keys.sorted() {
            let alreadySet = parameters.contains { $0.0 == name }
            if Self.reservedParameters.contains(name) || alreadySet {
                dropped.append(name)
                logger.warning("custom authorization parameter dropped: Federate owns it", metadata: ["parameter": "\(name)"])
                continue
            }
            parameters.append((name, customParameters[name] ?? ""))
        }

        return PreparedAuthorization(parameters: parameters, pending: pending, dropped: dropped)
    }
}

/// An authorization request's parameters before they are delivered (in the URL, pushed, or
/// in a request object).
struct PreparedAuthorization: Sendable {
    /// The parameters, in order.
    var parameters: [(String, String)]
    /// What to keep until the callback.
    let pending: PendingAuthorization
    /// Custom parameters dropped because Federate owns them.
    let dropped: [String]

    /// The request with `parameters` (``parameters``, or those carrying a request object) in the
    /// query of `endpoint`, the provider's authorization endpoint.
    func inURL(of endpoint: String, parameters: [(String, String)]) -> BuiltAuthorizationRequest {
        let separator = endpoint.contains("?") ? "&" : "?"
        return BuiltAuthorizationRequest(
            url: endpoint + separator + FormURLEncoding.encode(parameters), pending: pending, droppedParameters: dropped)
    }
}

/// An authorization request ready to send: the result of
/// `OpenIDClient.authorizationRequest(providerID:redirectURI:...)`.
public struct BuiltAuthorizationRequest: Sendable {
    /// Where to send the browser.
    public let url: String
    /// What to keep until the callback (seal it with ``PendingAuthorizationSealer`` for a cookie).
    public package(set) var pending: PendingAuthorization
    /// Custom parameters that were dropped because Federate owns them.
    package let droppedParameters: [String]
    /// When the request was pushed (RFC 9126): its `request_uri` and when that expires; `nil`
    /// when the parameters travel in ``url`` itself.
    public internal(set) var pushed: PushedAuthorization? = nil
}

extension AuthorizationRequest {
    /// The most `acr_values` sent, and the longest one (bytes).
    static let maximumACRValues = 16

    /// What the ID token must show: ``authentication``, or the essential `acr` of ``claims``.
    func requiredAuthentication() throws(FederateError) -> AuthenticationRequirement? {
        let fromClaims = claims?.requiredAuthentication
        if authentication != nil, fromClaims != nil {
            throw FederateError(
                .invalidConfiguration, "set either the authentication requirement or an essential acr in the claims request, not both")
        }
        if let claims, claims.parameterValue.utf8.count > ClaimsRequest.maximumBytes {
            throw FederateError(.invalidConfiguration, "the claims request is larger than \(ClaimsRequest.maximumBytes) bytes")
        }
        return authentication ?? fromClaims
    }

    /// ``acrValues``, or the requirement's accepted values; each a non-empty token without spaces.
    func requestedACRValues(required: AuthenticationRequirement?) throws(FederateError) -> [String] {
        let values = acrValues.isEmpty ? (required?.acrValues ?? []) : acrValues
        guard values.count <= Self.maximumACRValues else {
            throw FederateError(.invalidConfiguration, "at most \(Self.maximumACRValues) acr_values")
        }
        for value in values {
            guard !value.isEmpty, value.utf8.count <= AuthenticationLevel.maximumValueBytes,
                value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
            else {
                throw FederateError(
                    .invalidConfiguration,
                    "an acr value is 1-\(AuthenticationLevel.maximumValueBytes) printable ASCII characters without spaces")
            }
        }
        return values
    }
}
