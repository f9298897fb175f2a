/// How strongly the user must have authenticated: an ACR/AMR policy, checked on ID tokens
/// as a ``ClaimRule`` and on any ``AuthenticationLevel`` (the account layer's sessions).
///
/// A requirement is a list of `alternatives`; it is met when any one of them is. An
/// alternative names the accepted `acr` values (the token's `acr` must be one of them), the
/// `amr` values that must all be present, or both:
///
/// ```swift
/// let phishingResistant = AuthenticationRequirement.phishingResistant   // acr phr or phrh
/// let strong = AuthenticationRequirement.acr(["phrh"]).or(.amr(allOf: ["hwk", "user"]))
/// ```
///
/// Values are compared byte for byte. A `acr` or `amr` of the wrong type is
/// ``FederateError/Code/invalidClaim``; an authentication that meets no alternative (its
/// `acr` absent or not accepted, a required method missing) is
/// ``FederateError/Code/insufficientAuthenticationLevel``. A requirement with no alternative
/// (`unrestricted`) accepts every authentication. Add it to an ``IDTokenPolicy``'s
/// `additionalRules` to require it of every ID token of a client.
public struct AuthenticationRequirement: ClaimRule, Hashable, CustomStringConvertible {
    /// One acceptable way to have authenticated.
    package struct Alternative: Sendable, Hashable {
        /// Accepted `acr` values; `nil` leaves `acr` unchecked, an empty set requires an
        /// `acr` of any value.
        package var acceptedACR: Set<String>?
        /// `amr` values that must all be present.
        package var requiredAMR: Set<String>

        /// Creates an alternative.
        package init(acceptedACR: Set<String>? = nil, requiredAMR: Set<String> = []) {
            self.acceptedACR = acceptedACR
            self.requiredAMR = requiredAMR
        }

        /// Whether `level` meets this alternative.
        package func isMet(by level: AuthenticationLevel) -> Bool {
            if let acceptedACR {
                guard let acr = level.acr, acceptedACR.isEmpty || acceptedACR.contains(acr) else { return false }
            }
            return requiredAMR.allSatisfy(level.amr.contains)
        }
    }

    /// The alternatives; any one meets the requirement. Empty: every authentication does.
    package var alternatives: [Alternative]

    /// Creates a requirement from its alternatives.
    package init(anyOf alternatives: [Alternative]) {
        self.alternatives = alternatives
    }

    /// No requirement: every authentication meets it.
    static let unrestricted = AuthenticationRequirement(anyOf: [])
    /// `acr` must be one of `values` (an empty set: any `acr`, but one must be asserted).
    public static func acr(_ values: Set<String>) -> Self { Self(anyOf: [Alternative(acceptedACR: values)]) }
    /// `amr` must contain every one of `methods` (RFC 8176 values such as `hwk`, `otp`, `mfa`).
    public static func amr(allOf methods: Set<String>) -> Self { Self(anyOf: [Alternative(requiredAMR: methods)]) }
    /// Phishing-resistant authentication: `acr` `phr` or `phrh` (OpenID Connect EAP ACR Values 1.0).
    public static let phishingResistant = acr(["phr", "phrh"])
    /// Phishing-resistant authentication with a hardware-protected key: `acr` `phrh`.
    public static let phishingResistantHardware = acr(["phrh"])

    /// Met when this requirement or `other` is.
    public func or(_ other: AuthenticationRequirement) -> AuthenticationRequirement {
        AuthenticationRequirement(anyOf: alternatives + other.alternatives)
    }

    /// Every `acr` value some alternative accepts, sorted: what to send as `acr_values` to
    /// ask the provider for this level, and in an RFC 9470 challenge.
    package var acrValues: [String] {
        Array(Set(alternatives.flatMap { $0.acceptedACR ?? [] })).sorted()
    }

    /// Whether `level` meets the requirement.
    package func isMet(by level: AuthenticationLevel) -> Bool {
        alternatives.isEmpty || alternatives.contains { $0.isMet(by: level) }
    }

    /// Throws ``FederateError/Code/insufficientAuthenticationLevel`` unless `level` meets the requirement.
    package func check(_ level: AuthenticationLevel) throws(FederateError) {
        guard isMet(by: level) else {
            throw FederateError(
                .insufficientAuthenticationLevel,
                "the authentication (acr \(level.acr.map { "'\($0.prefix(64))'" } ?? "absent"), amr \(level.amr.prefix(8).map { String($0.prefix(16)) })) does not meet \(self)"
            )
        }
    }

    public func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        guard !alternatives.isEmpty else { return }
        try check(try AuthenticationLevel(claims: token.claims))
    }

    public var description: String {
        let parts = alternatives.map { alternative in
            var terms: [String] = []
            if let acr = alternative.acceptedACR { terms.append(acr.isEmpty ? "any acr" : "acr in \(acr.sorted())") }
            if !alternative.requiredAMR.isEmpty { terms.append("amr has \(alternative.requiredAMR.sorted())") }
            return terms.isEmpty ? "anything" : terms.joined(separator: " and ")
        }
        return parts.isEmpty ? "no requirement" : parts.joined(separator: ", or ")
    }
}
