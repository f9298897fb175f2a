/// `aud` — a string, or a non-empty array of strings — contains one of the accepted
/// audiences, byte for byte.
///
/// Absent: ``FederateError/Code/missingClaim`` when ``required``, else the rule passes.
/// Another shape or a non-string entry: ``FederateError/Code/invalidClaim`` (never silently
/// dropped). No accepted entry: ``FederateError/Code/audienceMismatch``.
package struct AudienceRule: TimeIndependentClaimRule {
    /// The accepted audiences (client IDs, a resource identifier, an endpoint).
    package let accepted: IdentifierSet
    /// Whether `aud` must be present.
    package let required: Bool

    /// Creates the rule.
    package init(_ accepted: IdentifierSet, required: Bool = true) {
        self.accepted = accepted
        self.required = required
    }

    package func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        guard let audiences = try token.audienceMatch(accepted.contains(bytes:)) else {
            guard !required else { throw FederateError(.missingClaim, "required claim 'aud' is missing") }
            return
        }
        guard audiences.matched else {
            throw FederateError(.audienceMismatch, "'aud' does not contain an accepted audience")
        }
    }
}
