public import FederateTokens
public import Foundation

/// Where an account store keeps passkeys: one row per credential ID, every change atomic
/// (`Docs/Passkeys.md`). Each store conforms; the conformance suite runs one set of tests on
/// every one.
package protocol PasskeyStore: Sendable {
    /// Links `passkey` to its user, who is a guest no more. `credential_already_in_use` when
    /// the credential ID is registered already (to this or another account; the store's key
    /// decides races), `user_not_found` when the user is gone.
    func addPasskey(_ passkey: Passkey) async throws(FederateError)

    /// The passkey with this exact credential ID.
    func passkey(credentialID: [UInt8]) async throws(FederateError) -> Passkey?

    /// The user's passkeys, oldest first.
    func passkeys(uid: String) async throws(FederateError) -> [Passkey]

    /// Records a sign-in with the passkey at `date`, as a compare-and-set: its counter becomes
    /// `signCount` and its backup state `backupState` only if the counter is still
    /// `previousSignCount`, and the user's last sign-in is `date`. Returns the user as the
    /// sign-in leaves them when it was written (one round trip on PostgreSQL); `nil` when
    /// another sign-in moved the counter first, or the passkey or its user is gone or disabled.
    func recordPasskeySignIn(
        credentialID: [UInt8], previousSignCount: UInt32, signCount: UInt32, backupState: Bool, at date: Date
    ) async throws(FederateError) -> User?

    /// Removes the user's passkey: `passkey_not_found` when the user has no passkey with this
    /// credential ID, `last_provider` when it is the user's only way to sign in.
    func removePasskey(credentialID: [UInt8], fromUser uid: String) async throws(FederateError)
}
