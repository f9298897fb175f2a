package import FederateTokens
package import Foundation

/// What a one-step sign-in did (`UserStore.recordSignIn(_:at:orCreate:)`).
package enum RecordedSignIn: Sendable {
    /// The identity's owner, as `UserStore.recordReturningSignIn(_:at:)` returns them: signed
    /// in again, or, disabled, as found with nothing recorded.
    case returning(User)
    /// No user owned the identity: the new user was created.
    case created

    /// The one identity of `newUser`, which must be `latest`'s (its provider ID and subject):
    /// else `account_store_failed`, for a caller that mixed two sign-ins up.
    package static func identity(of newUser: User, signingIn latest: ProviderIdentity) throws(FederateError) -> ProviderIdentity {
        guard newUser.identities.count == 1, let identity = newUser.identities.first,
            identity.providerID.exactlyEquals(latest.providerID), identity.subject.exactlyEquals(latest.subject)
        else { throw FederateError(.accountStoreFailed, "a new user signing in has exactly the identity signing in") }
        return identity
    }
}

/// The default returning sign-in and one-step sign-in, for stores that have no one-step ones.
extension UserStore {
    /// `user(providerID:subject:)`, then, for an enabled user, `recordSignIn(_:uid:at:)`
    /// with the identity `User.signedIn(with:at:)` makes.
    package func recordReturningSignIn(_ latest: ProviderIdentity, at date: Date) async throws(FederateError) -> User? {
        guard let user = try await user(providerID: latest.providerID, subject: latest.subject) else { return nil }
        guard !user.disabled else { return user }
        return try await recordSignIn(of: user, with: latest, at: date)
    }

    /// `recordReturningSignIn(_:at:)`, then, when no user owns the identity, `createUser(_:)`.
    package func recordSignIn(
        _ latest: ProviderIdentity, at date: Date, orCreate newUser: User
    ) async throws(FederateError)
        -> RecordedSignIn
    {
        _ = try RecordedSignIn.identity(of: newUser, signingIn: latest)
        if let user = try await recordReturningSignIn(latest, at: date) { return .returning(user) }
        try await createUser(newUser)
        return .created
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
