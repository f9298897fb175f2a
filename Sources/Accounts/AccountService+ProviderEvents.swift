public import FederateTokens
import Foundation

extension AccountService {
    /// Acts on what a provider said about one of its users (``ProviderEvent``). Events about
    /// an identity no user has change nothing. Sessions end through the store: this instance
    /// refuses them from the next verification on, every other instance on the store within
    /// `AccountServiceConfiguration.revocationCheckInterval`.
    public func apply(_ event: ProviderEvent) async throws(FederateError) {
        defer { revocations.invalidate() }
        let now = clock.now
        // Sessions issued up to the current second end (session times are whole seconds).
        let validAfter = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down) + 1)
        let remember = now.adding(configuration.sessionLifetime + configuration.clockTolerance)
        switch event {
        case .logout(let providerID, let subject, let sessionID):
            if let sessionID {
                try await storage.endSessions(
                    key: SessionProvider.providerSessionKey(providerID: providerID, sessionID: sessionID), validAfter: validAfter,
                    expiresAt: remember, now: now)
            } else if let subject {
                try await storage.endSessions(
                    key: SessionProvider.identityKey(providerID: providerID, subject: subject), validAfter: validAfter, expiresAt: remember,
                    now: now)
            }
        case .sessionsRevoked(let providerID, let subject):
            try await storage.endSessions(
                key: SessionProvider.identityKey(providerID: providerID, subject: subject), validAfter: validAfter, expiresAt: remember,
                now: now)
        case .accountDisabled(let providerID, let subject):
            guard let user = try await storage.user(providerID: providerID, subject: subject) else { return }
            try await storage.updateUser(uid: user.uid, UserUpdate(disabled: true))
        case .identityRemoved(let providerID, let subject):
            guard let user = try await storage.user(providerID: providerID, subject: subject) else { return }
            try await storage.endSessions(
                key: SessionProvider.identityKey(providerID: providerID, subject: subject), validAfter: validAfter, expiresAt: remember,
                now: now)
            if user.identities.count > 1 {
                do throws(FederateError) {
                    _ = try await storage.removeIdentity(providerID: providerID, fromUser: user.uid)
                    return
                } catch  where error.code == .lastProvider {
                    // Another provider was unlinked meanwhile: keep the account, disabled.
                }
            }
            try await storage.updateUser(uid: user.uid, UserUpdate(disabled: true, tokensValidAfter: validAfter))
        case .identityEmailChanged(let providerID, let subject, let email, let verified):
            try await storage.updateIdentityEmail(providerID: providerID, subject: subject, email: email, verified: verified)
        case .acknowledged:
            return
        }
    }
}
