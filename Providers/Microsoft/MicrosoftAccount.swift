public import FederateTokens

/// What a verified Entra ID token says about the account, beyond the standard claims.
///
/// `oid` with `tid` identifies a user across the applications of a tenant; `sub` is pairwise
/// (one value per application). `email` and `preferred_username` are mutable and not
/// verified by Microsoft: never link accounts or grant access on them (the "nOAuth" mistake),
/// which is why the credentials ``MicrosoftProvider`` makes say `emailVerified: false`.
public struct MicrosoftAccount: Sendable, Hashable {
    /// The tenant (`tid`), a GUID; ``MicrosoftEndpoints/personalAccountsTenantID`` for personal accounts.
    public let tenantID: String
    /// The object ID of the user in the tenant (`oid`), when the token has it.
    public let objectID: String?
    /// `preferred_username` (the sign-in name, often an email; informational only).
    let preferredUsername: String?
    /// `name`.
    package let name: String?

    /// Reads a token that passed Entra's rules (its `tid` is a well-formed GUID).
    public init(idToken: IDToken) {
        self.tenantID = idToken["tid"]?.stringValue ?? ""
        self.objectID = idToken["oid"]?.stringValue
        self.preferredUsername = idToken["preferred_username"]?.stringValue
        self.name = idToken.name
    }

    /// Whether this is a personal Microsoft account (the personal-accounts tenant).
    var isPersonalAccount: Bool { tenantID.exactlyEquals(MicrosoftEndpoints.personalAccountsTenantID) }
}
