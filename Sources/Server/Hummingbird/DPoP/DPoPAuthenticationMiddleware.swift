public import Federate
public import Hummingbird

/// Requires `Authorization: DPoP ACCESS_TOKEN` with one `DPoP` proof header (RFC 9449 §7):
/// the token verified by ``accessTokens``, the proof by ``validator`` for this request's method
/// and URI, carrying the token's hash, signed by the key the token is bound to (`cnf.jkt`),
/// used once, and with a current nonce when the validator requires nonces. What it
/// establishes goes to ``FederateAuthentication/dpop``.
///
/// The request's URI is ``origin`` (the server's public scheme, host and port, as clients
/// address it: never the `Host` header) plus the request's path.
///
/// Refusals are 401 with `WWW-Authenticate: DPoP algs="ES256 ..."` and `error="invalid_token"`
/// (the token fails), `error="invalid_dpop_proof"` (no proof, several, or one that fails,
/// is replayed or is bound to another key) or `error="use_dpop_nonce"` (with a `DPoP-Nonce`),
/// and a JSON body with the Federate error code. Successful responses carry the current
/// `DPoP-Nonce` when nonces are on, so clients follow its rotation.
public struct DPoPAuthenticationMiddleware<Context: FederateRequestContext>: RouterMiddleware {
    /// Verifies the access tokens.
    public let accessTokens: DPoPAccessTokenVerifier
    /// Checks the proofs.
    public let validator: DPoPProofValidator
    /// `scheme://host[:port]` clients address this server at.
    public let origin: String

    /// Creates the middleware. `invalid_configuration` when `origin` is not an absolute
    /// `http` or `https` URI without path, query or user information.
    public init(accessTokens: DPoPAccessTokenVerifier, validator: DPoPProofValidator, origin: String) throws(FederateError) {
        // Normalized, an origin is `scheme://host[:port]/`: three slashes, the last one at the end.
        guard !origin.contains("?"), !origin.contains("#"), let normalized = HTTPTargetURI(origin),
            normalized.normalized.hasSuffix("/"), normalized.normalized.filter({ $0 == "/" }).count == 3
        else {
            throw FederateError(.invalidConfiguration, "the DPoP origin must be scheme://host[:port], as clients address the server")
        }
        self.accessTokens = accessTokens
        self.validator = validator
        self.origin = String(normalized.normalized.dropLast())
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let algorithms = validator.algorithmsParameter
        guard let token = Self.dpopToken(request.headers[.authorization]) else {
            throw DPoPChallenge.refusal(
                FederateError(.missingBearerToken, "send Authorization: DPoP ACCESS_TOKEN with a DPoP proof"), oauthError: nil,
                algorithms: algorithms, nonce: validator.currentNonce())
        }
        let claims: [String: JSONValue]
        do throws(FederateError) {
            claims = try await accessTokens.verify(token)
        } catch {
            throw DPoPChallenge.refusal(error, oauthError: "invalid_token", algorithms: algorithms, nonce: nil)
        }
        let proofs = request.headers[values: .dpop]
        let proof: DPoPProof
        do throws(FederateError) {
            guard proofs.count <= 1 else { throw FederateError(.invalidDPoPProof, "the request has more than one DPoP header") }
            proof = try await validator.validate(
                proof: proofs.first, method: request.method.rawValue, uri: origin + request.uri.path, accessToken: token,
                boundTo: try ConfirmationClaim.thumbprint(in: claims))
        } catch {
            throw DPoPChallenge.refusal(
                error, oauthError: DPoPChallenge.oauthError(forProof: error), algorithms: algorithms, nonce: validator.currentNonce())
        }
        var context = context
        context.federate.dpop = DPoPAuthentication(claims: claims, proof: proof)
        var response = try await next(request, context)
        if let nonce = validator.currentNonce() { response.headers[.dpopNonce] = nonce }
        return response
    }

    /// The token of an `Authorization: DPoP TOKEN` header (the scheme is case-insensitive).
    static func dpopToken(_ header: String?) -> String? {
        guard let header, header.utf8.count > 5, header.prefix(5).lowercased() == "dpop " else { return nil }
        let token = header.dropFirst(5).drop { $0 == " " }
        return token.isEmpty ? nil : String(token)
    }
}
