/// The one error type Federate's core throws.
///
/// Every error carries a stable, machine-readable ``code`` (a snake_case string that
/// scripts, logs and HTTP APIs can rely on) and a human-readable ``message``. Messages
/// never contain secrets: no token, key material, client secret or authorization code.
///
/// Codes are documented in `Docs/ErrorCodes.md`. New codes may be added in minor releases;
/// existing codes never change meaning.
public struct FederateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code of the error.
    public let code: Code
    /// A human-readable explanation. Free of secrets; not stable across releases.
    public let message: String
    /// The OAuth error the provider returned, when the error came from the provider
    /// (authorization or token endpoint). Then ``code`` is the provider's `error` value.
    public let providerError: ProviderError?
    /// Typed details a layer above attaches (the account layer's `AccountErrorContext`,
    /// read through its `accountContext`).
    package var detail: (any FederateErrorDetail)?
    /// The underlying error, when this one wraps another (a transport failure, a store's
    /// driver error). Its description may hold details the ``message`` leaves out; log it
    /// at debug level only.
    public package(set) var cause: (any Error)?

    /// Creates an error with a code and a message, wrapping `cause` when there is one.
    public init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.providerError = nil
        self.cause = cause
    }

    /// Creates an error for an OAuth error response from the provider.
    package init(providerError: ProviderError) {
        self.code = Code(rawValue: providerError.code)
        self.message =
            providerError.description.map { "the provider answered \(providerError.code): \($0)" }
            ?? "the provider answered \(providerError.code)"
        self.providerError = providerError
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// Equal when the code, message, provider error and detail are; the cause is not compared.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.code == rhs.code, lhs.message == rhs.message, lhs.providerError == rhs.providerError else { return false }
        switch (lhs.detail, rhs.detail) {
        case (nil, nil): return true
        case (let left?, let right?): return left.isEqual(to: right)
        default: return false
        }
    }
}

/// Typed details that a layer attaches to a ``FederateError`` (`detail`).
/// Descriptions must be free of secrets: they may be logged.
package protocol FederateErrorDetail: Sendable, CustomStringConvertible {
    /// Whether `other` is the same detail.
    func isEqual(to other: any FederateErrorDetail) -> Bool
}

extension FederateErrorDetail where Self: Equatable {
    /// Equal when `other` is of this type and equal.
    package func isEqual(to other: any FederateErrorDetail) -> Bool { (other as? Self) == self }
}

extension FederateError {
    /// A stable error code. Provider modules may declare their own codes as static members.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
        /// The snake_case string form, e.g. `invalid_signature`.
        public let rawValue: String

        /// Creates a code from its string form.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Creates a code from a string literal.
        public init(stringLiteral value: String) { self.rawValue = value }

        public var description: String { rawValue }
    }
}

// MARK: - Token structure

extension FederateError.Code {
    /// The token is not a well-formed compact JWS / JWT.
    public static let malformedToken: Self = "malformed_token"
    /// The token exceeds the configured size limit.
    public static let tokenTooLarge: Self = "token_too_large"
    /// The header's `alg` is unknown, `none`, or not implemented.
    public static let unsupportedAlgorithm: Self = "unsupported_algorithm"
    /// The header's `alg` is a known algorithm that the verification policy does not allow.
    public static let disallowedAlgorithm: Self = "disallowed_algorithm"
    /// The header lists a `crit` extension Federate does not understand.
    public static let unsupportedCriticalHeader: Self = "unsupported_critical_header"
    /// No key in the key set has the token's `kid` (or, without a `kid`, no key fits the algorithm).
    public static let unknownKey: Self = "unknown_key"
    /// A key with the token's `kid` exists but cannot be used with the token's `alg`.
    public static let keyAlgorithmMismatch: Self = "key_algorithm_mismatch"
    /// The signature does not verify.
    public static let invalidSignature: Self = "invalid_signature"
}

// MARK: - Claims

extension FederateError.Code {
    /// `iss` is not an accepted issuer.
    public static let issuerMismatch: Self = "issuer_mismatch"
    /// `aud` does not contain an accepted client ID.
    public static let audienceMismatch: Self = "audience_mismatch"
    /// `azp` is missing where required, or is not an accepted authorized party.
    public static let azpMismatch: Self = "azp_mismatch"
    /// `exp` is in the past (beyond the clock tolerance).
    public static let tokenExpired: Self = "token_expired"
    /// `iat` is in the future (beyond the clock tolerance).
    public static let issuedInFuture: Self = "issued_in_future"
    /// `nbf` is in the future (beyond the clock tolerance).
    public static let notYetValid: Self = "not_yet_valid"
    /// A required claim is absent.
    public static let missingClaim: Self = "missing_claim"
    /// A claim is present but has the wrong type or an invalid value.
    public static let invalidClaim: Self = "invalid_claim"
    /// The `nonce` claim is missing or differs from the expected nonce.
    public static let nonceMismatch: Self = "nonce_mismatch"
    /// `at_hash` does not match the access token.
    public static let atHashMismatch: Self = "at_hash_mismatch"
    /// `c_hash` does not match the authorization code.
    public static let cHashMismatch: Self = "c_hash_mismatch"
    /// `auth_time` is older than the requested `max_age`.
    public static let authTooOld: Self = "auth_too_old"
    /// The token is of another kind than the one expected (RFC 8725 §3.11): its header `typ` names another media type (`logout+jwt`, `at+jwt` or a Federate session's `federate-session+jwt` where an ID token is expected, an ID token where a session is), or an ID token carries `events`. Checked on the header before any key is looked up.
    public static let tokenTypeMismatch: Self = "token_type_mismatch"
    /// A back-channel logout token failed a check of the Back-Channel Logout spec (missing or wrong `events`, a `nonce`, neither `sub` nor `sid`, missing `jti`).
    public static let invalidLogoutToken: Self = "invalid_logout_token"
    /// A security event token (RFC 8417, e.g. Google RISC) lacks `jti` or a non-empty `events` object.
    public static let invalidSecurityEvent: Self = "invalid_security_event"
}

// MARK: - Keys and configuration

extension FederateError.Code {
    /// A key set (JWKS or x509 map) could not be parsed at all.
    public static let invalidKeySet: Self = "invalid_key_set"
    /// A single key is unusable (bad parameters, too small, weak).
    public static let invalidKey: Self = "invalid_key"
    /// A configuration value passed by the caller is invalid.
    public static let invalidConfiguration: Self = "invalid_configuration"
    /// Signing a JWS failed inside the cryptography library (a key it cannot use).
    public static let signingFailed: Self = "signing_failed"
}

// MARK: - Provider errors

extension FederateError.Code {
    /// The provider answered the authorization request with an error; its own code is in
    /// ``FederateError/providerError`` (and, from the server routes, in the `provider_error`
    /// parameter). Used where a provider's code must not be mistaken for one of Federate's.
    public static let providerError: Self = "provider_error"
}

/// An OAuth 2.0 error response from a provider (RFC 6749 §4.1.2.1, §5.2).
public struct ProviderError: Sendable, Hashable {
    /// The `error` value, preserved as sent (restricted to printable ASCII, at most 128 characters).
    public let code: String
    /// `error_description`, if sent.
    public let description: String?
    /// `error_uri`, if sent.
    public let uri: String?

    /// Creates a provider error, sanitising what will appear in logs and messages.
    package init(code: String, description: String?, uri: String?) {
        self.code = ProviderError.sanitize(code) ?? "invalid_error_code"
        self.description = description.flatMap(ProviderError.sanitize)
        self.uri = uri.flatMap(ProviderError.sanitize)
    }

    /// Keeps printable ASCII only (RFC 6749 restricts these fields to %x20-7E), up to 128 characters.
    static func sanitize(_ text: String) -> String? {
        let printable = String(String.UnicodeScalarView(text.unicodeScalars.filter { (0x20...0x7E).contains($0.value) }).prefix(128))
        return printable.isEmpty ? nil : printable
    }
}
