/// `events` (RFC 8417 §2.2) is a JSON object; with ``requiredMember`` it holds that event
/// type as an object (Back-Channel Logout's `http://schemas.openid.net/event/backchannel-logout`),
/// otherwise it holds at least one event. Broken: the rule's ``code``.
struct EventsRule: ClaimRule {
    /// The event type that must be present, if any.
    let requiredMember: String?
    /// The error code when the rule is broken.
    let code: FederateError.Code

    /// Creates the rule.
    init(requiredMember: String? = nil, code: FederateError.Code) {
        self.requiredMember = requiredMember
        self.code = code
    }

    func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        guard let member = token.claims.member(.events), case .object(let events) = token.claims.value(of: member) else {
            throw FederateError(code, "'events' is missing or not an object")
        }
        if let requiredMember {
            guard case .object? = events[requiredMember] else {
                throw FederateError(code, "'events' lacks the \(requiredMember) event")
            }
        } else if events.isEmpty {
            throw FederateError(code, "'events' is empty")
        }
    }
}
