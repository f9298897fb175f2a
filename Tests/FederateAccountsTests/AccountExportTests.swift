import Federate
import FederateTestSupport
import Foundation
import Testing

extension AccountsTests {
    /// Export (everything the store holds about a user, secrets excluded) and erasure
    /// (everything gone, in one step) — on every store.
    @Suite("Accounts: export and erasure (every store)")
    struct AccountExportTests {
        @Test(arguments: StoreKind.allCases)
        func exportHasEverythingButSecretsAndDeletionLeavesNothing(kind: StoreKind) async throws {
            try await kind.withService(providerTokens: try TokensAtRestTests.vault()) { accounts, clock in
                let credential = TestCredential.make(
                    "google.com", "ann", email: "ann@example.com", name: "Ann", accessToken: "AT-SECRET-1", refreshToken: "RT-SECRET-1")
                let ann = try await accounts.signIn(with: credential)
                let uid = ann.user.uid
                _ = try await accounts.link(
                    uid, with: TestCredential.make("oidc.corp", "ann-corp", accessToken: "AT-SECRET-2", refreshToken: "RT-SECRET-2"))
                let session = try #require(ann.session)
                try await accounts.signOut(session)
                try await accounts.apply(.sessionsRevoked(providerID: "google.com", subject: "ann"))
                let bob = try await accounts.signIn(with: TestCredential.make("google.com", "bob"))

                let export = try await accounts.exportAccount(uid: uid)
                let text = String(decoding: JSONSerializer.bytes(export), as: UTF8.self)
                for secret in ["AT-SECRET-1", "RT-SECRET-1", "AT-SECRET-2", "RT-SECRET-2", try #require(ann.sessionToken)] {
                    #expect(!text.contains(secret))
                }
                #expect(!text.contains(bob.user.uid))
                #expect(export["format"] == "federate.account-export.v1")
                #expect(
                    export["user"]?["uid"] == .string(uid) && export["user"]?["email"] == "ann@example.com"
                        && export["user"]?["guest"] == false)
                #expect(export["user"]?["created_at"] == .integer(Int64(clock.now.timeIntervalSince1970)))
                #expect(export["identities"]?.arrayValue?.compactMap { $0["provider_id"]?.stringValue } == ["google.com", "oidc.corp"])
                let first = try #require(export["identities"]?.arrayValue?.first)
                #expect(first["display_name"] == "Ann" && first["kept_tokens"]?["needs_sign_in"] == false)
                #expect(export["signed_out_sessions"]?.arrayValue?.compactMap { $0["session_id"]?.stringValue } == [session.sessionID])
                await expectError(.userNotFound) { try await accounts.exportAccount(uid: "nobody") }

                // Erasure: one call, nothing left.
                let revocable = try await accounts.deleteUser(uid: uid)
                #expect(Set(revocable.map(\.providerID)) == ["google.com", "oidc.corp"])
                let store = accounts.store
                #expect(try await store.accountRecords(uid: uid) == nil)
                #expect(try await store.user(providerID: "google.com", subject: "ann") == nil)
                #expect(try await store.isSessionRevoked(id: session.sessionID) == false)
                #expect(try await store.sessionsEnded(keys: ["identity:10:google.comann"]) == nil)
                #expect(try await store.users(email: "ann@example.com").isEmpty)
                #expect(try await accounts.user(uid: bob.user.uid).providerIDs == ["google.com"], "others untouched")
            }
        }
    }
}
