public import FederateTokens

/// How an authorization request reaches the provider: in the redirect URL, pushed to the
/// provider first (PAR, RFC 9126), and optionally as a signed request object (JAR, RFC 9101).
///
/// ```swift
/// let built = try await client.authorizationRequest(
///     providerID: "oidc.example", redirectURI: callback, delivery: .pushed)
/// ```
public struct AuthorizationDelivery: Sendable {
    /// When to push the request.
    public enum Push: Sendable, Hashable {
        /// Push when discovery says `require_pushed_authorization_requests`, else put the
        /// parameters in the redirect URL.
        case whenRequired
        /// Always push; the provider must advertise `pushed_authorization_request_endpoint`.
        case always
    }

    /// When to push.
    package var push: Push
    /// Sign the parameters into a request object (JAR); `nil` sends them as plain parameters.
    package var requestObject: RequestObjectSigning?
    /// Whether a pushed request's redirect also repeats `response_type`, `scope` and
    /// `redirect_uri` next to `client_id` and `request_uri`, for providers that check the
    /// redirect as a complete OpenID Connect request before they resolve `request_uri`
    /// (idpy-oidc 5 does). Default `false`: RFC 9126 §4's redirect, `client_id` and
    /// `request_uri` only.
    package var repeatsRequiredParameters: Bool

    /// Creates a delivery.
    public init(push: Push = .whenRequired, requestObject: RequestObjectSigning? = nil, repeatsRequiredParameters: Bool = false) {
        self.push = push
        self.requestObject = requestObject
        self.repeatsRequiredParameters = repeatsRequiredParameters
    }

    /// Plain parameters, pushed only when the provider requires it.
    package static let automatic = AuthorizationDelivery()
    /// Always pushed.
    public static let pushed = AuthorizationDelivery(push: .always)
}

/// How request objects (RFC 9101) are signed: with the client's key, the same one its
/// `private_key_jwt` assertions use (or, with an HMAC key, the client secret).
public struct RequestObjectSigning: Sendable, CustomStringConvertible {
    /// The signing key.
    package let key: JWSSigningKey
    /// The algorithm (RS256, ES256, PS256, EdDSA, or HS256 with the client secret).
    package let algorithm: JWSAlgorithm
    /// How long a request object is valid (`exp` − `iat`). Default 60 seconds; at most 10 minutes.
    package let lifetime: Duration

    /// Creates a signing configuration. `invalid_configuration` when `key` cannot sign
    /// `algorithm`, or `lifetime` is not from 1 second to 10 minutes.
    public init(key: JWSSigningKey, algorithm: JWSAlgorithm, lifetime: Duration = .seconds(60)) throws(FederateError) {
        guard key.supports(algorithm) else {
            throw FederateError(.invalidConfiguration, "the request-object key cannot sign \(algorithm.rawValue)")
        }
        guard lifetime >= .seconds(1), lifetime <= .seconds(600) else {
            throw FederateError(.invalidConfiguration, "a request object lives from 1 second to 10 minutes")
        }
        self.key = key
        self.algorithm = algorithm
        self.lifetime = lifetime
    }

    /// Signs with the client's `private_key_jwt` key, or with its secret for `client_secret_*`
    /// (HS256); `nil` for a public client, which has nothing to sign with.
    public static func matching(_ authentication: ClientAuthentication) -> RequestObjectSigning? {
        switch authentication {
        case .privateKeyJWT(let key, let algorithm):
            return try? RequestObjectSigning(key: key, algorithm: algorithm)
        case .clientSecretBasic(let secret), .clientSecretPost(let secret), .clientSecretJWT(let secret):
            return try? RequestObjectSigning(key: JWSSigningKey(hmac: HMACSecret(utf8: secret)), algorithm: .hs256)
        case .none:
            return nil
        }
    }

    /// Redacted.
    public var description: String { "RequestObjectSigning(\(algorithm.rawValue), key redacted)" }
}
