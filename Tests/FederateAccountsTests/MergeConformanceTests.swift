import Federate
import FederateTestSupport
import Foundation
import Synchronization
import Testing
@testable import FederateAccounts

extension AccountsTests {
    /// Merging two accounts after `credential_already_in_use`: the ticket, its requirements,
    /// the one transaction, the application's hook, and the races — the same on every store.
    @Suite("Accounts: merge (every store)")
    struct MergeConformanceTests {
        /// The merges the hook was called with.
        final class Hook: Sendable {
            let calls = Mutex<[AccountMerge]>([])
            let failures = Mutex(0)

            func callAsFunction(_ merge: AccountMerge) async throws {
                let fail = failures.withLock { failures -> Bool in
                    guard failures > 0 else { return false }
                    failures -= 1
                    return true
                }
                if fail { throw FederateError(.accountStoreFailed, "the application's own database is down") }
                calls.withLock { $0.append(merge) }
            }
        }

        static func service(_ store: any AccountStorage, clock: TestClock, hook: Hook? = nil) -> AccountService {
            var onMerge: AccountMergeHook?
            if let hook { onMerge = { merge in try await hook(merge) } }
            return AccountService(store: store, clock: clock.clock, onMerge: onMerge)
        }

        static func withMergeService<T>(_ kind: StoreKind, _ body: (AccountService, TestClock, Hook) async throws -> T) async throws -> T {
            try await kind.withStore { store in
                let clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
                let hook = Hook()
                return try await body(service(store, clock: clock, hook: hook), clock, hook)
            }
        }

        /// A link by `session`'s account refused with `credential_already_in_use`, as the server
        /// makes it (the flow started at `flowStart`); its merge ticket.
        static func refusedLink(
            _ accounts: AccountService, _ session: AccountSession, with credential: Credential, flowStart: Date? = nil
        ) async throws -> String {
            let refused = await expectError(.credentialAlreadyInUse) {
                try await accounts.link(session.uid, with: credential, authenticatedAfter: flowStart, session: session)
            }
            return try #require(refused?.accountContext?.mergeTicket)
        }

        /// The browser's story: a guest links a credential that already has an account, gets the
        /// ticket, signs in with the credential, and merges itself into that account.
        @Test(arguments: StoreKind.allCases)
        func aGuestIsMergedIntoTheCredentialsAccount(kind: StoreKind) async throws {
            try await Self.withMergeService(kind) { accounts, _, hook in
                let owner = try await accounts.signIn(with: TestCredential.make("oidc.dev", "alice", email: "alice@example.com"))
                let guest = try await accounts.signInAsGuest()
                let refused = await expectError(.credentialAlreadyInUse) {
                    try await accounts.link(guest.user.uid, with: TestCredential.make("oidc.dev", "alice"), session: guest.session)
                }
                let issued = try #require(refused?.accountContext?.mergeTicket)
                #expect(!issued.contains(owner.user.uid) && !issued.contains(guest.user.uid), "the ticket is sealed, not signed")
                #expect(refused?.description.contains(issued) == false)
                // Signing in with the credential is a recent sign-in on the account that stays; the
                // browser's ticket goes with it to the new session (the server moves it).
                let signedIn = try await accounts.signIn(with: TestCredential.make("oidc.dev", "alice"))
                let target = try await accounts.verifySession(try #require(signedIn.sessionToken))
                await expectError(.invalidMergeTicket) { try await accounts.merge(ticket: issued, into: target) }
                let ticket = try #require(await accounts.moveMergeTicket(issued, from: guest.session, to: target))
                #expect(
                    await accounts.moveMergeTicket(issued, from: target, to: guest.session) == nil, "only from the session it was issued to"
                )
                let merge = try await accounts.merge(ticket: ticket, into: target)
                #expect(merge.sourceUID == guest.user.uid && merge.targetUID == owner.user.uid)
                #expect(hook.calls.withLock { $0 } == [merge])
                #expect(try await accounts.store.pendingMerges().isEmpty)
                await expectError(.userNotFound) { try await accounts.user(uid: guest.user.uid) }
                await expectError(.userNotFound) { try await accounts.verifySession(guest.sessionToken) }
                #expect(try await accounts.user(uid: owner.user.uid).providerIDs == ["oidc.dev"])
                // A ticket is single use: a replay is a bad ticket (400), never "no such user" (401).
                await expectError(.invalidMergeTicket) { try await accounts.merge(ticket: ticket, into: target) }
            }
        }

        /// A full account links a credential that another full account holds: after signing in
        /// again, it merges the other account into itself and holds both providers.
        @Test(arguments: StoreKind.allCases)
        func theCredentialsAccountIsMergedIntoTheLinkingOne(kind: StoreKind) async throws {
            try await Self.withMergeService(kind) { accounts, clock, hook in
                let ann = try await accounts.signIn(with: TestCredential.make("google.com", "ann"))
                let old = try await accounts.signIn(with: TestCredential.make("oidc.corp", "ann-at-corp", refreshToken: "rt"))
                let oldSession = try await accounts.verifySession(try #require(old.sessionToken))
                try await accounts.signOut(oldSession)
                // The link's flow started now, and corp signed Ann in during it.
                let flowStart = clock.now
                let stale = try await accounts.verifySession(try #require(ann.sessionToken))
                let ticket = try await Self.refusedLink(
                    accounts, stale,
                    with: try await TestCredential.withIDToken("oidc.corp", "ann-at-corp", authTime: flowStart, now: flowStart),
                    flowStart: flowStart)
                // The account that linked stays; its session must be recent.
                clock.advance(by: .seconds(400))
                await expectError(.requiresRecentLogin) { try await accounts.merge(ticket: ticket, into: stale) }
                // The credential's account is a full one: it is not merged on the strength of the link's session,
                // even with the ticket carried to one of its sessions.
                let corpSignIn = try await accounts.signIn(with: TestCredential.make("oidc.corp", "ann-at-corp"))
                let corp = try #require(corpSignIn.session)
                let carried = try #require(await accounts.moveMergeTicket(ticket, from: stale, to: corp))
                await expectError(.mergeSourceNotGuest) { try await accounts.merge(ticket: carried, into: corp) }
                // Ann signs in again (a new session): the ticket goes with her.
                let fresh = try #require(
                    try await accounts.reauthenticate(ann.user.uid, with: TestCredential.make("google.com", "ann")).session)
                await expectError(.invalidMergeTicket) { try await accounts.merge(ticket: ticket, into: fresh) }
                let merge = try await accounts.merge(
                    ticket: try #require(await accounts.moveMergeTicket(ticket, from: stale, to: fresh)), into: fresh)
                #expect(merge.sourceUID == old.user.uid && merge.targetUID == ann.user.uid)
                #expect(try await accounts.user(uid: ann.user.uid).providerIDs == ["google.com", "oidc.corp"])
                #expect(try await accounts.store.user(providerID: "oidc.corp", subject: "ann-at-corp")?.uid == ann.user.uid)
                // The source's sessions stop verifying, its sign-outs are forgotten; the hook moved its data.
                await expectError(.userNotFound) { try await accounts.verifySession(try #require(corpSignIn.sessionToken)) }
                #expect(hook.calls.withLock { $0.map(\.sourceUID) } == [old.user.uid])
                #expect(try await accounts.store.isSessionRevoked(id: oldSession.sessionID) == false, "the source's records are gone")
                // Signing in with the corp identity now lands in Ann's account.
                #expect(try await accounts.signIn(with: TestCredential.make("oidc.corp", "ann-at-corp")).user.uid == ann.user.uid)
            }
        }

        @Test(arguments: StoreKind.allCases)
        func aTicketIsRefusedWhenItIsNotThisAccountsExpiredOrTampered(kind: StoreKind) async throws {
            try await Self.withMergeService(kind) { accounts, clock, _ in
                _ = try await accounts.signIn(with: TestCredential.make("oidc.dev", "owner"))
                let guest = try await accounts.signInAsGuest()
                let ticket = try await Self.refusedLink(accounts, guest.session, with: TestCredential.make("oidc.dev", "owner"))
                // A link made without a session gives a ticket that merges nothing.
                let unbound = await expectError(.credentialAlreadyInUse) {
                    try await accounts.link(guest.user.uid, with: TestCredential.make("oidc.dev", "owner"))
                }
                let anySession = try #require(try await accounts.signIn(with: TestCredential.make("oidc.dev", "owner")).session)
                await expectError(.invalidMergeTicket) {
                    try await accounts.merge(ticket: try #require(unbound?.accountContext?.mergeTicket), into: anySession)
                }
                // Another account's session.
                let stranger = try await accounts.signIn(with: TestCredential.make("google.com", "stranger"))
                let strangerSession = try #require(stranger.session)
                await expectError(.invalidMergeTicket) { try await accounts.merge(ticket: ticket, into: strangerSession) }
                // Tampered, truncated, another format, huge.
                var bytes = Array(ticket.utf8)
                bytes[bytes.count - 5] = bytes[bytes.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
                let owner = try #require(try await accounts.signIn(with: TestCredential.make("oidc.dev", "owner")).session)
                for bad in [
                    String(decoding: bytes, as: UTF8.self), String(ticket.dropLast(3)), "mt2..", "mt1" + ticket.dropFirst(3),
                    "mt3" + ticket.dropFirst(3),
                    String(repeating: "a", count: 10_000), "",
                ] {
                    await expectError(.invalidMergeTicket) { try await accounts.merge(ticket: bad, into: owner) }
                }
                // Into a guest: a guest's session is never recent.
                await expectError(.requiresRecentLogin) { try await accounts.merge(ticket: ticket, into: guest.session) }
                // Expired, even carried to the owner's session.
                clock.advance(by: .seconds(601))
                let later = try #require(try await accounts.signIn(with: TestCredential.make("oidc.dev", "owner")).session)
                #expect(await accounts.moveMergeTicket(ticket, from: guest.session, to: later) == nil)
                await expectError(.invalidMergeTicket) { try await accounts.merge(ticket: ticket, into: later) }
                #expect(try await accounts.user(uid: guest.user.uid).isGuest, "nothing changed")
            }
        }

        @Test(arguments: StoreKind.allCases)
        func aProviderOnBothSidesRefusesTheWholeMerge(kind: StoreKind) async throws {
            try await Self.withMergeService(kind) { accounts, _, hook in
                let ann = try await accounts.signIn(with: TestCredential.make("google.com", "ann-1"))
                let other = try await accounts.signIn(with: TestCredential.make("oidc.corp", "ann-corp"))
                _ = try await accounts.link(other.user.uid, with: TestCredential.make("google.com", "ann-2"))
                let annSession = try #require(ann.session), now = annSession.authTime
                let ticket = try await Self.refusedLink(
                    accounts, annSession, with: try await TestCredential.withIDToken("oidc.corp", "ann-corp", authTime: now, now: now),
                    flowStart: now)
                await expectError(.providerAlreadyLinked) { try await accounts.merge(ticket: ticket, into: annSession) }
                #expect(try await accounts.user(uid: other.user.uid).providerIDs == ["oidc.corp", "google.com"])
                #expect(try await accounts.user(uid: ann.user.uid).providerIDs == ["google.com"])
                #expect(hook.calls.withLock { $0 }.isEmpty)
            }
        }

        /// The hook fails: the merge stands, `merge_hook_failed` says so, and the pending merge
        /// is resumed later (also by another service on the store).
        @Test(arguments: StoreKind.allCases)
        func aFailedHookIsResumed(kind: StoreKind) async throws {
            try await Self.withMergeService(kind) { accounts, clock, hook in
                _ = try await accounts.signIn(with: TestCredential.make("oidc.dev", "owner"))
                let guest = try await accounts.signInAsGuest()
                let issued = try await Self.refusedLink(accounts, guest.session, with: TestCredential.make("oidc.dev", "owner"))
                let target = try #require(try await accounts.signIn(with: TestCredential.make("oidc.dev", "owner")).session)
                let ticket = try #require(await accounts.moveMergeTicket(issued, from: guest.session, to: target))
                hook.failures.withLock { $0 = 1 }
                await expectError(.mergeHookFailed) { try await accounts.merge(ticket: ticket, into: target) }
                await expectError(.userNotFound) { try await accounts.user(uid: guest.user.uid) }
                let pending = try await accounts.store.pendingMerges()
                #expect(pending.map(\.sourceUID) == [guest.user.uid] && pending.map(\.targetUID) == [target.uid])
                #expect(try await accounts.store.accountRecords(uid: target.uid)?.pendingMerges.map(\.sourceUID) == [guest.user.uid])
                let other = Self.service(accounts.store, clock: clock, hook: hook)
                #expect(try await other.resumePendingMerges() == 1)
                #expect(try await accounts.resumePendingMerges() == 0)
                #expect(hook.calls.withLock { $0.map(\.sourceUID) } == [guest.user.uid])
            }
        }

        /// A merge that absorbs a full account needs the link's credential to have proved a
        /// sign-in during the link's flow: never a stale `auth_time`, a missing one, no flow
        /// start, or an OAuth 2.0 credential. Refused with its own code; the source keeps its
        /// identities and can still be merged after a link that proves one.
        @Test(arguments: StoreKind.allCases)
        func absorbingAFullAccountNeedsAFreshSignInDuringTheLink(kind: StoreKind) async throws {
            try await Self.withMergeService(kind) { accounts, clock, hook in
                let ann = try #require(try await accounts.signIn(with: TestCredential.make("google.com", "ann")).session)
                let victim = try await accounts.signIn(with: TestCredential.make("oidc.corp", "v", refreshToken: "rt"))
                let start = clock.now
                clock.advance(by: .seconds(30))
                let now = clock.now
                let stale: [(String, Credential, Date?)] = [
                    // A silent approval from a provider session that began before the flow.
                    (
                        "auth_time before the flow",
                        try await TestCredential.withIDToken("oidc.corp", "v", authTime: start.addingTimeInterval(-3600), now: now), start
                    ),
                    // No auth_time at all.
                    ("no auth_time", TestCredential.make("oidc.corp", "v"), start),
                    // A fresh auth_time, but no flow start to compare it with.
                    ("no flow start", try await TestCredential.withIDToken("oidc.corp", "v", authTime: now, now: now), nil),
                    // An OAuth 2.0 provider's credential (GitHub): it never proves a sign-in.
                    (
                        "OAuth 2.0",
                        Credential(
                            oauthProviderID: "oidc.corp", subject: "v", email: nil, emailVerified: false, tokens: ProviderTokens(),
                            profile: ProviderProfile()), start
                    ),
                ]
                for (label, credential, flowStart) in stale {
                    let ticket = try await Self.refusedLink(accounts, ann, with: credential, flowStart: flowStart)
                    await expectError(.mergeRequiresFreshSignIn) { try await accounts.merge(ticket: ticket, into: ann) }
                    #expect(try await accounts.user(uid: victim.user.uid).providerIDs == ["oidc.corp"], "\(label): nothing moved")
                }
                #expect(hook.calls.withLock { $0 }.isEmpty)
                // The clock tolerance (5 s) and whole seconds: just before the flow still counts.
                let fresh = try await Self.refusedLink(
                    accounts, ann,
                    with: try await TestCredential.withIDToken("oidc.corp", "v", authTime: start.addingTimeInterval(-4), now: now),
                    flowStart: start)
                let merge = try await accounts.merge(ticket: fresh, into: ann)
                #expect(merge.sourceUID == victim.user.uid && merge.targetUID == ann.uid)
                #expect(try await accounts.user(uid: ann.uid).providerIDs == ["google.com", "oidc.corp"])
            }
        }

        /// A ticket is issued to one session: another session of the same account cannot use it,
        /// nor the session after sign-out.
        @Test(arguments: StoreKind.allCases)
        func aTicketIsBoundToTheSessionThatReceivedIt(kind: StoreKind) async throws {
            try await Self.withMergeService(kind) { accounts, clock, _ in
                let annSignIn = try await accounts.signIn(with: TestCredential.make("google.com", "ann"))
                let ann = try #require(annSignIn.session)
                let other = try #require(try await accounts.signIn(with: TestCredential.make("google.com", "ann")).session)
                _ = try await accounts.signIn(with: TestCredential.make("oidc.corp", "v"))
                let now = clock.now
                let ticket = try await Self.refusedLink(
                    accounts, ann, with: try await TestCredential.withIDToken("oidc.corp", "v", authTime: now, now: now), flowStart: now)
                await expectError(.invalidMergeTicket) { try await accounts.merge(ticket: ticket, into: other) }
                try await accounts.signOut(ann)
                await expectError(.sessionRevoked) { try await accounts.verifySession(try #require(annSignIn.sessionToken)) }
            }
        }

        /// Two services (two instances) merge with one ticket at once: one merge happens.
        @Test(arguments: StoreKind.allCases)
        func twoMergesOfOneTicketAtOnceMakeOne(kind: StoreKind) async throws {
            try await kind.withStorePair { one, two in
                let clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
                let hook = Hook()
                let first = Self.service(one, clock: clock, hook: hook), second = Self.service(two, clock: clock, hook: hook)
                for round in 0..<6 {
                    let owner = try await first.signIn(with: TestCredential.make("oidc.dev", "owner-\(round)"))
                    let guest = try await second.signInAsGuest()
                    let issued = try await Self.refusedLink(
                        second, guest.session, with: TestCredential.make("oidc.dev", "owner-\(round)"))
                    let session = try #require(try await first.signIn(with: TestCredential.make("oidc.dev", "owner-\(round)")).session)
                    let ticket = try #require(await first.moveMergeTicket(issued, from: guest.session, to: session))
                    async let a = refusalCode { _ = try await first.merge(ticket: ticket, into: session) }
                    async let b = refusalCode { _ = try await second.merge(ticket: ticket, into: session) }
                    let outcomes = await [a, b]
                    // The ticket is consumed on the shared store: the loser's is a used ticket (400), not a missing user.
                    #expect(outcomes.filter { $0 == nil }.count == 1 && outcomes.contains(.invalidMergeTicket), "\(outcomes)")
                    #expect(try await one.user(providerID: "oidc.dev", subject: "owner-\(round)")?.uid == owner.user.uid)
                    #expect(try await two.user(uid: guest.user.uid) == nil)
                }
                #expect(hook.calls.withLock { $0.count } == 6)
            }
        }

        /// One level down, on two instances: A into B and B into A at once, a merge racing a
        /// link to the source, a merge racing the source's deletion. Each identity ends with
        /// exactly one owner, and the loser changes nothing.
        @Test(arguments: StoreKind.allCases)
        func mergesRacingMergesLinksAndDeletions(kind: StoreKind) async throws {
            try await kind.withStorePair { one, two in
                let now = Date(timeIntervalSince1970: 1_800_000_000)
                func user(_ uid: String, _ providerID: String) -> User {
                    User(
                        uid: uid, email: nil, emailVerified: false, displayName: nil, photoURL: nil, createdAt: now, lastSignInAt: now,
                        identities: [ProviderIdentity(credential: TestCredential.make(providerID, "sub-" + uid), linkedAt: now)])
                }
                for round in 0..<8 {
                    // Opposite directions.
                    let a = "a-\(round)", b = "b-\(round)"
                    try await one.createUser(user(a, "google.com"))
                    try await one.createUser(user(b, "oidc.corp"))
                    async let ab = refusalCode {
                        _ = try await one.mergeUser(a, into: b, ifIdentity: "oidc.corp", subject: "sub-" + b, belongsTo: b, at: now)
                    }
                    async let ba = refusalCode {
                        _ = try await two.mergeUser(b, into: a, ifIdentity: "oidc.corp", subject: "sub-" + b, belongsTo: b, at: now)
                    }
                    let directions = await [ab, ba]
                    #expect(directions.filter { $0 == nil }.count == 1 && directions.contains(.userNotFound), "\(directions)")
                    let survivor = directions[0] == nil ? b : a
                    for (providerID, subject) in [("google.com", "sub-" + a), ("oidc.corp", "sub-" + b)] {
                        #expect(try await two.user(providerID: providerID, subject: subject)?.uid == survivor)
                    }
                    #expect(try await one.user(uid: survivor == a ? b : a) == nil)

                    // A link to the source while it is merged.
                    let s = "s-\(round)", t = "t-\(round)"
                    try await one.createUser(user(s, "oidc.corp"))
                    try await one.createUser(user(t, "google.com"))
                    let late = ProviderIdentity(credential: TestCredential.make("oidc.late", "late-\(round)"), linkedAt: now)
                    async let merged = refusalCode {
                        _ = try await one.mergeUser(s, into: t, ifIdentity: "oidc.corp", subject: "sub-" + s, belongsTo: s, at: now)
                    }
                    async let linked = refusalCode { try await two.addIdentity(late, toUser: s) }
                    let (mergeOutcome, linkOutcome) = await (merged, linked)
                    #expect(mergeOutcome == nil, "\(String(describing: mergeOutcome))")
                    let lateOwner = try await one.user(providerID: "oidc.late", subject: "late-\(round)")
                    if linkOutcome == nil {
                        #expect(lateOwner?.uid == t, "linked first, then moved with the merge")
                    } else {
                        #expect(linkOutcome == .userNotFound && lateOwner == nil)
                    }
                    #expect(try await one.user(providerID: "oidc.corp", subject: "sub-" + s)?.uid == t)

                    // The source deleted while it is merged.
                    let d = "d-\(round)", e = "e-\(round)"
                    try await one.createUser(user(d, "oidc.corp"))
                    try await one.createUser(user(e, "google.com"))
                    async let mergeD = refusalCode {
                        _ = try await one.mergeUser(d, into: e, ifIdentity: "oidc.corp", subject: "sub-" + d, belongsTo: d, at: now)
                    }
                    async let deleteD: Bool = (try? await two.deleteUser(uid: d)) != nil
                    let (mergeDOutcome, deleted) = await (mergeD, deleteD)
                    let corpOwner = try await one.user(providerID: "oidc.corp", subject: "sub-" + d)
                    if mergeDOutcome == nil {
                        #expect(!deleted && corpOwner?.uid == e, "merged first: the identity moved; the deletion found no one")
                    } else {
                        #expect(mergeDOutcome == .userNotFound && deleted && corpOwner == nil)
                    }
                    #expect(try await one.user(uid: d) == nil)
                }
            }
        }
    }
}
