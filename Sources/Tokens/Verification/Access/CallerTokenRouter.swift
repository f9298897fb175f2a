/// Sends each token to the verifier of its kind, so one API accepts ID tokens, JWT access
/// tokens and introspected tokens side by side, and no token is checked by another kind's rules:
///
/// - a JWS whose header `typ` is `at+jwt` (or `application/at+jwt`) goes to `accessTokens`,
///   else to `introspection`;
/// - any other JWS (an ID token: `typ` absent or `JWT`) goes to `idTokens`, else to `introspection`;
/// - anything else (an opaque token, an encrypted JWT) goes to `introspection`.
///
/// A token no configured verifier takes is ``FederateError/Code/tokenTypeMismatch``. The
/// header is read once, to route; Federate's own verifiers continue from that read, so the
/// token is still parsed once, and check everything, `typ` included.
public struct CallerTokenRouter: TokenVerifier {
    /// ID tokens (a provider's `bearerVerifier()`, an ``IDTokenBearerVerifier``), or `nil` to refuse them.
    package let idTokens: (any TokenVerifier)?
    /// JWT access tokens (an ``AccessTokenVerifier``), or `nil` to refuse them.
    package let accessTokens: (any TokenVerifier)?
    /// Introspection (`IntrospectionClient`), or `nil` to refuse opaque tokens.
    package let introspection: (any TokenVerifier)?
    /// ``idTokens`` when it continues from the router's read, found once here; `nil` when it
    /// cannot (it then verifies the token whole).
    private let idTokensContinuing: DirectTokenVerifier?
    /// ``accessTokens`` when it continues from the router's read, found once here; `nil` when
    /// it cannot.
    private let accessTokensContinuing: DirectTokenVerifier?
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
        self.idTokensContinuing = DirectTokenVerifier(continuingFromHeaderRead: idTokens)
        self.accessTokensContinuing = DirectTokenVerifier(continuingFromHeaderRead: accessTokens)
    }

    public nonisolated(nonsending) func verify(_ token: String) async throws(FederateError) -> VerifiedToken {
        var token = token
        token.makeContiguousUTF8()
        let read = Self.readHeader(token, headers: headers)
        let (verifier, continuing): ((any TokenVerifier)?, DirectTokenVerifier?)
        switch Self.shape(of: read) {
        case .accessToken: (verifier, continuing) = (accessTokens, accessTokensContinuing)
        case .otherJWS: (verifier, continuing) = (idTokens, idTokensContinuing)
        case .opaque: (verifier, continuing) = (nil, nil)
        }
        guard let verifier, let read else {
            guard let introspection else { throw Self.noVerifier }
            return try await introspection.verify(token)
        }
        guard let continuing else { return try await verifier.verify(token) }
        let caller = try await continuing.verify(token, read: read)
        if !read.remembered, case .success(let header) = read.header {
            token.utf8.withContiguousStorageIfAvailable {
                headers.remember(UnsafeBufferPointer(rebasing: $0[..<read.segments.firstDot]), header)
            }
        }
        return caller
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

/// A ``TokenVerifier`` of Federate's own that continues from a header the
/// ``CallerTokenRouter`` read, so a routed token is parsed once.
package protocol JWSTokenVerifier: TokenVerifier {
    /// Verifies `token`, whose segments and header `read` holds.
    nonisolated(nonsending) func verify(_ token: String, read: CompactJWS.HeaderRead) async throws(FederateError) -> VerifiedToken
}
