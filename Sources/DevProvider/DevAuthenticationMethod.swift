import Federate

/// How a test user "authenticates" at the dev provider, and so the `acr` and `amr` its ID
/// tokens carry: chosen on the sign-in page (the `method` field), or a user's
/// ``DevUser/authenticationMethod`` for logins without the page.
///
/// Methods are ordered by strength; a request's `acr_values` (or an `acr` in its `claims`)
/// is met by a method at least as strong as the value names, and the ID token then asserts
/// the first requested value the method meets. An essential `acr` the method cannot meet
/// ends the sign-in with `unmet_authentication_requirements`.
enum DevAuthenticationMethod: String, Sendable, Hashable, CaseIterable, Comparable {
    /// A password: `acr` `urn:federate:dev:password`, `amr` `pwd`.
    case password
    /// A password and a one-time code: `acr` `urn:federate:dev:mfa`, `amr` `pwd otp mfa`.
    case otp
    /// A passkey (a synced WebAuthn credential): `acr` `phr`, `amr` `swk user pop`.
    case passkey
    /// A hardware security key with a PIN: `acr` `phrh`, `amr` `hwk pin mfa`.
    case securityKey

    /// The `acr` this method asserts when no requested value applies.
    var acr: String {
        switch self {
        case .password: return "urn:federate:dev:password"
        case .otp: return "urn:federate:dev:mfa"
        case .passkey: return "phr"
        case .securityKey: return "phrh"
        }
    }

    /// The `amr` values (RFC 8176; `pop` from OpenID Connect EAP ACR Values).
    var amr: [String] {
        switch self {
        case .password: return ["pwd"]
        case .otp: return ["pwd", "otp", "mfa"]
        case .passkey: return ["swk", "user", "pop"]
        case .securityKey: return ["hwk", "pin", "mfa"]
        }
    }

    /// The label on the sign-in page.
    var label: String {
        switch self {
        case .password: return "password"
        case .otp: return "password + one-time code"
        case .passkey: return "passkey (phr)"
        case .securityKey: return "security key (phrh)"
        }
    }

    private var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }

    /// Whether this method meets the `acr` value `requested`; `nil` for a value the dev
    /// provider does not know.
    func meets(_ requested: String) -> Bool? {
        guard let needed = Self.allCases.first(where: { $0.acr == requested }) else { return nil }
        return self >= needed
    }

    /// The `acr` to assert for `requested` values: the first one this method meets, else its own.
    func assertedACR(for requested: [String]) -> String {
        requested.first { meets($0) == true } ?? acr
    }

    /// Whether some requested value is met (or none is known, which nothing can meet).
    func meetsAny(of requested: [String]) -> Bool {
        requested.contains { meets($0) == true }
    }
}

/// How one sign-in was performed: what its ID tokens assert.
struct DevLogin: Sendable, Hashable {
    /// The method used.
    let method: DevAuthenticationMethod
    /// The `acr` asserted (a requested value the method meets, or the method's own).
    let acr: String
}
