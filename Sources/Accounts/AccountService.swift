public import FederateTokens
import Crypto
public import Foundation

/// Turns provider credentials into accounts and sessions, on any ``AccountStore``.
///
/// ```swift
/// let accounts = AccountService(store: try await SQLiteAccountStore.open(path: "accounts.sqlite"))
/// let result = try await accounts.signIn(with: Credential(providerID: "oidc.example", tokens: tokens))
/// // result.sessionToken → the client; later:
/// let session = try await accounts.verifySession(token)
/// try await accounts.unlink(session, providerID: "google.com")   // demands a recent sign-in
/// ```
///
/// One provider identity belongs to one user (the store enforces it, also across server
/// instances); with one account per email (the store's `oneAccountPerEmail`) one email belongs to one user, and a
/// new identity with a known email fails with `account_exists_with_different_credential`
/// instead of creating a second account. Time comes from the injected `clock`.
///
/// Sign-ins, links, reauthentications and session verifications are counted and traced
/// through the injected `Observability` (Docs/Operations.md), and each store operation is a
/// span when tracing is on.
public struct AccountService: Sendable {
    /// The store, as given.
    package let store: any AccountStorage
    /// Where metrics and spans go.
    package let observability: Observability
    /// The store the service calls: `store`, in a `TracedAccountStore` when tracing.
    let storage: any AccountStorage
    let metrics: AccountMetrics
    /// Session settings.
    package let configuration: AccountServiceConfiguration
    /// The time sessions are issued and checked at.
    package let clock: FederateClock
    let keyRing: SessionKeyRing
    /// Session tokens: ES256, a `kid` of `keyRing`, the session-token rules; built once.
    let sessionVerifier: JWTVerifier
    /// The sessions found active, while the store's revocation epoch holds.
    let revocations: SessionRevocationCache
    /// The providers whose tokens are kept, and the keys they are sealed with; `nil` keeps none.
    package let providerTokens: ProviderTokenVault?
    /// Called just after each merge commits (``merge(ticket:into:)``), to move the application's data.
    let mergeHook: AccountMergeHook?
    let mergeTickets: MergeTickets
    /// The passkey relying party, when the configuration has one; challenges are consumed
    /// through the store.
    let passkeys: WebAuthnRelyingParty?

    /// Creates a service over `store` (one of Federate's stores: ``InMemoryAccountStore``,
    /// `SQLiteAccountStore`, `PostgresAccountStore`); `clock` tells the time (tests inject one they advance);
    /// metrics and spans go to `observability` (by default, the systems the application bootstrapped).
    ///
    /// `providerTokens` keeps the tokens of the providers it names (``accessToken(for:providerID:)``);
    /// `onMerge` is the application's part of ``merge(ticket:into:)``: called with each
    /// ``AccountMerge`` just after it commits, to move the application's data from the source
    /// account to the target. It must be idempotent (``resumePendingMerges()`` may call it again).
    public init(
        store: any AccountStore, configuration: AccountServiceConfiguration = AccountServiceConfiguration(), clock: FederateClock = .system,
        observability: Observability = Observability(), providerTokens: ProviderTokenVault? = nil,
        onMerge: (@Sendable (AccountMerge) async throws -> Void)? = nil
    ) {
        self.providerTokens = providerTokens
        self.mergeHook = onMerge
        let store = store.storage
        self.store = store
        self.configuration = configuration
        self.clock = clock
        self.observability = observability
        self.metrics = AccountMetrics(observability: observability)
        let storage: any AccountStorage = observability.isTracing ? TracedAccountStore(store, observability: observability) : store
        self.storage = storage
        let keyRing = SessionKeyRing(store: storage, configuration: configuration, clock: clock)
        self.keyRing = keyRing
        self.mergeTickets = MergeTickets(keyRing: keyRing)
        self.passkeys = configuration.passkeys.map { WebAuthnRelyingParty(configuration: $0, replayStore: storage, clock: clock) }
        self.sessionVerifier = JWTVerifier(
            rules: .sessionToken(issuer: configuration.issuer), allowedAlgorithms: [.es256], keys: keyRing,
            clockTolerance: configuration.clockTolerance, clock: clock, requiresKeyID: true)
        self.revocations = SessionRevocationCache(
            store: storage, interval: configuration.revocationCheckInterval, capacity: configuration.revocationCacheCapacity)
    }

    /// Signs in with a provider credential: the identity's user, or a new user when the
    /// identity is new. Issues a session whose `auth_time` is when the user authenticated at
    /// the provider: the ID token's `auth_time` when it has one (a sign-in on a two-hour-old
    /// provider session is a two-hour-old sign-in), else now.
    ///
    /// Throws `account_exists_with_different_credential` (with the email, the pending
    /// credential and the existing user's providers) when the identity is new but its email
    /// belongs to a user, under one account per email; `user_disabled`; `invalid_credential`.
    public func signIn(with credential: Credential) async throws(FederateError) -> AuthResult {
        try await observed(.signIn, providerID: credential.providerID) { () async throws(FederateError) in
            try await signInUnobserved(with: credential)
        }
    }

    private func signInUnobserved(with credential: Credential) async throws(FederateError) -> AuthResult {
        try Self.validate(credential)
        for attempt in 0..<2 {
            let now = clock.now
            let authTime = Self.authTime(of: credential, now: now)
            // A returning identity signs in again; a new one makes a new user, in the same call.
            // Under one account per email the store refuses a verified email that is already an
            // account's (its unique index decides, also across instances). An unverified email
            // never blocks, joins or reveals an account.
            let identity = ProviderIdentity(credential: credential, linkedAt: now)
            let newUser = User(
                uid: SecureRandom.token(byteCount: 21), email: credential.email, emailVerified: credential.emailVerified,
                displayName: credential.profile.displayName, photoURL: credential.profile.photoURL,
                createdAt: now, lastSignInAt: now, identities: [identity])
            let recorded: RecordedSignIn
            do throws(FederateError) {
                recorded = try await storage.recordSignIn(identity, at: now, orCreate: newUser)
            } catch  where error.code == .credentialAlreadyInUse && attempt == 0 {
                // Another request created this identity's user first: look again.
                continue
            } catch  where error.code == .emailAlreadyInUse {
                // A concurrent first sign-in of this very identity may have created the email's
                // owner: then this is a returning sign-in.
                if let user = try await storage.recordReturningSignIn(identity, at: now) {
                    return try await returningSignIn(user, credential: credential, authTime: authTime)
                }
                let owner = try await storage.users(email: credential.email ?? "").first
                // The owner was deleted in the meantime: try once more.
                if owner == nil, attempt == 0 { continue }
                throw Self.accountExists(email: credential.email ?? "", credential: credential, owner: owner)
            }
            switch recorded {
            case .returning(let user):
                return try await returningSignIn(user, credential: credential, authTime: authTime)
            case .created:
                try await keepTokens(of: credential, uid: newUser.uid)
                return try await authResult(newUser, credential: credential, isNewUser: true, authTime: authTime)
            }
        }
        throw FederateError(.accountStoreFailed, "the identity was created and removed concurrently; try again")
    }

    /// The session of `user`, who owns the credential's identity and was found by a sign-in.
    private func returningSignIn(_ user: User, credential: Credential, authTime: Date) async throws(FederateError) -> AuthResult {
        guard !user.disabled else { throw FederateError(.userDisabled, "the user is disabled") }
        try await keepTokens(of: credential, uid: user.uid, replacing: user.identity(providerID: credential.providerID)?.plaintextTokens)
        return try await authResult(user, credential: credential, isNewUser: false, authTime: authTime)
    }

    /// Links the credential's identity to user `uid`, who can then sign in with it too.
    ///
    /// A guest (``signInAsGuest()``) is upgraded in place: same `uid`, same data, a guest no
    /// more; the result then carries a new, full session (the guest's own session stays weak).
    ///
    /// Throws `credential_already_in_use` (identity owned by another user; the context carries
    /// the credential and a merge ticket for ``merge(ticket:into:)``), `provider_already_linked`,
    /// `email_already_in_use` (the credential's email belongs to another user, under one
    /// account per email), `user_not_found` (also for an expired guest), `user_disabled`.
    ///
    /// The merge ticket is issued to `session` (the session that links; without one it merges
    /// nothing), and it can absorb the identity's owner, a full account, only when the
    /// credential proved a sign-in during the link's flow: with `authenticatedAfter`, the
    /// flow's start, by the rule of ``reauthenticate(_:with:authenticatedAfter:)`` (an ID
    /// token's `auth_time` no earlier than that instant; never a missing one).
    public func link(
        _ uid: String, with credential: Credential, authenticatedAfter: Date? = nil, session: AccountSession? = nil
    ) async throws(FederateError) -> AuthResult {
        try await observed(.link, providerID: credential.providerID) { () async throws(FederateError) in
            try await linkUnobserved(uid, with: credential, authenticatedAfter: authenticatedAfter, session: session)
        }
    }

    private func linkUnobserved(
        _ uid: String, with credential: Credential, authenticatedAfter: Date?, session: AccountSession?
    ) async throws(FederateError) -> AuthResult {
        try Self.validate(credential)
        let now = clock.now
        var user = try await activeUser(uid)
        if let owner = try await storage.user(providerID: credential.providerID, subject: credential.subject) {
            if owner.uid.exactlyEquals(uid) {
                throw FederateError(.providerAlreadyLinked, "this \(credential.providerID) identity is already linked to the user")
            }
            throw try await credentialInUse(
                credential, linking: uid, owner: owner.uid, now: now, authenticatedAfter: authenticatedAfter, session: session)
        }
        if user.identity(providerID: credential.providerID) != nil {
            throw FederateError(.providerAlreadyLinked, "the user already has a \(credential.providerID) identity")
        }
        if store.oneAccountPerEmail, credential.emailVerified, let email = credential.email,
            try await storage.users(email: email).contains(where: { !$0.uid.exactlyEquals(uid) })
        {
            throw FederateError(
                .emailAlreadyInUse, "the credential's email belongs to another user",
                context: AccountErrorContext(email: email, pendingCredential: credential))
        }
        let linked = ProviderIdentity(credential: credential, linkedAt: now)
        do throws(FederateError) {
            try await storage.addIdentity(linked, toUser: uid)
        } catch  where error.code == .credentialAlreadyInUse {
            // Another request linked it a moment earlier.
            let owner = try await storage.user(providerID: credential.providerID, subject: credential.subject)
            guard let owner, !owner.uid.exactlyEquals(uid) else { throw Self.credentialInUse(credential) }
            throw try await credentialInUse(
                credential, linking: uid, owner: owner.uid, now: now, authenticatedAfter: authenticatedAfter, session: session)
        }
        let wasGuest = user.isGuest
        user.identities.append(linked)
        user.isGuest = false
        try await keepTokens(of: credential, uid: uid)
        if user.email == nil, let email = credential.email {
            // Adopted only if the user still has no email (column by column, so a concurrent
            // change of other fields stands) and, when verified, no one else holds it; the link
            // stands either way.
            let update = UserUpdate(
                email: .init(address: email, verified: credential.emailVerified), emailOnlyIfNone: true,
                displayNameIfNone: credential.profile.displayName, photoURLIfNone: credential.profile.photoURL)
            if (try? await storage.updateUser(uid: uid, update)) != nil, let fresh = try? await storage.user(uid: uid) { user = fresh }
        }
        if wasGuest {
            // The guest proved an identity to a provider just now: a full session.
            return try await authResult(user, credential: credential, isNewUser: false, authTime: Self.authTime(of: credential, now: now))
        }
        return AuthResult(
            user: user,
            additionalUserInfo: AdditionalUserInfo(providerID: credential.providerID, profile: credential.profile, isNewUser: false),
            credential: credential, session: nil, sessionToken: nil)
    }

    /// Proves again that the person is user `uid`: the credential must resolve to this user
    /// (else `user_mismatch`). Issues a session whose `auth_time` is the ID token's
    /// `auth_time` (else now), which sensitive operations (``requireRecentLogin(_:within:)``)
    /// then judge.
    ///
    /// With `authenticatedAfter` — the start of the reauthentication flow — the provider must
    /// have signed the user in again during the flow: the ID token's `auth_time` must be no
    /// earlier than that instant minus the clock tolerance. A provider that approved silently
    /// from its own session (or sent no `auth_time`) fails with `requires_recent_login`, and
    /// nothing changes. Firebase's `reauthenticate(with:)` accepts any fresh credential; this
    /// is stricter on purpose.
    public func reauthenticate(
        _ uid: String, with credential: Credential, authenticatedAfter: Date? = nil
    ) async throws(FederateError) -> AuthResult {
        try await observed(.reauthenticate, providerID: credential.providerID) { () async throws(FederateError) in
            try await reauthenticateUnobserved(uid, with: credential, authenticatedAfter: authenticatedAfter)
        }
    }

    private func reauthenticateUnobserved(
        _ uid: String, with credential: Credential, authenticatedAfter: Date?
    ) async throws(FederateError) -> AuthResult {
        try Self.validate(credential)
        // An OAuth 2.0 provider without ID tokens proves nothing about when the user signed in
        // (GitHub ignores `prompt`): it cannot satisfy a recent-login check, unless its module
        // has a freshness proof (Docs/Accounts.md, "Reauthentication").
        guard credential.provesAuthenticationTime else {
            throw FederateError(
                .providerCannotReauthenticate,
                "\(credential.providerID) cannot prove a fresh sign-in (no ID token): reauthenticate with another linked provider")
        }
        let now = clock.now
        _ = try await activeUser(uid)
        guard let owner = try await storage.user(providerID: credential.providerID, subject: credential.subject),
            owner.uid.exactlyEquals(uid)
        else {
            throw FederateError(
                .userMismatch, "the credential does not belong to this user",
                context: AccountErrorContext(email: credential.email, pendingCredential: credential))
        }
        if let authenticatedAfter {
            guard provesSignIn(credential, after: authenticatedAfter) else {
                throw FederateError(
                    .requiresRecentLogin,
                    "the provider did not sign the user in again during the reauthentication (its auth_time is older than the flow, or absent)"
                )
            }
        }
        return try await signInExisting(owner, with: credential, now: now, authTime: Self.authTime(of: credential, now: now))
    }

    /// The user `uid`; `user_not_found` when absent.
    public func user(uid: String) async throws(FederateError) -> User {
        guard let user = try await storage.user(uid: uid) else { throw FederateError(.userNotFound, "no user with this uid") }
        return user
    }

    // MARK: Internals

    func activeUser(_ uid: String) async throws(FederateError) -> User {
        let user = try await user(uid: uid)
        guard !isExpiredGuest(user, now: clock.now) else { throw FederateError(.userNotFound, "the guest account expired") }
        guard !user.disabled else { throw FederateError(.userDisabled, "the user is disabled") }
        return user
    }

    /// When the user authenticated: the ID token's `auth_time` (or an OAuth 2.0 provider's
    /// freshness proof), never later than now; now when the credential has none.
    static func authTime(of credential: Credential, now: Date) -> Date {
        guard let authTime = credential.idToken?.authTime ?? credential.authenticatedAt else { return now }
        return min(authTime, now)
    }

    private func signInExisting(
        _ user: User, with credential: Credential, now: Date, authTime: Date
    ) async throws(FederateError) -> AuthResult {
        guard !user.disabled else { throw FederateError(.userDisabled, "the user is disabled") }
        let signedIn = try await storage.recordSignIn(of: user, with: ProviderIdentity(credential: credential, linkedAt: now), at: now)
        try await keepTokens(of: credential, uid: user.uid, replacing: user.identity(providerID: credential.providerID)?.plaintextTokens)
        return try await authResult(signedIn, credential: credential, isNewUser: false, authTime: authTime)
    }

    private func authResult(_ user: User, credential: Credential, isNewUser: Bool, authTime: Date) async throws(FederateError) -> AuthResult
    {
        let level = credential.idToken?.authenticationLevel
        let (session, token) = try await issueSession(
            uid: user.uid, authTime: authTime, provider: SessionProvider(credential: credential), acr: level?.acr, amr: level?.amr ?? [],
            authTimeProven: credential.provesAuthenticationTime)
        return AuthResult(
            user: user,
            additionalUserInfo: AdditionalUserInfo(providerID: credential.providerID, profile: credential.profile, isNewUser: isNewUser),
            credential: credential, session: session, sessionToken: token)
    }

    static func validate(_ credential: Credential) throws(FederateError) {
        guard !credential.providerID.isEmpty, !credential.subject.isEmpty else {
            throw FederateError(.invalidCredential, "a credential needs a provider ID and a subject")
        }
        guard credential.providerID.utf8.count <= 128, credential.subject.utf8.count <= 255 else {
            throw FederateError(.invalidCredential, "the provider ID or subject is too long")
        }
        // With a nonce, the ID token's `nonce` must be what the provider module said it is.
        if let expected = credential.nonceClaim, let idToken = credential.idToken {
            guard let nonce = idToken.nonce, ConstantTime.equals(nonce, expected) else {
                throw FederateError(.nonceMismatch, "the ID token's nonce does not match the credential's raw nonce")
            }
        }
    }

    static func accountExists(email: String, credential: Credential, owner: User?) -> FederateError {
        FederateError(
            .accountExistsWithDifferentCredential,
            // The message never names the account's providers: it may reach an anonymous caller.
            // The server, which knows whom it answers, has them in the context.
            "an account with this email exists: sign in with one of its providers, then link this one",
            context: AccountErrorContext(email: email, pendingCredential: credential, existingProviderIDs: owner?.providerIDs ?? []))
    }

    static func credentialInUse(_ credential: Credential, mergeTicket: String? = nil) -> FederateError {
        FederateError(
            .credentialAlreadyInUse, "this \(credential.providerID) identity belongs to another user",
            context: AccountErrorContext(email: credential.email, pendingCredential: credential, mergeTicket: mergeTicket))
    }

    /// Whether the provider signed the user in at or after `start` (a flow's start): the ID
    /// token's `auth_time` (or an OAuth 2.0 provider's freshness proof) no earlier than that
    /// instant minus the clock tolerance. A missing `auth_time` never is. The one rule of
    /// reauthentication and of a link that may absorb another account.
    func provesSignIn(_ credential: Credential, after start: Date) -> Bool {
        guard credential.provesAuthenticationTime, let authTime = credential.idToken?.authTime ?? credential.authenticatedAt else {
            return false
        }
        // `auth_time` is in whole seconds: compare with the flow's start rounded down.
        return authTime.timeIntervalSince1970 >= start.timeIntervalSince1970.rounded(.down) - configuration.clockTolerance.inSeconds
    }

    /// `credential_already_in_use` for a link by `linking` of an identity `owner` has, with a
    /// merge ticket naming both, issued to `session`.
    private func credentialInUse(
        _ credential: Credential, linking: String, owner: String, now: Date, authenticatedAfter: Date?, session: AccountSession?
    ) async throws(FederateError) -> FederateError {
        let issuedAt = Self.seconds(now)
        let fresh = authenticatedAfter.map { provesSignIn(credential, after: $0) } ?? false
        let ticket = MergeTicket(
            id: SecureRandom.token(), linkingUID: linking, ownerUID: owner, providerID: credential.providerID,
            subject: credential.subject, provesFreshSignIn: fresh,
            sessionID: session.flatMap { $0.uid.exactlyEquals(linking) ? $0.sessionID : nil } ?? "", issuedAt: issuedAt,
            expiresAt: SafeNumber.clampedInt64(Double(issuedAt) + configuration.mergeTicketLifetime.inSeconds))
        return Self.credentialInUse(credential, mergeTicket: try await mergeTickets.seal(ticket, now: now))
    }
}
