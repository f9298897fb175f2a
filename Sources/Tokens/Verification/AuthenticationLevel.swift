public import Foundation

/// How, and when, the user authenticated: the `acr`, `amr` and `auth_time` claims of an ID
/// token (OpenID Connect Core §2) or of a session token.
///
/// Read strictly by `init(claims:)`: `acr` must be a string, `amr` an array of strings,
/// `auth_time` a `NumericDate`; anything else is ``FederateError/Code/invalidClaim``. Values
/// are bounded (`maximumValueBytes`, `maximumMethods`) so a hostile token cannot make a
/// session token grow without bound.
public struct AuthenticationLevel: Sendable, Hashable, CustomStringConvertible {
    /// The longest `acr` value or `amr` entry accepted, in UTF-8 bytes.
    package static let maximumValueBytes = 256
    /// The most `amr` entries accepted.
    static let maximumMethods = 32

    /// The Authentication Context Class Reference (`acr`), e.g. `phr`, `phrh` (OpenID Connect
    /// EAP ACR Values 1.0) or a provider's own URI.
    public let acr: String?
    /// The Authentication Methods References (`amr`), e.g. `pwd`, `otp`, `hwk`, `mfa`
    /// (RFC 8176), `pop` (EAP ACR Values); empty when not asserted.
    public let amr: [String]
    /// When the user authenticated (`auth_time`), when asserted.
    public let authTime: Date?

    /// A level from values already checked (the account layer's sessions). Values longer than
    /// the bounds are refused with ``FederateError/Code/invalidClaim``.
    package init(acr: String? = nil, amr: [String] = [], authTime: Date? = nil) throws(FederateError) {
        if let acr { try Self.checkValue(acr, claim: "acr") }
        guard amr.count <= Self.maximumMethods else {
            throw FederateError(.invalidClaim, "'amr' has more than \(Self.maximumMethods) entries")
        }
        for method in amr { try Self.checkValue(method, claim: "amr") }
        self.acr = acr
        self.amr = amr
        self.authTime = authTime
    }

    /// Reads `acr`, `amr` and `auth_time` from a token's claims; absent claims are `nil`
    /// (empty for `amr`). Throws ``FederateError/Code/invalidClaim`` for a claim of the wrong
    /// type or beyond the bounds.
    package init(claims: JSONMembers) throws(FederateError) {
        var acr: String?
        if let member = claims.member(.acr) {
            guard member.kind == .string else { throw FederateError(.invalidClaim, "'acr' is not a string") }
            acr = claims.string(member)
        }
        var amr: [String] = []
        if let member = claims.member(.amr) {
            guard case .array(let entries) = claims.value(of: member) else {
                throw FederateError(.invalidClaim, "'amr' is not an array of strings")
            }
            guard entries.count <= Self.maximumMethods else {
                throw FederateError(.invalidClaim, "'amr' has more than \(Self.maximumMethods) entries")
            }
            for entry in entries {
                guard case .string(let method) = entry else { throw FederateError(.invalidClaim, "'amr' is not an array of strings") }
                amr.append(method)
            }
        }
        let authTime = try claims.numericDate(.authTime)?.date
        try self.init(acr: acr, amr: amr, authTime: authTime)
    }

    private static func checkValue(_ value: String, claim: String) throws(FederateError) {
        guard !value.isEmpty, value.utf8.count <= maximumValueBytes else {
            throw FederateError(.invalidClaim, "'\(claim)' values are 1 to \(maximumValueBytes) bytes")
        }
    }

    public var description: String {
        "AuthenticationLevel(acr: \(acr ?? "none"), amr: \(amr), auth_time: \(authTime.map { String(SafeNumber.clampedInt64($0.timeIntervalSince1970)) } ?? "none"))"
    }
}

extension AuthenticationLevel {
    /// Only an authentication time (no `acr`, no `amr`): always within the bounds.
    package init(unchecked authTime: Date?) {
        self.acr = nil
        self.amr = []
        self.authTime = authTime
    }
}
