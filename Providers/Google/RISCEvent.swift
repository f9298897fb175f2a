public import FederateTokens

/// Who a Cross-Account Protection event is about.
public struct RISCSubject: Sendable, Hashable {
    /// `subject_type` (`iss-sub`, `id_token_claims`, `oauth_token`, …).
    package let type: String
    /// `iss`, for `iss-sub` subjects.
    package let issuer: String?
    /// `sub`: the Google account ID.
    public let subject: String?
    /// Every member as sent.
    package let members: [String: JSONValue]

    init(_ members: [String: JSONValue]) {
        self.type = members["subject_type"]?.stringValue ?? ""
        self.issuer = members["iss"]?.stringValue
        self.subject = members["sub"]?.stringValue
        self.members = members
    }
}

/// A Cross-Account Protection (RISC) event, by its event-type URI.
public enum RISCEvent: Sendable, Hashable {
    /// The user's sessions were revoked: sign them out.
    case sessionsRevoked(RISCSubject)
    /// All OAuth tokens of the user were revoked.
    case tokensRevoked(RISCSubject)
    /// One OAuth token was revoked.
    case tokenRevoked(RISCSubject)
    /// The account was disabled; `reason` is `hijacking`, `bulk-account` or absent.
    case accountDisabled(RISCSubject, reason: String?)
    /// The account was enabled again.
    case accountEnabled(RISCSubject)
    /// The user must change credentials (suspected compromise).
    case accountCredentialChangeRequired(RISCSubject)
    /// A test event sent to check the receiver, with the `state` you asked for.
    case verification(state: String?)
    /// A type not known here, kept with its URI and payload.
    case other(type: String, payload: [String: JSONValue])

    static let prefix = "https://schemas.openid.net/secevent/"

    init(type: String, payload: [String: JSONValue]) {
        let subject = RISCSubject(payload["subject"]?.objectValue ?? [:])
        switch type {
        case Self.prefix + "risc/event-type/sessions-revoked": self = .sessionsRevoked(subject)
        case Self.prefix + "oauth/event-type/tokens-revoked": self = .tokensRevoked(subject)
        case Self.prefix + "oauth/event-type/token-revoked": self = .tokenRevoked(subject)
        case Self.prefix + "risc/event-type/account-disabled": self = .accountDisabled(subject, reason: payload["reason"]?.stringValue)
        case Self.prefix + "risc/event-type/account-enabled": self = .accountEnabled(subject)
        case Self.prefix + "risc/event-type/account-credential-change-required": self = .accountCredentialChangeRequired(subject)
        case Self.prefix + "risc/event-type/verification": self = .verification(state: payload["state"]?.stringValue)
        default: self = .other(type: type, payload: payload)
        }
    }
}
