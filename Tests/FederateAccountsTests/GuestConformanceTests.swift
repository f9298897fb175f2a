import Federate
import FederateTestSupport
import Foundation
import Testing

extension AccountsTests {
    /// Guest accounts: created without a provider, upgraded in place by a link, weak for
    /// sensitive operations, expired and pruned — the same on every store.
    @Suite("Accounts: guests (every store)")
    struct GuestConformanceTests {
        static let hour = AccountServiceConfiguration(guestLifetime: .seconds(3600))

        @Test(arguments: StoreKind.allCases)
        func aGuestIsUpgradedInPlaceByALink(kind: StoreKind) async throws {
            try await kind.withService { accounts, _ in
                let guest = try await accounts.signInAsGuest()
                #expect(guest.user.isGuest && guest.user.identities.isEmpty)
                let session = try await accounts.verifySession(guest.sessionToken)
                #expect(session.isGuest && session.uid == guest.user.uid)
                #expect(try await accounts.user(uid: guest.user.uid).isGuest)
                // Weak: no sensitive operation, whatever its auth_time.
                await expectError(.requiresRecentLogin) { try accounts.requireRecentLogin(session) }
                await expectError(.requiresRecentLogin) { try await accounts.delete(session) }

                let linked = try await accounts.link(
                    guest.user.uid, with: TestCredential.make("google.com", "g-guest", email: "guest@example.com"))
                #expect(linked.user.uid == guest.user.uid && !linked.user.isGuest && linked.user.providerIDs == ["google.com"])
                #expect(linked.user.email == "guest@example.com")
                let stored = try await accounts.user(uid: guest.user.uid)
                #expect(!stored.isGuest && stored.providerIDs == ["google.com"])
                // The link issued a full session, recent; the guest's own session stays weak.
                let full = try await accounts.verifySession(try #require(linked.sessionToken))
                #expect(!full.isGuest && full.uid == guest.user.uid)
                try accounts.requireRecentLogin(full)
                await expectError(.requiresRecentLogin) {
                    try accounts.requireRecentLogin(try await accounts.verifySession(guest.sessionToken))
                }
                // Signing in with the provider now finds the same account.
                #expect(try await accounts.signIn(with: TestCredential.make("google.com", "g-guest")).user.uid == guest.user.uid)
            }
        }

        /// At most `maximumLiveGuests` guests alive at once: past it, `guest_capacity_reached`
        /// and nothing is created; a guest that links or expires makes room.
        @Test(arguments: StoreKind.allCases)
        func liveGuestsAreCapped(kind: StoreKind) async throws {
            let capped = AccountServiceConfiguration(guestLifetime: .seconds(3600), maximumLiveGuests: 3)
            try await kind.withService(configuration: capped) { accounts, clock in
                let first = try await accounts.signInAsGuest()
                clock.advance(by: .seconds(10))
                _ = try await accounts.signInAsGuest()
                let third = try await accounts.signInAsGuest()
                await expectError(.guestCapacityReached) { try await accounts.signInAsGuest() }
                // A guest that links is a guest no more.
                _ = try await accounts.link(third.user.uid, with: TestCredential.make("google.com", "g-third"))
                let fourth = try await accounts.signInAsGuest()
                await expectError(.guestCapacityReached) { try await accounts.signInAsGuest() }
                // The oldest expires (not yet pruned): it no longer counts.
                clock.advance(by: .seconds(3591))
                #expect(try await accounts.user(uid: first.user.uid).isGuest)
                _ = try await accounts.signInAsGuest()
                await expectError(.guestCapacityReached) { try await accounts.signInAsGuest() }
                #expect(try await accounts.user(uid: fourth.user.uid).isGuest)
            }
        }

        @Test func guestsLiveSevenDaysByDefault() {
            #expect(AccountServiceConfiguration().guestLifetime == .seconds(7 * 24 * 3600))
            #expect(AccountServiceConfiguration().maximumLiveGuests == 100_000)
        }

        @Test(arguments: StoreKind.allCases)
        func guestsExpireAndArePrunedUnlessTheyLinked(kind: StoreKind) async throws {
            try await kind.withService(configuration: Self.hour) { accounts, clock in
                let old = try await accounts.signInAsGuest()
                clock.advance(by: .seconds(1800))
                let young = try await accounts.signInAsGuest()
                let upgraded = try await accounts.signInAsGuest()
                _ = try await accounts.link(upgraded.user.uid, with: TestCredential.make("google.com", "g-upgraded"))
                // A guest's session ends with the guest, not a day later.
                #expect(old.session.expiresAt == old.user.createdAt.addingTimeInterval(3600))
                // Past the guest's end, within the clock tolerance: the guest is gone.
                clock.advance(by: .seconds(1801))
                await expectError(.userNotFound) { try await accounts.verifySession(old.sessionToken) }
                clock.advance(by: .seconds(10))
                await expectError(.tokenExpired) { try await accounts.verifySession(old.sessionToken) }
                // Expired but not yet pruned: it can no longer be upgraded.
                await expectError(.userNotFound) {
                    try await accounts.link(old.user.uid, with: TestCredential.make("google.com", "g-late"))
                }
                #expect(try await accounts.pruneExpiredGuests() == [old.user.uid])
                await expectError(.userNotFound) { try await accounts.user(uid: old.user.uid) }
                #expect(try await accounts.user(uid: young.user.uid).isGuest)
                clock.advance(by: .seconds(7200))
                #expect(try await accounts.pruneExpiredGuests() == [young.user.uid])
                // The guest that linked is no guest: never pruned.
                #expect(try await accounts.pruneExpiredGuests().isEmpty)
                #expect(try await accounts.user(uid: upgraded.user.uid).providerIDs == ["google.com"])
            }
        }

        /// A link and the pruning racing on expired guests, one level down (the service refuses
        /// an expired guest before the store is asked): each guest ends either deleted, its
        /// link refused, or linked and kept — never deleted with its new identity.
        @Test(arguments: StoreKind.allCases)
        func pruningRacesLinksOnTwoInstances(kind: StoreKind) async throws {
            try await kind.withStorePair { first, second in
                let created = Date(timeIntervalSince1970: 1_800_000_000)
                var uids: [String] = []
                for index in 0..<12 {
                    let uid = "guest-\(index)"
                    try await first.createUser(
                        User(
                            uid: uid, email: nil, emailVerified: false, displayName: nil, photoURL: nil, createdAt: created,
                            lastSignInAt: created,
                            isGuest: true, identities: []))
                    uids.append(uid)
                }
                let links = await withTaskGroup(of: (String, FederateError.Code?).self) { group in
                    for uid in uids {
                        group.addTask {
                            let identity = ProviderIdentity(credential: TestCredential.make("google.com", "for-\(uid)"), linkedAt: created)
                            return (uid, await refusalCode { try await second.addIdentity(identity, toUser: uid) })
                        }
                    }
                    group.addTask {
                        (
                            "prune",
                            await refusalCode {
                                _ = try await first.deleteExpiredGuests(createdBefore: created.addingTimeInterval(1), limit: 100)
                            }
                        )
                    }
                    var results: [String: FederateError.Code?] = [:]
                    for await (uid, code) in group { results[uid] = code }
                    return results
                }
                #expect(links["prune"] == .some(nil))
                for uid in uids {
                    let user = try await first.user(uid: uid)
                    let owner = try await first.user(providerID: "google.com", subject: "for-\(uid)")
                    switch links[uid] {
                    case .some(nil):
                        #expect(user?.providerIDs == ["google.com"] && user?.isGuest == false, "\(uid): linked, so kept")
                        #expect(owner?.uid == uid)
                    case .some(.userNotFound):
                        #expect(user == nil && owner == nil, "\(uid): pruned first, so the link failed")
                    default:
                        Issue.record("\(uid): \(String(describing: links[uid]))")
                    }
                }
            }
        }
    }
}
