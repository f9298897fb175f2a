import Federate
import FederateTestSupport
import Foundation
import Testing

extension AccountsTests {
    /// Passkeys as a way in of their own: one credential ID per account, the counter's
    /// compare-and-set, never the last way in, deleted and merged with the account — the same
    /// on every store.
    @Suite("Accounts: passkeys in the store (every store)")
    struct PasskeyConformanceTests {
        static func passkey(_ credentialID: [UInt8], uid: String, signCount: UInt32 = 0, at date: Date) -> Passkey {
            Passkey(
                credentialID: credentialID, uid: uid, publicKey: [0xA5, 0x01, 0x02, 0x03, 0x26], algorithm: -7, signCount: signCount,
                backupEligible: true, backupState: false, transports: ["hybrid", "internal"], name: "Laptop", createdAt: date,
                lastUsedAt: nil)
        }

        @Test(arguments: StoreKind.allCases)
        func aCredentialIDBelongsToOneAccountByItsExactBytes(kind: StoreKind) async throws {
            try await kind.withService { accounts, clock in
                let ann = try await accounts.signIn(with: TestCredential.make("google.com", "ann"))
                let bob = try await accounts.signIn(with: TestCredential.make("google.com", "bob"))
                let id: [UInt8] = Array(repeating: 0x41, count: 1023)
                try await accounts.store.addPasskey(Self.passkey(id, uid: ann.user.uid, at: clock.now))
                let stored = try #require(try await accounts.store.passkey(credentialID: id))
                #expect(stored == Self.passkey(id, uid: ann.user.uid, at: clock.now))
                // The same bytes again, to this or another account: refused, nothing changes.
                await expectError(.credentialAlreadyInUse) {
                    try await accounts.store.addPasskey(Self.passkey(id, uid: bob.user.uid, at: clock.now))
                }
                await expectError(.credentialAlreadyInUse) {
                    try await accounts.store.addPasskey(Self.passkey(id, uid: ann.user.uid, at: clock.now))
                }
                #expect(try await accounts.store.passkeys(uid: bob.user.uid).isEmpty)
                // One byte apart is another credential; a prefix is no match.
                var other = id
                other[1022] = 0x42
                #expect(try await accounts.store.passkey(credentialID: other) == nil)
                #expect(try await accounts.store.passkey(credentialID: Array(id.prefix(1022))) == nil)
                try await accounts.store.addPasskey(Self.passkey(other, uid: bob.user.uid, at: clock.now))
                #expect(try await accounts.store.passkey(credentialID: other)?.uid == bob.user.uid)
                await expectError(.userNotFound) {
                    try await accounts.store.addPasskey(Self.passkey([1, 2, 3], uid: "nobody", at: clock.now))
                }
            }
        }

        @Test(arguments: StoreKind.allCases)
        func passkeysAreListedOldestFirstAndAGuestWithOneIsAGuestNoMore(kind: StoreKind) async throws {
            try await kind.withService { accounts, clock in
                let guest = try await accounts.signInAsGuest()
                try await accounts.store.addPasskey(Self.passkey([9, 9], uid: guest.user.uid, at: clock.now))
                #expect(try await accounts.user(uid: guest.user.uid).isGuest == false)
                clock.advance(by: .seconds(5))
                try await accounts.store.addPasskey(Self.passkey([1, 1], uid: guest.user.uid, at: clock.now))
                try await accounts.store.addPasskey(Self.passkey([0, 1], uid: guest.user.uid, at: clock.now))
                let listed = try await accounts.passkeys(guest.session).map(\.credentialID)
                #expect(listed == [[9, 9], [0, 1], [1, 1]])
            }
        }

        /// The counter moves by compare-and-set: of two sign-ins that read one counter, one writes.
        @Test(arguments: StoreKind.allCases)
        func theSignatureCounterIsACompareAndSet(kind: StoreKind) async throws {
            try await kind.withService { accounts, clock in
                let ann = try await accounts.signIn(with: TestCredential.make("google.com", "ann"))
                let id: [UInt8] = [0xCA, 0xFE]
                try await accounts.store.addPasskey(Self.passkey(id, uid: ann.user.uid, signCount: 7, at: clock.now))
                clock.advance(by: .seconds(60))
                let later = clock.now
                let signedIn = try await accounts.store.recordPasskeySignIn(
                    credentialID: id, previousSignCount: 7, signCount: 8, backupState: true, at: later)
                #expect(signedIn?.uid == ann.user.uid && signedIn?.lastSignInAt == later)
                #expect(signedIn == (try await accounts.user(uid: ann.user.uid)), "the answer is the user as the store now holds them")
                #expect(
                    try await accounts.store.recordPasskeySignIn(
                        credentialID: id, previousSignCount: 7, signCount: 9, backupState: false, at: later) == nil,
                    "a second sign-in that read the same counter writes nothing")
                let used = try #require(try await accounts.store.passkey(credentialID: id))
                #expect(used.signCount == 8 && used.backupState && used.lastUsedAt == later)
                #expect(try await accounts.user(uid: ann.user.uid).lastSignInAt == later)
                #expect(
                    try await accounts.store.recordPasskeySignIn(
                        credentialID: [0xCA], previousSignCount: 0, signCount: 1, backupState: false, at: later) == nil)
                // A disabled user's passkey signs no one in.
                try await accounts.disable(uid: ann.user.uid)
                #expect(
                    try await accounts.store.recordPasskeySignIn(
                        credentialID: id, previousSignCount: 8, signCount: 9, backupState: true, at: later) == nil)
                #expect(try await accounts.store.passkey(credentialID: id)?.signCount == 8)
            }
        }

        /// A passkey is a way in: the last one stays, and a provider may go while one remains.
        @Test(arguments: StoreKind.allCases)
        func neitherTheLastPasskeyNorTheLastProviderIsRemoved(kind: StoreKind) async throws {
            try await kind.withService { accounts, clock in
                let ann = try await accounts.signIn(with: TestCredential.make("google.com", "ann"))
                let session = try #require(ann.session)
                let bob = try await accounts.signIn(with: TestCredential.make("google.com", "bob"))
                try await accounts.store.addPasskey(Self.passkey([1], uid: ann.user.uid, at: clock.now))
                try await accounts.store.addPasskey(Self.passkey([2], uid: bob.user.uid, at: clock.now))
                // Another account's passkey is not found, whatever its bytes.
                await expectError(.passkeyNotFound) { try await accounts.removePasskey(session, credentialID: [2]) }
                await expectError(.passkeyNotFound) { try await accounts.removePasskey(session, credentialID: [3]) }
                // The passkey keeps the account reachable: the provider may go.
                try await accounts.unlink(session, providerID: "google.com")
                await expectError(.lastProvider) { try await accounts.removePasskey(session, credentialID: [1]) }
                try await accounts.store.addPasskey(Self.passkey([4], uid: ann.user.uid, at: clock.now))
                try await accounts.removePasskey(session, credentialID: [1])
                #expect(try await accounts.passkeys(session).map(\.credentialID) == [[4]])
                await expectError(.lastProvider) { try await accounts.removePasskey(session, credentialID: [4]) }
                // Sensitive: an old session removes nothing.
                try await accounts.store.addPasskey(Self.passkey([5], uid: ann.user.uid, at: clock.now))
                clock.advance(by: .seconds(3600))
                await expectError(.requiresRecentLogin) { try await accounts.removePasskey(session, credentialID: [5]) }
                #expect(try await accounts.store.passkeys(uid: ann.user.uid).count == 2)
            }
        }

        @Test(arguments: StoreKind.allCases)
        func deletingTheAccountDeletesItsPasskeysAndTheExportListsThem(kind: StoreKind) async throws {
            try await kind.withService { accounts, clock in
                let ann = try await accounts.signIn(with: TestCredential.make("google.com", "ann"))
                try await accounts.store.addPasskey(Self.passkey([7, 7, 7], uid: ann.user.uid, at: clock.now))
                let export = try await accounts.exportAccount(uid: ann.user.uid)
                guard case .array(let passkeys)? = export["passkeys"], let first = passkeys.first else {
                    Issue.record("the export lists no passkeys")
                    return
                }
                #expect(passkeys.count == 1 && first["credential_id"] == "BwcH" && first["algorithm"] == .integer(-7))
                #expect(first["public_key"] == nil, "the export never carries the public key")
                _ = try await accounts.delete(try #require(ann.session))
                #expect(try await accounts.store.passkey(credentialID: [7, 7, 7]) == nil)
                // The credential ID is free again: a new account may register it.
                let bob = try await accounts.signIn(with: TestCredential.make("google.com", "bob"))
                try await accounts.store.addPasskey(Self.passkey([7, 7, 7], uid: bob.user.uid, at: clock.now))
            }
        }

        @Test(arguments: StoreKind.allCases)
        func aMergeMovesThePasskeys(kind: StoreKind) async throws {
            try await kind.withService { accounts, clock in
                let source = try await accounts.signIn(with: TestCredential.make("oidc.corp", "ann-at-corp"))
                let target = try await accounts.signInAsGuest()
                try await accounts.store.addPasskey(Self.passkey([3, 1], uid: source.user.uid, at: clock.now))
                _ = try await accounts.store.mergeUser(
                    source.user.uid, into: target.user.uid, ifIdentity: "oidc.corp", subject: "ann-at-corp", belongsTo: source.user.uid,
                    at: clock.now)
                #expect(try await accounts.store.passkey(credentialID: [3, 1])?.uid == target.user.uid)
                #expect(try await accounts.store.passkeys(uid: source.user.uid).isEmpty)
            }
        }
    }
}
