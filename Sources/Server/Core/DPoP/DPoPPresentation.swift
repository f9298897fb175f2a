public import Federate
package import HTTPTypes

extension HTTPField.Name {
    // Both names are valid field names: the initializer never fails, the fallback is never taken.
    /// `DPoP`: the proof header (RFC 9449 §4.1).
    package static let dpop = Self("DPoP") ?? .authorization
    /// `DPoP-Nonce`: a server's nonce (RFC 9449 §8, §9).
    package static let dpopNonce = Self("DPoP-Nonce") ?? .cacheControl
}

/// DPoP-bound access tokens (RFC 9449 §7): `Authorization: DPoP ACCESS_TOKEN` with exactly one
/// `DPoP` proof header, for ``CallerAuthenticator`` (and the middleware of FederateHummingbird and FederateVapor).
///
/// Once the authenticator's verifier accepted the token, the proof must verify (the validator)
/// for this request's method and URI, carry the token's hash (`ath`), be signed by the key the
/// token is bound to (`cnf.jkt`), be used once (the validator's replay store, shared by all
/// instances) and, when the validator requires nonces, carry a current one. The proof is kept
/// in `VerifiedToken.dpopProof`.
///
/// ```swift
/// let dpop = try DPoPPresentation(
///     validator: DPoPProofValidator(replayStore: store), origin: "https://api.example.com")
/// let api = CallerAuthenticator(verifier: accessTokens, presentations: [BearerPresentation(), dpop])
/// ```
///
/// The request's URI is the origin (the server's public scheme, host and port, as clients
/// address it: never the `Host` header) plus the request's path. Refusals name `DPoP` with
/// `algs` and `error` `invalid_token` (the token fails), `invalid_dpop_proof` (no proof,
/// several, or one that fails, is replayed or is bound to another key) or `use_dpop_nonce`;
/// every response carries the current `DPoP-Nonce` when nonces are on, so clients follow its
/// rotation.
public struct DPoPPresentation: TokenPresentation, PresentationScheme {
    /// Checks the proofs.
    package let validator: DPoPProofValidator
    /// `scheme://host[:port]` clients address this server at.
    package let origin: String

    /// Creates the presentation. `invalid_configuration` when `origin` is not an absolute
    /// `http` or `https` URI without path, query or user information.
    public init(validator: DPoPProofValidator, origin: String) throws(FederateError) {
        // Normalized, an origin is `scheme://host[:port]/`: three slashes, the last one at the end.
        guard !origin.contains("?"), !origin.contains("#"), let normalized = HTTPTargetURI(origin),
            normalized.normalized.hasSuffix("/"), normalized.normalized.filter({ $0 == "/" }).count == 3
        else {
            throw FederateError(.invalidConfiguration, "the DPoP origin must be scheme://host[:port], as clients address the server")
        }
        self.validator = validator
        self.origin = String(normalized.normalized.dropLast())
    }

    package var scheme: String { "DPoP" }

    /// The proof algorithms taken, as the protected resource metadata lists them (`dpopSigningAlgValuesSupported`).
    public var signingAlgorithms: [String] { validator.algorithmsParameter.split(separator: " ").map(String.init) }

    var challengeParameters: [(name: String, value: String)] { [("algs", validator.algorithmsParameter)] }

    package nonisolated(nonsending) func confirm(
        _ caller: VerifiedToken, token: String, request: ServerRequest
    ) async throws(FederateError) -> VerifiedToken {
        let thumbprint = try caller.binding.check(presentedWith: .dpop)
        let proofs = request.headers[values: .dpop]
        guard proofs.count <= 1 else { throw FederateError(.invalidDPoPProof, "the request has more than one DPoP header") }
        let proof = try await validator.validate(
            proof: proofs.first, method: request.method.rawValue, uri: origin + request.path, accessToken: token, boundTo: thumbprint)
        return caller.confirmed(by: proof)
    }

    /// `use_dpop_nonce` for a missing or stale nonce, `invalid_token` for a token bound in a
    /// way no proof can satisfy (`token_binding_mismatch`), else `invalid_dpop_proof`.
    package func oauthError(forRefused error: FederateError) -> String {
        switch error.code {
        case .useDPoPNonce: return "use_dpop_nonce"
        case .tokenBindingMismatch: return "invalid_token"
        default: return "invalid_dpop_proof"
        }
    }

    package func responseFields() -> HTTPFields {
        guard let nonce = validator.currentNonce() else { return [:] }
        return [.dpopNonce: nonce]
    }
}
