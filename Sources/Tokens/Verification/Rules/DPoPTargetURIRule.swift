/// A DPoP proof's `htu` is the request's target URI, ignoring query and fragment, both
/// normalized (`HTTPTargetURI`, RFC 9449 §4.3, check 9).
///
/// Absent: ``FederateError/Code/missingClaim``. Another target, or one that cannot be
/// normalized: ``FederateError/Code/invalidDPoPProof``.
struct DPoPTargetURIRule: ClaimRule {
    /// The request's target, normalized.
    let target: HTTPTargetURI

    /// Creates the rule for the request URI `uri`; `nil` when `uri` cannot be normalized.
    init?(uri: String) {
        guard let target = HTTPTargetURI(uri) else { return nil }
        self.target = target
    }

    /// Creates the rule for a target normalized already.
    init(target: HTTPTargetURI) {
        self.target = target
    }

    func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        // A client that sends the normalized form (most do) is matched without re-normalizing:
        // normalization is idempotent, so byte for byte the normalized target means the same
        // target. Never `==` on `String`: a look-alike (`U+212A` for `K`) is canonically equal, not equal.
        guard let same = try token.string(.htu, satisfies: { $0.elementsEqual(target.normalized.utf8) }) else {
            throw FederateError(.missingClaim, "required claim 'htu' is missing")
        }
        if same { return }
        guard let htu = try token.string(.htu), let claimed = HTTPTargetURI(htu), claimed == target else {
            throw FederateError(.invalidDPoPProof, "the proof's 'htu' does not name this request's URI \(target.normalized.prefix(200))")
        }
    }
}
