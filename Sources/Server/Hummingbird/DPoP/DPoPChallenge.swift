import Federate
public import HTTPTypes
import Hummingbird

extension HTTPField.Name {
    // Both names are valid field names: the initializer never fails, the fallback is never taken.
    /// `DPoP`: the proof header (RFC 9449 §4.1).
    public static let dpop = Self("DPoP") ?? .authorization
    /// `DPoP-Nonce`: a server's nonce (RFC 9449 §8, §9).
    public static let dpopNonce = Self("DPoP-Nonce") ?? .cacheControl
}

/// The 401 a DPoP-protected resource answers (RFC 9449 §7.1, §9): `WWW-Authenticate: DPoP`
/// with `error` (`invalid_token`, `invalid_dpop_proof`, `use_dpop_nonce`, or none when the
/// request had no credentials) and `algs`, a fresh `DPoP-Nonce` when the server uses nonces,
/// and Federate's JSON error body.
enum DPoPChallenge {
    static func refusal(_ error: FederateError, oauthError: String?, algorithms: String, nonce: String?) -> FederateHTTPError {
        var challenge = "DPoP"
        if let oauthError { challenge += " error=\"\(oauthError)\"," }
        challenge += " algs=\"\(algorithms)\""
        var headers: HTTPFields = [.wwwAuthenticate: challenge, .cacheControl: "no-store"]
        if let nonce { headers[.dpopNonce] = nonce }
        return FederateHTTPError(.unauthorized, error, headers: headers)
    }

    /// The OAuth error code for a failed proof check: `use_dpop_nonce`, or `invalid_dpop_proof`.
    static func oauthError(forProof error: FederateError) -> String {
        error.code == .useDPoPNonce ? "use_dpop_nonce" : "invalid_dpop_proof"
    }
}
