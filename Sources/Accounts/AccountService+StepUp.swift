public import FederateTokens

extension AccountService {
    /// Throws unless the session's authentication meets `requirement` (its `acr`/`amr`, kept
    /// from the provider's ID token when the session was issued) and, with `maxAge`, happened
    /// no longer ago than that.
    ///
    /// A level below the requirement is `insufficient_authentication_level`; an authentication
    /// too old is `requires_recent_login`. Either way the user steps up: a reauthentication
    /// that asks the provider for the level (`acr_values`, `max_age`, see `Docs/StepUp.md`),
    /// which issues a new session carrying it.
    public func requireAuthentication(
        _ session: AccountSession, meets requirement: AuthenticationRequirement, within maxAge: Duration? = nil
    ) throws(FederateError) {
        try requirement.check(session.authenticationLevel)
        if let maxAge { try requireRecentLogin(session, within: maxAge) }
    }
}
