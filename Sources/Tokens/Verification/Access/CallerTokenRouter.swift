/// Sends each token to the verifier of its kind, so one API accepts ID tokens, JWT access
/// tokens and introspected tokens side by side, and no token is checked by another kind's rules:
///
/// - a JWS whose header `typ` is `at+jwt` (or `application/at+jwt`) goes to `accessTokens`,
///   else to `introspection`;
/// - any other JWS (an ID token: `typ` absent or `JWT`) goes to `idTokens`, else to `introspection`;
/// - anything else (an opaque token, an encrypted JWT) goes to `introspection`.
///
/// A token no configured verifier takes is ``FederateError/Code/tokenTypeMismatch``. The
/// header is read to route (headers seen before are remembered, by their exact bytes); the
/// verifier routed to checks everything again, `typ` included.
public struct CallerTokenRouter: TokenVerifier {
    /// ID tokens (a provider's `bearerVerifier()`, an ``IDTokenBearerVerifier``), or `nil` to refuse them.
    package let idTokens: (any TokenVerifier)?
    /// JWT access tokens (an ``AccessTokenVerifier``), or `nil` to refuse them.
    package let accessTokens: (any TokenVerifier)?
    /// Introspection (`IntrospectionClient`), or `nil` to refuse opaque tokens.
    package let introspection: (any TokenVerifier)?
    /// The headers of tokens routed and accepted, shared by copies of this router.
    let headers = JOSEHeaderCache()

    /// Creates a router; at least one verifier should be given.
    public init(
        idTokens: (any TokenVerifier)? = nil, accessTokens: (any TokenVerifier)? = nil,
        introspection: (any TokenVerifier)? = nil
    ) {
        self.idTokens = idTokens
        self.accessTokens = accessTokens
        self.introspection = introspection
    }

    public nonisolated(nonsending) func verify(_ token: String) async throws(FederateError) -> VerifiedToken {
        var token = token
        token.makeContiguousUTF8()
        let read = Self.readHeader(token, headers: headers)
        let verifier: (any TokenVerifier)?
        switch Self.shape(of: read) {
        case .accessToken: verifier = accessTokens
        case .otherJWS: verifier = idTokens
        case .opaque: verifier = nil
        }
        guard let verifier, let read else {
            guard let introspection else { throw Self.noVerifier }
            return try await introspection.verify(token)
        }
        let verified = try await verifier.verify(token)
        if !read.remembered, case .success(let header) = read.header {
            token.utf8.withContiguousStorageIfAvailable {
                headers.remember(UnsafeBufferPointer(rebasing: $0[..<read.segments.firstDot]), header)
            }
        }
        return verified
    }

    enum Shape { case accessToken, otherJWS, opaque }

    /// The header of `token`, read once to route it: at most 8 KiB of it, nested at most 8
    /// deep; `nil` when the token is not taken for a JWS.
    static func readHeader(_ token: String, headers: JOSEHeaderCache) -> CompactJWS.HeaderRead? {
        CompactJWS.HeaderRead(token, maxHeaderBytes: 8 * 1024, limits: .init(maxBytes: 8 * 1024, maxDepth: 8), headers: headers)
    }

    /// The kind of token, from its header alone (no signature, no payload).
    static func shape(of read: CompactJWS.HeaderRead?) -> Shape {
        guard let read else { return .opaque }
        return read.type.map { ExplicitTypeRule.names($0, "at+jwt") } == true ? .accessToken : .otherJWS
    }

    private static var noVerifier: FederateError { FederateError(.tokenTypeMismatch, "this API does not accept this kind of token") }
}
