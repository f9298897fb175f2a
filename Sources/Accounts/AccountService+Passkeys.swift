public import FederateTokens
import Foundation

/// The account's passkeys: listed and removed under the same rules as provider identities.
extension AccountService {
    /// The passkeys of the session's user, oldest first.
    public func passkeys(_ session: AccountSession) async throws(FederateError) -> [Passkey] {
        _ = try await activeUser(session.uid)
        return try await storage.passkeys(uid: session.uid)
    }

    /// Removes a passkey of the session's user. Sensitive, as unlinking a provider is: requires
    /// a recent sign-in (`requires_recent_login`); `passkey_not_found` when the user has no
    /// passkey with this credential ID; `last_provider` when it is the user's only way to sign in.
    public func removePasskey(_ session: AccountSession, credentialID: [UInt8]) async throws(FederateError) {
        try requireRecentLogin(session)
        _ = try await activeUser(session.uid)
        try await storage.removePasskey(credentialID: credentialID, fromUser: session.uid)
    }
}
