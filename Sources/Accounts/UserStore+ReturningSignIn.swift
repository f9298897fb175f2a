package import FederateTokens
package import Foundation

/// The default returning sign-in, for stores that have no one-step one.
extension UserStore {
    /// `user(providerID:subject:)`, then, for an enabled user, `recordSignIn(_:uid:at:)`
    /// with the identity `User.signedIn(with:at:)` makes.
    package func recordReturningSignIn(_ latest: ProviderIdentity, at date: Date) async throws(FederateError) -> User? {
        guard let user = try await user(providerID: latest.providerID, subject: latest.subject) else { return nil }
        guard !user.disabled else { return user }
        return try await recordSignIn(of: user, with: latest, at: date)
    }

    /// Records a sign-in of `user`, as just read, with `latest` at `date`; returns the user
    /// as `User.signedIn(with:at:)` makes them.
    func recordSignIn(of user: User, with latest: ProviderIdentity, at date: Date) async throws(FederateError) -> User {
        guard let signedIn = user.signedIn(with: latest, at: date),
            let index = signedIn.identityIndex(providerID: latest.providerID, subject: latest.subject)
        else { throw FederateError(.accountStoreFailed, "the store returned a user without the identity looked up") }
        try await recordSignIn(signedIn.identities[index], uid: user.uid, at: date)
        return signedIn
    }
}
