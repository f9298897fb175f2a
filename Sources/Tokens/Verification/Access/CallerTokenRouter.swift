/// Sends each token to the verifier of its kind, so one API accepts ID tokens, JWT access
/// tokens and introspected tokens side by side, and no token is checked by another kind's rules:
///
/// - a JWS whose header `typ` is `at+jwt` (or `application/at+jwt`) goes to ``accessTokens``,
///   else to ``introspection``;
/// - any other JWS (an ID token: `typ` absent or `JWT`) goes to ``idTokens``, else to ``introspection``;
/// - anything else (an opaque token, an encrypted JWT) goes to ``introspection``.
///
/// A token no configured verifier takes is ``FederateError/Code/tokenTypeMismatch``. The
/// header is read once to route; the verifier then checks everything, `typ` included.
public struct CallerTokenRouter: CallerTokenVerifier {
    /// ID tokens (a provider's ``BearerTokenVerifier``), or `nil` to refuse them.
    public let idTokens: (any CallerTokenVerifier)?
    /// JWT access tokens (an ``AccessTokenVerifier``), or `nil` to refuse them.
    public let accessTokens: (any CallerTokenVerifier)?
    /// Introspection (`IntrospectionClient`), or `nil` to refuse opaque tokens.
    public let introspection: (any CallerTokenVerifier)?

    /// Creates a router; at least one verifier should be given.
    public init(
        idTokens: (any CallerTokenVerifier)? = nil, accessTokens: (any CallerTokenVerifier)? = nil, introspection: (any CallerTokenVerifier)? = nil
    ) {
        self.idTokens = idTokens
        self.accessTokens = accessTokens
        self.introspection = introspection
    }

    public func verifyCaller(_ token: String) async throws(FederateError) -> CallerIdentity {
        try await route(token).verifyCaller(token)
    }

    public func verifyCallerWithoutSuspending(_ token: String) throws(FederateError) -> CallerIdentity? {
        try route(token).verifyCallerWithoutSuspending(token)
    }

    /// The verifier of `token`'s kind; throws `token_type_mismatch` when none is configured.
    private func route(_ token: String) throws(FederateError) -> any CallerTokenVerifier {
        let route: (any CallerTokenVerifier)?
        switch Self.shape(of: token) {
        case .accessToken: route = accessTokens ?? introspection
        case .otherJWS: route = idTokens ?? introspection
        case .opaque: route = introspection
        }
        guard let route else {
            throw FederateError(.tokenTypeMismatch, "this API does not accept this kind of token")
        }
        return route
    }

    enum Shape { case accessToken, otherJWS, opaque }

    /// The token's shape from its header alone (no signature, no payload): at most the
    /// header segment is decoded, under the default size limits.
    static func shape(of token: String) -> Shape {
        let utf8 = token.utf8
        guard let firstDot = utf8.firstIndex(of: 0x2E) else { return .opaque }
        let rest = utf8[utf8.index(after: firstDot)...]
        guard let secondDot = rest.firstIndex(of: 0x2E), !rest[rest.index(after: secondDot)...].contains(0x2E) else { return .opaque }
        guard utf8.distance(from: utf8.startIndex, to: firstDot) <= 8 * 1024, let bytes = Base64URL.decode(Substring(utf8[..<firstDot])),
            let header = try? JSONParser(limits: .init(maxBytes: 8 * 1024, maxDepth: 8)).parseObject(bytes)
        else { return .opaque }
        guard case .string(let type)? = header["typ"] else { return .otherJWS }
        return ExplicitTypeRule.names(type, "at+jwt") ? .accessToken : .otherJWS
    }
}
