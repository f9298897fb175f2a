public import FederateRelyingParty
public import FederateTokens

/// What a sign-in asks of a provider (``SignInProvider/beginSignIn(_:)``): where the provider
/// sends the browser back, why the flow runs, and who is expected to sign in.
public struct SignInRequest: Sendable {
    /// The redirect URI registered with the provider.
    public let redirectURI: String
    /// Why the flow runs: sign-in, link or reauthenticate.
    public let intent: AuthorizationIntent
    /// `login_hint` for the provider (an email address or a subject identifier), sent by
    /// providers that take one (Apple takes none).
    public let loginHint: String?

    /// The longest `login_hint` accepted, in UTF-8 bytes.
    static let maximumLoginHintBytes = 256

    /// Creates a request. Throws `invalid_request` for a `loginHint` that is empty, longer than
    /// `maximumLoginHintBytes` bytes, or holds control characters or bidirectional
    /// formatting characters: it comes from the browser and is shown by the provider.
    public init(redirectURI: String, intent: AuthorizationIntent = .signIn, loginHint: String? = nil) throws(FederateError) {
        if let loginHint {
            guard (1...Self.maximumLoginHintBytes).contains(loginHint.utf8.count),
                loginHint.unicodeScalars.allSatisfy({ !Self.isForbidden($0) })
            else {
                throw FederateError(
                    .invalidRequest, "login_hint is 1-\(Self.maximumLoginHintBytes) bytes without control or bidirectional characters")
            }
        }
        self.redirectURI = redirectURI
        self.intent = intent
        self.loginHint = loginHint
    }

    private static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
