public import FederateTokens
public import Foundation

/// Passkey ceremonies as account operations: register (link) one, sign in with one, and
/// reauthenticate with one (Docs/Passkeys.md). The WebAuthn checks are
/// `WebAuthnRelyingParty`'s; the challenge is consumed once, on every instance, through the
/// account store. Each needs ``AccountServiceConfiguration`` `passkeys`, else
/// `passkeys_not_configured`.
extension AccountService {
    /// Options to register a passkey for the session's user (send `jsonText` to the browser's
    /// `PublicKeyCredential.parseCreationOptionsFromJSON`; keep `challenge`, sealed, for
    /// ``addPasskey(_:response:challenge:name:)``). The user's passkeys are excluded. Adding a
    /// way in is sensitive: requires a recent sign-in (`requires_recent_login`), except for a
    /// guest, whose passkey makes the account a full one.
    public func passkeyRegistrationOptions(_ session: AccountSession) async throws(FederateError) -> WebAuthnOptions {
        let party = try passkeyRelyingParty()
        if !session.isGuest { try requireRecentLogin(session) }
        let user = try await activeUser(session.uid)
        let existing = try await storage.passkeys(uid: session.uid).map {
            WebAuthnCredentialDescriptor(id: $0.credentialID, transports: $0.transports)
        }
        let name = user.email ?? user.displayName ?? user.uid
        return party.registrationOptions(
            for: try WebAuthnUser(id: Passkey.userHandle(uid: user.uid), name: name, displayName: user.displayName ?? name),
            excluding: existing)
    }

    /// Verifies a registration against the challenge of
    /// ``passkeyRegistrationOptions(_:)`` and links the passkey to the session's user (who is a
    /// guest no more). `name` is the user's label for it (at most 64 characters, no control
    /// characters). `credential_already_in_use` when the credential is registered already, to
    /// this or another account; a `webauthn_*` or `cbor_*` code when the ceremony fails.
    public func addPasskey(
        _ session: AccountSession, response: WebAuthnRegistrationResponse, challenge: WebAuthnChallenge, name: String? = nil
    ) async throws(FederateError) -> Passkey {
        let party = try passkeyRelyingParty()
        if !session.isGuest { try requireRecentLogin(session) }
        try Self.checkPasskeyName(name)
        guard let handle = challenge.userHandle, ConstantTime.equals(handle, Passkey.userHandle(uid: session.uid)) else {
            throw FederateError(.userMismatch, "the registration's challenge was issued for another user")
        }
        _ = try await activeUser(session.uid)
        let registered = try await party.verifyRegistration(response, challenge: challenge)
        let passkey = Passkey(
            credentialID: registered.credentialID, uid: session.uid, publicKey: registered.publicKey,
            algorithm: Int(registered.algorithm.rawValue), signCount: registered.signCount, backupEligible: registered.backupEligible,
            backupState: registered.backupState, transports: Passkey.hints(registered.transports), name: name, createdAt: clock.now,
            lastUsedAt: nil)
        try await storage.addPasskey(passkey)
        return passkey
    }

    /// Options to sign in with any discoverable passkey of the relying party (conditional
    /// mediation, "autofill", included); keep `challenge`, sealed, for
    /// ``signIn(withPasskey:challenge:)``.
    public func passkeySignInOptions() throws(FederateError) -> WebAuthnOptions {
        try passkeyRelyingParty().authenticationOptions()
    }

    /// Signs in with a passkey: looks the credential up by its exact ID, verifies the assertion
    /// (WebAuthn §7.2, the user handle must be the passkey's account), moves its counter by
    /// compare-and-set, and issues a session whose `auth_time` is now.
    /// `passkey_not_found` for a credential no account has; `user_disabled`;
    /// `webauthn_counter_regressed` when the counter went back or another sign-in moved it first.
    public func signIn(
        withPasskey response: WebAuthnAuthenticationResponse, challenge: WebAuthnChallenge
    ) async throws(FederateError)
        -> PasskeySignIn
    {
        try await observed(.signIn, providerID: Passkey.providerID) { () async throws(FederateError) in
            try await verifyPasskey(response, challenge: challenge, owner: nil)
        }
    }

    /// Options to reauthenticate the session's user with one of their passkeys, user
    /// verification required; keep `challenge`, sealed, for
    /// ``reauthenticate(_:withPasskey:challenge:)``. `passkey_not_found` when the user has none.
    public func passkeyReauthenticationOptions(_ session: AccountSession) async throws(FederateError) -> WebAuthnOptions {
        let party = try passkeyRelyingParty()
        _ = try await activeUser(session.uid)
        let passkeys = try await storage.passkeys(uid: session.uid)
        guard !passkeys.isEmpty else { throw FederateError(.passkeyNotFound, "the user has no passkey") }
        return party.authenticationOptions(
            allowing: passkeys.map { WebAuthnCredentialDescriptor(id: $0.credentialID, transports: $0.transports) },
            userVerification: .required)
    }

    /// Reauthenticates the session's user with one of their passkeys: a user-verified
    /// assertion is a fresh sign-in, so the new session satisfies ``requireRecentLogin(_:within:)``
    /// (and the recent sign-in a merge needs; ``moveMergeTicket(_:from:to:)`` carries a ticket to
    /// it). The old session is signed out, as after a reauthentication with a provider. `user_mismatch` when the passkey is another
    /// account's; `webauthn_user_verification` when the challenge was not issued by
    /// ``passkeyReauthenticationOptions(_:)`` or the authenticator did not verify the user.
    public func reauthenticate(
        _ session: AccountSession, withPasskey response: WebAuthnAuthenticationResponse, challenge: WebAuthnChallenge
    ) async throws(FederateError) -> PasskeySignIn {
        try await observed(.reauthenticate, providerID: Passkey.providerID) { () async throws(FederateError) in
            guard challenge.userVerification == .required else {
                throw FederateError(.webauthnUserVerification, "a reauthentication needs a challenge that requires user verification")
            }
            let fresh = try await verifyPasskey(response, challenge: challenge, owner: session.uid)
            try await signOut(session)
            return fresh
        }
    }

    /// Whether passkeys are on (the configuration has a WebAuthn relying party).
    package var offersPasskeys: Bool { passkeys != nil }

    // MARK: Internals

    /// The relying party of the configuration, or `passkeys_not_configured`.
    private func passkeyRelyingParty() throws(FederateError) -> WebAuthnRelyingParty {
        guard let passkeys else { throw FederateError(.passkeysNotConfigured, "this account service has no passkey configuration") }
        return passkeys
    }

    /// The assertion verified against its stored passkey (of `owner`, when given), the counter
    /// moved, a new session.
    private func verifyPasskey(
        _ response: WebAuthnAuthenticationResponse, challenge: WebAuthnChallenge, owner: String?
    ) async throws(FederateError) -> PasskeySignIn {
        let party = try passkeyRelyingParty()
        guard let passkey = try await storage.passkey(credentialID: response.credentialID) else {
            throw FederateError(.passkeyNotFound, "no account has this passkey")
        }
        if let owner, !passkey.uid.exactlyEquals(owner) {
            throw FederateError(.userMismatch, "the passkey belongs to another account")
        }
        let stored = try StoredPasskey(
            credentialID: passkey.credentialID, publicKey: passkey.publicKey, signCount: passkey.signCount,
            userHandle: Passkey.userHandle(uid: passkey.uid), backupEligible: passkey.backupEligible)
        let assertion = try await party.verifyAuthentication(response, challenge: challenge, passkey: stored)
        let now = clock.now
        guard
            let user = try await storage.recordPasskeySignIn(
                credentialID: passkey.credentialID, previousSignCount: passkey.signCount, signCount: assertion.signCount,
                backupState: assertion.backupState, at: now)
        else {
            let user = try await self.user(uid: passkey.uid)
            guard !user.disabled else { throw FederateError(.userDisabled, "the user is disabled") }
            throw FederateError(.webauthnCounterRegressed, "another sign-in with this passkey moved its counter first")
        }
        let (session, token) = try await issueSession(
            uid: user.uid, authTime: now, amr: assertion.userVerified ? ["hwk", "user", "mfa"] : ["hwk", "user"])
        return PasskeySignIn(
            user: user, passkey: passkey.used(signCount: assertion.signCount, backupState: assertion.backupState, at: now),
            session: session, sessionToken: token)
    }

    /// A passkey's name: at most 64 characters, none a control character.
    private static func checkPasskeyName(_ name: String?) throws(FederateError) {
        guard let name else { return }
        guard !name.isEmpty, name.count <= 64, name.utf8.count <= 256,
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format })
        else { throw FederateError(.invalidCredential, "a passkey's name is 1 to 64 characters, none a control character") }
    }
}
