/// `sub` is a non-empty string of at most ``maximumBytes`` UTF-8 bytes and, when the rule
/// has ``accepted`` subjects, one of them byte for byte (a client assertion's `sub` is the client).
///
/// Absent: ``FederateError/Code/missingClaim`` when ``required``. Empty, too long, not a
/// string or not accepted: ``FederateError/Code/invalidClaim``.
package struct SubjectRule: TimeIndependentClaimRule {
    /// The longest accepted `sub`, in UTF-8 bytes (OpenID Connect Core §2: 255 ASCII characters).
    package let maximumBytes: Int
    /// Whether `sub` must be present.
    package let required: Bool
    /// The only subjects accepted, if the rule names them.
    package let accepted: IdentifierSet?

    /// Creates the rule.
    package init(maximumBytes: Int = 255, required: Bool = true, accepted: IdentifierSet? = nil) {
        self.maximumBytes = maximumBytes
        self.required = required
        self.accepted = accepted
    }

    package func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        guard let subject = try token.claims.stringMember(.sub) else {
            guard !required else { throw FederateError(.missingClaim, "required claim 'sub' is missing") }
            return
        }
        let length = token.claims.utf8Count(subject)
        guard length > 0 else { throw FederateError(.invalidClaim, "'sub' is empty") }
        guard length <= maximumBytes else {
            throw FederateError(.invalidClaim, "'sub' exceeds \(maximumBytes) bytes")
        }
        if let accepted, !token.claims.withStringBytes(subject, accepted.contains(bytes:)) {
            throw FederateError(.invalidClaim, "'sub' is not the expected subject")
        }
    }
}
