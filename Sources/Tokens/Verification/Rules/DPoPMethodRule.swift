/// A DPoP proof's `htm` is the method of the request it came with (RFC 9449 §4.3, check 8),
/// compared exactly (methods are case-sensitive, RFC 9110 §9.1).
///
/// Absent: ``FederateError/Code/missingClaim``. Another method:
/// ``FederateError/Code/invalidDPoPProof``.
struct DPoPMethodRule: ClaimRule {
    /// The request's method, e.g. `POST`.
    let method: String

    /// Creates the rule.
    init(method: String) {
        self.method = method
    }

    func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        guard let matches = try token.string(.htm, satisfies: { $0.elementsEqual(method.utf8) }) else {
            throw FederateError(.missingClaim, "required claim 'htm' is missing")
        }
        guard matches else {
            let htm = (try? token.string(.htm)) ?? ""
            throw FederateError(.invalidDPoPProof, "the proof's 'htm' '\(htm.prefix(16))' is not the request's method \(method.prefix(16))")
        }
    }
}
