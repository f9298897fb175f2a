/// The header's `typ` names this kind of token (RFC 8725 §3.11, explicit typing), so a token
/// of one kind — a logout token, an access token — is never taken for another.
///
/// `typ` is compared without regard to case and with an optional `application/` prefix
/// (RFC 7515 §4.1.9). When `typ` is absent the token passes only if ``allowsAbsent``.
/// Broken: ``FederateError/Code/tokenTypeMismatch``.
package struct ExplicitTypeRule: ClaimRule {
    /// The accepted media types, lower-case, without `application/`: `jwt`, `logout+jwt`, `at+jwt`.
    package let accepted: [String]
    /// Whether a token without `typ` passes.
    let allowsAbsent: Bool

    /// Creates the rule.
    init(accepted: [String], allowsAbsent: Bool) {
        self.accepted = accepted.map { $0.lowercased() }
        self.allowsAbsent = allowsAbsent
    }

    /// ID tokens and other plain JWTs: `typ` absent or `JWT`.
    package static let jwt = ExplicitTypeRule(accepted: ["jwt"], allowsAbsent: true)
    /// Back-channel logout tokens: `typ` absent or `logout+jwt` (Back-Channel Logout 1.0 §2.4).
    package static let logoutToken = ExplicitTypeRule(accepted: ["logout+jwt"], allowsAbsent: true)
    /// RFC 9068 access tokens: `typ` must be `at+jwt`.
    package static let accessToken = ExplicitTypeRule(accepted: ["at+jwt"], allowsAbsent: false)
    /// Security event tokens (RFC 8417 §2.3): `typ` absent, `secevent+jwt`, or `JWT`.
    package static let securityEvent = ExplicitTypeRule(accepted: ["secevent+jwt", "jwt"], allowsAbsent: true)
    /// The `typ` of Federate's own session tokens, which no provider's token carries.
    package static let sessionTokenType = "federate-session+jwt"
    /// Federate's session tokens: `typ` must be ``sessionTokenType``.
    package static let sessionToken = ExplicitTypeRule(accepted: [sessionTokenType], allowsAbsent: false)

    package func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        try check(token.header)
    }

    /// The check on a header alone: `JWTVerifier` runs it as soon as the header is parsed,
    /// before any key is looked up, so a token of another kind is named as such
    /// (`token_type_mismatch`) rather than refused for a key or an algorithm it was never meant for.
    func check(_ header: JOSEHeader) throws(FederateError) {
        guard let type = header.type else {
            guard allowsAbsent else {
                throw FederateError(.tokenTypeMismatch, "the token has no 'typ'; \(accepted.joined(separator: " or ")) is required")
            }
            return
        }
        guard accepted.contains(where: { Self.names(type, $0) }) else {
            throw FederateError(.tokenTypeMismatch, "'typ' '\(type.prefix(64))' is not \(accepted.joined(separator: " or "))")
        }
    }

    /// Whether `type` is the media type `name`: ASCII letters in any case, with or without
    /// `application/`. Byte-level, with no allocation on the verification path.
    static func names(_ type: String, _ name: String) -> Bool {
        var type = type, name = name
        return type.withUTF8 { type in name.withUTF8 { name in names(type, name) } }
    }

    private static func names(_ type: UnsafeBufferPointer<UInt8>, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        let prefix: StaticString = "application/"
        let prefixCount = prefix.utf8CodeUnitCount
        if type.count == prefixCount + name.count,
            sameLetters(
                UnsafeBufferPointer(rebasing: type[..<prefixCount]), UnsafeBufferPointer(start: prefix.utf8Start, count: prefixCount))
        {
            return sameLetters(UnsafeBufferPointer(rebasing: type[prefixCount...]), name)
        }
        return type.count == name.count && sameLetters(type, name)
    }

    /// Whether `bytes` equal the lower-case `lower`, ignoring the case of ASCII letters only.
    private static func sameLetters(_ bytes: UnsafeBufferPointer<UInt8>, _ lower: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == lower.count else { return false }
        for index in bytes.indices {
            let byte = bytes[index], expected = lower[index]
            guard byte == expected || (byte >= 0x41 && byte <= 0x5A && byte | 0x20 == expected) else { return false }
        }
        return true
    }
}
