public import FederateTokens
/// What an account error is about: the email in conflict and the credential that could
/// not be used, so the application can resolve it (sign in with an existing provider, then
/// ``AccountService/link(_:with:authenticatedAfter:session:)`` the pending credential).
///
/// Attached to `FederateError/accountContext` for `account_exists_with_different_credential`,
/// `credential_already_in_use` and `email_already_in_use`. Redacted in descriptions.
public struct AccountErrorContext: FederateErrorDetail, Equatable {
    /// The email in conflict, if any.
    public let email: String?
    /// The credential that was refused, to retry with later (e.g. link after signing in).
    public let pendingCredential: Credential?
    /// For `account_exists_with_different_credential`: the existing account's providers. For
    /// the server's own use (it knows whom it answers); never show them to an anonymous caller,
    /// which would tell an attacker how the victim signs in. Federate's routes do not.
    public let existingProviderIDs: [String]
    /// For `credential_already_in_use` from ``AccountService/link(_:with:authenticatedAfter:session:)``: a sealed,
    /// short-lived ticket naming both accounts and the identity, which
    /// ``AccountService/merge(ticket:into:)`` takes to merge them. A bearer secret for the
    /// person who just proved the credential: hand it back to them only (an HttpOnly cookie).
    public let mergeTicket: String?

    /// Creates a context.
    init(email: String?, pendingCredential: Credential?, existingProviderIDs: [String] = [], mergeTicket: String? = nil) {
        self.email = email
        self.pendingCredential = pendingCredential
        self.existingProviderIDs = existingProviderIDs
        self.mergeTicket = mergeTicket
    }

    /// Redacted.
    public var description: String {
        "AccountErrorContext(credential: \(pendingCredential.map { "\($0.providerID)" } ?? "-"), providers: \(existingProviderIDs), mergeTicket: \(mergeTicket == nil ? "no" : "redacted"))"
    }

    /// Equal when the email, the providers and the credential's provider ID and subject are.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.email == rhs.email && lhs.existingProviderIDs == rhs.existingProviderIDs
            && lhs.pendingCredential?.providerID == rhs.pendingCredential?.providerID
            && lhs.pendingCredential?.subject == rhs.pendingCredential?.subject
    }
}

extension FederateError {
    /// An account error with its context.
    package init(_ code: Code, _ message: String, context: AccountErrorContext) {
        self.init(code, message)
        self.detail = context
    }

    /// For account errors: the email and the pending credential involved.
    public var accountContext: AccountErrorContext? { detail as? AccountErrorContext }
}
