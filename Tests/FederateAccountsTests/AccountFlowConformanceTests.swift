import Federate
import Foundation
import Testing

extension AccountsTests {
    /// Sign-in, linking, reauthentication and unlinking: the same expectations on every store.
    @Suite("Accounts: flows (every store)")
    struct AccountFlowConformanceTests {
        /// A session's `auth_time` is when the user authenticated at the provider; a
        /// reauthentication flow must carry a provider sign-in from after its start.
        @Test(arguments: StoreKind.allCases)
        func reauthenticationNeedsAFreshProviderSignIn(kind: StoreKind) async throws {
            try await kind.withService { accounts, clock in
                let now = clock.now
                let ann = try await accounts.signIn(with: TestCredential.make("google.com", "g-ann"))
                let uid = ann.user.uid
                // A sign-in on a two-hour-old provider session is a two-hour-old sign-in.
                let old = try await accounts.signIn(
                    with: try await TestCredential.withIDToken("google.com", "g-ann", authTime: now.addingTimeInterval(-7200), now: now))
                let oldSession = try #require(old.session)
                #expect(oldSession.authTime == now.addingTimeInterval(-7200))
                await expectError(.requiresRecentLogin) { try accounts.requireRecentLogin(oldSession) }
                // Reauthentication with a provider sign-in from before the flow, or with none: refused.
                let flowStart = now.addingTimeInterval(-10)
                await expectError(.requiresRecentLogin) {
                    try await accounts.reauthenticate(
                        uid,
                        with: try await TestCredential.withIDToken("google.com", "g-ann", authTime: now.addingTimeInterval(-100), now: now),
                        authenticatedAfter: flowStart)
                }
                await expectError(.requiresRecentLogin) {
                    try await accounts.reauthenticate(uid, with: TestCredential.make("google.com", "g-ann"), authenticatedAfter: flowStart)
                }
                // Within the clock tolerance (5 s) of the flow's start, or after it: accepted.
                let fresh = try await accounts.reauthenticate(
                    uid,
                    with: try await TestCredential.withIDToken("google.com", "g-ann", authTime: flowStart.addingTimeInterval(-4), now: now),
                    authenticatedAfter: flowStart)
                let session = try #require(fresh.session)
                #expect(session.authTime == flowStart.addingTimeInterval(-4))
                try accounts.requireRecentLogin(session)
            }
        }

        /// Only verified emails count toward one account per email: an unverified address never
        /// blocks, joins or reveals an account, and the verified owner signs in regardless.
        @Test(arguments: StoreKind.allCases)
        func onlyVerifiedEmailsCount(kind: StoreKind) async throws {
            try await kind.withService { accounts, _ in
                // Eve's provider asserts the victim's address without verifying it; she signs in first.
                let eve = try await accounts.signIn(
                    with: TestCredential.make("oidc.loose", "eve", email: "victim@example.com", verified: false))
                #expect(eve.user.emailVerified == false)
                #expect(try await accounts.store.users(email: "victim@example.com").isEmpty)
                // The verified owner is not refused, not told about Eve, and gets an account of her own.
                let victim = try await accounts.signIn(with: TestCredential.make("google.com", "victim", email: "Victim@Example.com"))
                #expect(victim.additionalUserInfo.isNewUser && victim.user.uid != eve.user.uid)
                #expect(try await accounts.store.users(email: "victim@example.com").map(\.uid) == [victim.user.uid])
                // Another unverified assertion of the address still creates no conflict and joins nothing.
                let mallory = try await accounts.signIn(
                    with: TestCredential.make("oidc.loose", "mallory", email: "victim@example.com", verified: false))
                #expect(mallory.user.uid != victim.user.uid && mallory.user.uid != eve.user.uid)
                // Eve links a verified-less credential with the address: no email_already_in_use either.
                _ = try await accounts.link(
                    eve.user.uid, with: TestCredential.make("oidc.other", "eve-2", email: "victim@example.com", verified: false))
                // A second verified identity with the address is told to sign in and link, without the providers.
                let refused = await expectError(.accountExistsWithDifferentCredential) {
                    try await accounts.signIn(with: TestCredential.make("apple.com", "victim-apple", email: "victim@example.com"))
                }
                #expect(refused?.message.contains("google.com") == false)
                #expect(refused?.accountContext?.existingProviderIDs == ["google.com"])
            }
        }

        /// Link (adopting an email), disable, revokeSessions and updateEmail racing on one user:
        /// each writes only its own columns, so none undoes another (writing back a whole row
        /// read earlier did).
        @Test(arguments: StoreKind.allCases)
        func concurrentAccountWritesLoseNothing(kind: StoreKind) async throws {
            try await kind.withService { accounts, _ in
                for round in 0..<8 {
                    let signedIn = try await accounts.signIn(with: TestCredential.make("oidc.a", "user-\(round)"))
                    let uid = signedIn.user.uid
                    let session = try #require(signedIn.session)
                    async let link: Bool = {
                        do {
                            _ = try await accounts.link(
                                uid, with: TestCredential.make("oidc.b", "b-\(round)", email: "u\(round)@example.com"))
                            return true
                        } catch let error as FederateError where error.code == .userDisabled {
                            return false  // the disable came first: refused, which is right
                        }
                    }()
                    async let disable: Void = accounts.disable(uid: uid)
                    async let revoke: Void = accounts.revokeSessions(uid: uid)
                    async let email: Void = {
                        do {
                            _ = try await accounts.updateEmail(session, to: "other\(round)@example.com")
                        } catch let error as FederateError where error.code == .userDisabled {
                            // The disable came first: refused, which is right.
                        }
                    }()
                    let (linked, _, _, _) = try await (link, disable, revoke, email)
                    let user = try await accounts.user(uid: uid)
                    #expect(user.disabled, "round \(round): the disable was lost")
                    #expect(user.tokensValidAfter != nil, "round \(round): the revocation was lost")
                    #expect(user.providerIDs.sorted() == (linked ? ["oidc.a", "oidc.b"] : ["oidc.a"]), "round \(round): the link was lost")
                }
            }
        }

        @Test(arguments: StoreKind.allCases)
        func signInCreatesThenReturns(kind: StoreKind) async throws {
            try await kind.withService { accounts, clock in
                let first = try await accounts.signIn(
                    with: TestCredential.make("google.com", "g-1", email: "Ann@Example.com", name: "Ann", username: "ann"))
                #expect(first.additionalUserInfo.isNewUser)
                #expect(first.additionalUserInfo.providerID == "google.com")
                #expect(first.additionalUserInfo.username == "ann")
                #expect(first.additionalUserInfo.profile.displayName == "Ann")
                #expect(first.user.email == "Ann@Example.com")
                #expect(first.user.displayName == "Ann")
                #expect(first.user.providerIDs == ["google.com"])
                #expect(first.user.createdAt == clock.now)
                let session = try #require(first.session)
                #expect(session.uid == first.user.uid)
                #expect(session.authTime == clock.now)

                clock.advance(by: .seconds(60))
                let second = try await accounts.signIn(
                    with: TestCredential.make("google.com", "g-1", email: "ann@example.com", accessToken: "at-2", refreshToken: "rt-2"))
                #expect(!second.additionalUserInfo.isNewUser)
                #expect(second.user.uid == first.user.uid)
                #expect(second.user.lastSignInAt == clock.now)

                let stored = try await accounts.user(uid: first.user.uid)
                #expect(stored.lastSignInAt == clock.now)
                #expect(stored.createdAt == first.user.createdAt)
                #expect(stored.identities.count == 1)
                #expect(stored.identities.first?.plaintextTokens.isEmpty == true, "no token on the identity's row")
                #expect(stored.identities.first?.linkedAt == first.user.createdAt)
            }
        }

        /// The store's returning sign-in answers the user exactly as it then stores them, keeps
        /// what the sign-in does not replace, records nothing for a disabled user, and finds
        /// no look-alike identity.
        @Test(arguments: StoreKind.allCases)
        func returningSignInAnswersWhatItStores(kind: StoreKind) async throws {
            try await kind.withService { accounts, clock in
                let store = accounts.store
                let ann = try await accounts.signIn(
                    with: TestCredential.make("google.com", "g-1", email: "ann@example.com", name: "Ann", refreshToken: "rt-1"))
                _ = try await accounts.link(ann.user.uid, with: TestCredential.make("apple.com", "a-1", refreshToken: "apple-rt"))
                let before = try await accounts.user(uid: ann.user.uid)
                let linkedAt = try #require(before.identity(providerID: "google.com")).linkedAt
                let date = clock.now.addingTimeInterval(90.5)
                func latest(_ subject: String = "g-1", refreshToken: String?) -> ProviderIdentity {
                    ProviderIdentity(
                        credential: TestCredential.make(
                            "google.com", subject, email: "ann@new.example", verified: false, name: "Ann B",
                            username: "annb", accessToken: "at-new", refreshToken: refreshToken),
                        linkedAt: date)
                }

                // Without a refresh token: the stored one stays; so does the date of the link.
                let signedIn = try #require(try await store.recordReturningSignIn(latest(refreshToken: nil), at: date))
                #expect(signedIn == (try await accounts.user(uid: ann.user.uid)), "the answer is what the store now holds")
                #expect(signedIn.lastSignInAt == date)
                let google = try #require(signedIn.identity(providerID: "google.com"))
                #expect(google.plaintextTokens.isEmpty)
                #expect(google.linkedAt == linkedAt)
                #expect(google.email == "ann@new.example" && !google.emailVerified)
                #expect(google.profile.displayName == "Ann B" && google.profile.username == "annb")
                #expect(
                    signedIn.identity(providerID: "apple.com") == before.identity(providerID: "apple.com"), "another identity is untouched")
                #expect(signedIn.email == before.email && signedIn.displayName == before.displayName, "the user's own fields are untouched")

                // Again: the same.
                let again = try #require(try await store.recordReturningSignIn(latest(refreshToken: "rt-2"), at: date))
                #expect(again == (try await accounts.user(uid: ann.user.uid)))

                // No owner, or only a look-alike one: nil, and nothing is written.
                #expect(try await store.recordReturningSignIn(latest("g-2", refreshToken: nil), at: date) == nil)
                #expect(try await store.recordReturningSignIn(latest("g\u{2011}1", refreshToken: nil), at: date) == nil)
                #expect(try await store.user(providerID: "google.com", subject: "g-2") == nil)

                // A disabled user is answered as found, and nothing is recorded.
                try await accounts.disable(uid: ann.user.uid)
                let disabled = try await accounts.user(uid: ann.user.uid)
                let found = try #require(
                    try await store.recordReturningSignIn(latest(refreshToken: "rt-3"), at: date.addingTimeInterval(60)))
                #expect(found.disabled)
                #expect(found == disabled)
                #expect(try await accounts.user(uid: ann.user.uid) == disabled)
            }
        }

        /// The store's one-step sign-in creates the new user when no one owns the identity,
        /// signs the owner in again otherwise (as the returning sign-in does), answers a disabled
        /// owner as found, and writes nothing when the new user's email is another account's.
        @Test(arguments: StoreKind.allCases)
        func oneStepSignInCreatesOrSignsInAgain(kind: StoreKind) async throws {
            try await kind.withService { accounts, clock in
                let store = accounts.store
                let date = clock.now.addingTimeInterval(30.25)
                func newUser(_ uid: String, _ subject: String, email: String?) -> User {
                    let identity = ProviderIdentity(
                        credential: TestCredential.make("google.com", subject, email: email, name: "Bo"), linkedAt: date)
                    return User(
                        uid: uid, email: email, emailVerified: email != nil, displayName: "Bo", photoURL: nil, createdAt: date,
                        lastSignInAt: date, identities: [identity])
                }

                // A new identity: the user, exactly as given.
                let bo = newUser("uid-bo", "g-bo", email: "bo@example.com")
                guard case .created = try await store.recordSignIn(bo.identities[0], at: date, orCreate: bo) else {
                    Issue.record("a new identity makes a new user")
                    return
                }
                #expect(try await store.user(providerID: "google.com", subject: "g-bo") == bo)

                // The same identity again, offered another new user: the owner signs in again.
                let later = date.addingTimeInterval(60)
                let latest = ProviderIdentity(
                    credential: TestCredential.make("google.com", "g-bo", email: "bo@example.com", name: "Bo B"), linkedAt: later)
                let other = User(
                    uid: "uid-other", email: nil, emailVerified: false, displayName: nil, photoURL: nil, createdAt: later,
                    lastSignInAt: later, identities: [latest])
                guard case .returning(let again) = try await store.recordSignIn(latest, at: later, orCreate: other) else {
                    Issue.record("a returning identity signs in again")
                    return
                }
                #expect(again.uid == "uid-bo" && again.lastSignInAt == later)
                #expect(again.identity(providerID: "google.com")?.profile.displayName == "Bo B")
                #expect(again == (try await store.user(uid: "uid-bo")), "the answer is what the store now holds")
                #expect(try await store.user(uid: "uid-other") == nil, "the other new user is not created")

                // Another new identity whose verified email is Bo's: refused, nothing written.
                let copy = newUser("uid-copy", "g-copy", email: "BO@example.com")
                _ = await expectError(.emailAlreadyInUse) { _ = try await store.recordSignIn(copy.identities[0], at: date, orCreate: copy) }
                #expect(try await store.user(uid: "uid-copy") == nil)
                #expect(try await store.user(providerID: "google.com", subject: "g-copy") == nil)

                // A new user whose identity is not the one signing in: refused.
                let mismatched = newUser("uid-m", "g-m", email: nil)
                _ = await expectError(.accountStoreFailed) {
                    _ = try await store.recordSignIn(copy.identities[0], at: date, orCreate: mismatched)
                }
                #expect(try await store.user(uid: "uid-m") == nil)

                // A disabled owner: found, nothing recorded.
                try await accounts.disable(uid: "uid-bo")
                let disabled = try await store.user(uid: "uid-bo")
                guard case .returning(let found) = try await store.recordSignIn(latest, at: later.addingTimeInterval(60), orCreate: other)
                else {
                    Issue.record("a disabled owner is found")
                    return
                }
                #expect(found.disabled && found == disabled)
                #expect(try await store.user(uid: "uid-bo") == disabled)
            }
        }

        @Test(arguments: StoreKind.allCases)
        func oneAccountPerEmailAndItsResolution(kind: StoreKind) async throws {
            try await kind.withService { accounts, _ in
                let ann = try await accounts.signIn(with: TestCredential.make("google.com", "g-1", email: "ann@example.com"))
                let pending = TestCredential.make("oidc.corp", "c-1", email: "ANN@example.com ")
                let error = await expectError(.accountExistsWithDifferentCredential) { try await accounts.signIn(with: pending) }
                #expect(error?.accountContext?.email == "ANN@example.com ")
                #expect(error?.accountContext?.pendingCredential?.providerID == "oidc.corp")
                #expect(error?.accountContext?.pendingCredential?.subject == "c-1")
                #expect(error?.accountContext?.existingProviderIDs == ["google.com"])
                #expect(error?.description.contains("ann@") == false, "messages leave the email out")

                // Resolution: sign in with the existing provider, then link the pending credential.
                let again = try await accounts.signIn(with: TestCredential.make("google.com", "g-1", email: "ann@example.com"))
                let credential = try #require(error?.accountContext?.pendingCredential)
                let linked = try await accounts.link(again.user.uid, with: credential)
                #expect(linked.user.providerIDs == ["google.com", "oidc.corp"])
                #expect(linked.session == nil)
                let viaCorp = try await accounts.signIn(with: pending)
                #expect(viaCorp.user.uid == ann.user.uid)
                #expect(!viaCorp.additionalUserInfo.isNewUser)
            }
        }

        @Test(arguments: StoreKind.allCases)
        func withoutTheEmailPolicyOneEmailCanHaveTwoAccounts(kind: StoreKind) async throws {
            try await kind.withService(oneAccountPerEmail: false) { accounts, _ in
                let first = try await accounts.signIn(with: TestCredential.make("google.com", "g-1", email: "ann@example.com"))
                let second = try await accounts.signIn(with: TestCredential.make("oidc.corp", "c-1", email: "ann@example.com"))
                #expect(first.user.uid != second.user.uid)
                #expect(second.additionalUserInfo.isNewUser)
                #expect(try await accounts.store.users(email: "ANN@example.com").count == 2)
            }
        }

        @Test(arguments: StoreKind.allCases)
        func linkErrors(kind: StoreKind) async throws {
            try await kind.withService { accounts, _ in
                let ann = try await accounts.signIn(with: TestCredential.make("google.com", "g-ann", email: "ann@example.com")).user
                _ = try await accounts.signIn(with: TestCredential.make("google.com", "g-bob", email: "bob@example.com"))

                // Bob's identity is Bob's.
                let inUse = await expectError(.credentialAlreadyInUse) {
                    try await accounts.link(ann.uid, with: TestCredential.make("google.com", "g-bob", email: "bob@example.com"))
                }
                #expect(inUse?.accountContext?.pendingCredential?.subject == "g-bob")
                // Ann's own identity again, and a second Google identity.
                await expectError(.providerAlreadyLinked) {
                    try await accounts.link(ann.uid, with: TestCredential.make("google.com", "g-ann"))
                }
                await expectError(.providerAlreadyLinked) {
                    try await accounts.link(ann.uid, with: TestCredential.make("google.com", "g-other"))
                }
                // A new identity whose email is Bob's.
                let emailInUse = await expectError(.emailAlreadyInUse) {
                    try await accounts.link(ann.uid, with: TestCredential.make("apple.com", "a-1", email: "BOB@example.com"))
                }
                #expect(emailInUse?.accountContext?.email == "BOB@example.com")
                #expect(emailInUse?.accountContext?.pendingCredential?.providerID == "apple.com")
                // Unknown user, empty subject.
                await expectError(.userNotFound) { try await accounts.link("nobody", with: TestCredential.make("apple.com", "a-2")) }
                await expectError(.invalidCredential) { try await accounts.link(ann.uid, with: TestCredential.make("apple.com", "")) }
                await expectError(.invalidCredential) { try await accounts.signIn(with: TestCredential.make("", "x")) }

                // Nothing above changed Ann.
                #expect(try await accounts.user(uid: ann.uid).providerIDs == ["google.com"])
                // A link with Ann's own email, or none, works.
                let linked = try await accounts.link(
                    ann.uid, with: TestCredential.make("apple.com", "a-1", email: "ann@example.com", refreshToken: "apple-rt"))
                #expect(linked.user.providerIDs == ["google.com", "apple.com"])
                #expect(linked.additionalUserInfo.providerID == "apple.com")
                #expect(!linked.additionalUserInfo.isNewUser)
            }
        }

        @Test(arguments: StoreKind.allCases)
        func linkAdoptsAnEmailWhenTheUserHasNone(kind: StoreKind) async throws {
            try await kind.withService { accounts, _ in
                let user = try await accounts.signIn(with: TestCredential.make("oidc.anon", "x-1")).user
                #expect(user.email == nil)
                let linked = try await accounts.link(
                    user.uid, with: TestCredential.make("google.com", "g-1", email: "cat@example.com", name: "Cat"))
                #expect(linked.user.email == "cat@example.com")
                let stored = try await accounts.user(uid: user.uid)
                #expect(stored.email == "cat@example.com")
                #expect(stored.emailVerified)
                #expect(stored.displayName == "Cat")
            }
        }

        @Test(arguments: StoreKind.allCases)
        func reauthenticate(kind: StoreKind) async throws {
            try await kind.withService { accounts, clock in
                let ann = try await accounts.signIn(with: TestCredential.make("google.com", "g-ann", email: "ann@example.com"))
                _ = try await accounts.signIn(with: TestCredential.make("google.com", "g-bob", email: "bob@example.com"))
                clock.advance(by: .seconds(3600))

                let mismatch = await expectError(.userMismatch) {
                    try await accounts.reauthenticate(ann.user.uid, with: TestCredential.make("google.com", "g-bob"))
                }
                #expect(mismatch?.accountContext?.pendingCredential?.subject == "g-bob")
                await expectError(.userMismatch) {
                    try await accounts.reauthenticate(ann.user.uid, with: TestCredential.make("apple.com", "unknown"))
                }
                await expectError(.userNotFound) {
                    try await accounts.reauthenticate("nobody", with: TestCredential.make("google.com", "g-ann"))
                }

                let fresh = try await accounts.reauthenticate(ann.user.uid, with: TestCredential.make("google.com", "g-ann"))
                let session = try #require(fresh.session)
                #expect(session.authTime == clock.now)
                #expect(fresh.user.lastSignInAt == clock.now)
                #expect(try await accounts.user(uid: ann.user.uid).lastSignInAt == clock.now)
                let verified = try await accounts.verifySession(try #require(fresh.sessionToken))
                #expect(verified == session)
                try accounts.requireRecentLogin(verified)
            }
        }

        @Test(arguments: StoreKind.allCases)
        func unlink(kind: StoreKind) async throws {
            try await kind.withService { accounts, clock in
                let ann = try await accounts.signIn(with: TestCredential.make("google.com", "g-ann", email: "ann@example.com"))
                let session = try #require(ann.session)
                await expectError(.lastProvider) { try await accounts.unlink(session, providerID: "google.com") }
                await expectError(.noSuchProvider) { try await accounts.unlink(session, providerID: "apple.com") }
                _ = try await accounts.link(ann.user.uid, with: TestCredential.make("apple.com", "a-ann"))

                clock.advance(by: .seconds(301))
                await expectError(.requiresRecentLogin) { try await accounts.unlink(session, providerID: "apple.com") }
                #expect(try await accounts.user(uid: ann.user.uid).providerIDs == ["google.com", "apple.com"])

                let fresh = try #require(
                    try await accounts.reauthenticate(ann.user.uid, with: TestCredential.make("google.com", "g-ann")).session)
                let after = try await accounts.unlink(fresh, providerID: "apple.com")
                #expect(after.providerIDs == ["google.com"])
                await expectError(.lastProvider) { try await accounts.unlink(fresh, providerID: "google.com") }

                // The unlinked identity is free again: it signs in to a new user.
                let other = try await accounts.signIn(with: TestCredential.make("apple.com", "a-ann"))
                #expect(other.additionalUserInfo.isNewUser)
                #expect(other.user.uid != ann.user.uid)
            }
        }

        @Test(arguments: StoreKind.allCases)
        func updateEmail(kind: StoreKind) async throws {
            try await kind.withService { accounts, clock in
                let ann = try #require(
                    try await accounts.signIn(with: TestCredential.make("google.com", "g-ann", email: "ann@example.com")).session)
                let bob = try await accounts.signIn(with: TestCredential.make("google.com", "g-bob", email: "bob@example.com"))
                // A new email is unverified: it claims nothing, so even Bob's address is no conflict,
                // and Bob stays the one owner of his verified address.
                let claimed = try await accounts.updateEmail(ann, to: "Bob@Example.com")
                #expect(claimed.email == "Bob@Example.com" && !claimed.emailVerified)
                #expect(try await accounts.store.users(email: "bob@example.com").map(\.uid) == [bob.user.uid])
                let updated = try await accounts.updateEmail(ann, to: "ann@new.example")
                #expect(updated.email == "ann@new.example")
                #expect(!updated.emailVerified)
                #expect(try await accounts.user(uid: ann.uid).email == "ann@new.example")
                #expect(try await accounts.store.users(email: "ANN@new.example").isEmpty)
                clock.advance(by: .seconds(600))
                await expectError(.requiresRecentLogin) { try await accounts.updateEmail(ann, to: "ann@later.example") }
            }
        }

        @Test(arguments: StoreKind.allCases)
        func deleteReturnsTheTokensToRevoke(kind: StoreKind) async throws {
            try await kind.withService(providerTokens: try TokensAtRestTests.vault()) { accounts, clock in
                let ann = try await accounts.signIn(
                    with: TestCredential.make(
                        "apple.com", "a-ann", email: "ann@example.com", accessToken: "apple-at", refreshToken: "apple-rt"))
                _ = try await accounts.link(ann.user.uid, with: TestCredential.make("oidc.plain", "p-ann", accessToken: nil))
                let token = try #require(ann.sessionToken)
                let session = try await accounts.verifySession(token)

                clock.advance(by: .seconds(400))
                await expectError(.requiresRecentLogin) { try await accounts.delete(session) }
                let fresh = try #require(
                    try await accounts.reauthenticate(
                        ann.user.uid, with: TestCredential.make("apple.com", "a-ann", accessToken: "apple-at-2")
                    ).session)
                let revocable = try await accounts.delete(fresh)
                #expect(
                    revocable == [
                        RevocableTokens(
                            providerID: "apple.com", subject: "a-ann",
                            tokens: ProviderTokens(accessToken: "apple-at-2", refreshToken: "apple-rt"))
                    ])
                #expect(!revocable.description.contains("apple-rt"))

                await expectError(.userNotFound) { try await accounts.user(uid: ann.user.uid) }
                await expectError(.userNotFound) { try await accounts.verifySession(token) }
                await expectError(.userNotFound) { try await accounts.deleteUser(uid: ann.user.uid) }
                #expect(try await accounts.store.user(providerID: "apple.com", subject: "a-ann") == nil)
                // Identity and email are free again.
                #expect(
                    try await accounts.signIn(with: TestCredential.make("oidc.plain", "p-ann", email: "ann@example.com")).additionalUserInfo
                        .isNewUser)
            }
        }

        @Test(arguments: StoreKind.allCases)
        func disableAndEnable(kind: StoreKind) async throws {
            try await kind.withService { accounts, _ in
                let ann = try await accounts.signIn(with: TestCredential.make("google.com", "g-ann"))
                let token = try #require(ann.sessionToken)
                try await accounts.disable(uid: ann.user.uid)
                #expect(try await accounts.user(uid: ann.user.uid).disabled)
                await expectError(.userDisabled) { try await accounts.signIn(with: TestCredential.make("google.com", "g-ann")) }
                await expectError(.userDisabled) { try await accounts.verifySession(token) }
                await expectError(.userDisabled) { try await accounts.link(ann.user.uid, with: TestCredential.make("apple.com", "a")) }
                await expectError(.userDisabled) {
                    try await accounts.reauthenticate(ann.user.uid, with: TestCredential.make("google.com", "g-ann"))
                }
                _ = try await accounts.verifySession(token, checkRevoked: false)
                try await accounts.enable(uid: ann.user.uid)
                _ = try await accounts.verifySession(token)
                _ = try await accounts.signIn(with: TestCredential.make("google.com", "g-ann"))
                await expectError(.userNotFound) { try await accounts.disable(uid: "nobody") }
            }
        }

        @Test(arguments: StoreKind.allCases)
        func concurrentFirstSignInsOfOneIdentityMakeOneUser(kind: StoreKind) async throws {
            try await kind.withService { accounts, _ in
                let results = try await withThrowingTaskGroup(of: AuthResult.self) { group in
                    for _ in 0..<6 {
                        group.addTask {
                            try await accounts.signIn(with: TestCredential.make("oidc.race", "same", email: "race@example.com"))
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(Set(results.map(\.user.uid)).count == 1)
                #expect(results.filter(\.additionalUserInfo.isNewUser).count == 1)
            }
        }

        @Test(arguments: StoreKind.allCases)
        func descriptionsAreRedacted(kind: StoreKind) async throws {
            try await kind.withService { accounts, _ in
                let credential = TestCredential.make(
                    "google.com", "g-1", email: "ann@example.com", accessToken: "SECRET-AT", refreshToken: "SECRET-RT")
                let result = try await accounts.signIn(with: credential)
                let user = try await accounts.user(uid: result.user.uid)
                let token = try #require(result.sessionToken)
                for text in [
                    credential.description, result.description, user.description, String(describing: user.identities),
                    "\(credential.tokens)",
                ] {
                    #expect(!text.contains("SECRET"), "\(text)")
                    #expect(!text.contains(token))
                }
                let keys = try await accounts.store.sessionKeys()
                #expect(keys.count == 1)
                #expect(!keys.description.contains(keys[0].privateKey.map { String($0) }.joined(separator: ", ")))
            }
        }
    }
}
