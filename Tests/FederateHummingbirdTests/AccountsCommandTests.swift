import Federate
import FederateSQLite
import FederateTestSupport
import Foundation
import Testing

/// `federate accounts export|delete --config FILE UID` on the SQLite store a serve
/// configuration names: the export holds the account and its identities, never a provider
/// token; the deletion leaves nothing, so a second export is `user_not_found`.
@Suite("federate accounts export and delete")
struct AccountsCommandTests {
    @Test func exportsWithoutSecretsThenErasesEverything() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("federate-accounts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("accounts.sqlite").path
        let store = try await SQLiteAccountStore.open(path: database)
        let signedIn = try await AccountService(store: store).signIn(
            with: Credential(
                providerID: "oidc.corp", subject: "corp-subject-1", email: "ada@example.com", emailVerified: true,
                tokens: ProviderTokens(accessToken: "access-secret-123", refreshToken: "refresh-secret-456")))
        try await store.close()
        let uid = signedIn.user.uid
        let config = directory.appendingPathComponent("serve.json")
        try Data(#"{"store": {"sqlite": "\#(database)"}, "providers": [{"name": "dev", "type": "dev"}]}"#.utf8).write(to: config)

        let export = try await CLIProcess.run(["accounts", "export", "--config", config.path, uid])
        #expect(export.status == 0, "\(export.stdout)\(export.stderr)")
        #expect(export.stdout.contains(uid) && export.stdout.contains("corp-subject-1") && export.stdout.contains("ada@example.com"))
        #expect(!export.stdout.contains("access-secret-123") && !export.stdout.contains("refresh-secret-456"), "no secret in an export")

        let deleted = try await CLIProcess.run(["accounts", "delete", "--config", config.path, uid])
        #expect(deleted.status == 0, "\(deleted.stdout)\(deleted.stderr)")
        let answer = try JSONParser().parseObject(Array(deleted.stdout.utf8))
        #expect(answer["deleted"] == true && answer["uid"] == .string(uid))

        let again = try await CLIProcess.run(["accounts", "export", "--config", config.path, uid])
        #expect(again.status != 0 && again.stdout.contains("user_not_found"), "\(again.stdout)")
        let reopened = try await SQLiteAccountStore.open(path: database)
        #expect(try await reopened.user(providerID: "oidc.corp", subject: "corp-subject-1") == nil, "the identity is gone too")
        try await reopened.close()
    }

    /// A uid is URL-safe base64: about one in 64 starts with `-`. Such a uid is the uid, never an
    /// option (`-h…` is not help: a script must never see exit 0 for an erasure that did not
    /// happen), `--` before it works too, and anything but one uid is a usage error.
    @Test func aUidThatStartsWithADashIsTheUid() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("federate-accounts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("accounts.sqlite").path
        let store = try await SQLiteAccountStore.open(path: database)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for uid in ["-hQ3xWk0aZq8UfV1sNcT9", "-Zz9pL2mR7yXoE4bGdHk1"] {
            try await store.createUser(
                User(
                    uid: uid, email: nil, emailVerified: false, displayName: nil, photoURL: nil, createdAt: now, lastSignInAt: now,
                    identities: [ProviderIdentity(credential: Credential(providerID: "oidc.corp", subject: "s" + uid), linkedAt: now)]))
        }
        try await store.close()
        let config = directory.appendingPathComponent("serve.json")
        try Data(#"{"store": {"sqlite": "\#(database)"}, "providers": [{"name": "dev", "type": "dev"}]}"#.utf8).write(to: config)

        let exported = try await CLIProcess.run(["accounts", "export", "--config", config.path, "-hQ3xWk0aZq8UfV1sNcT9"])
        #expect(exported.status == 0 && exported.stdout.contains("-hQ3xWk0aZq8UfV1sNcT9"), "\(exported.stdout)\(exported.stderr)")
        let deleted = try await CLIProcess.run(["accounts", "delete", "--config", config.path, "-hQ3xWk0aZq8UfV1sNcT9"])
        #expect(deleted.status == 0, "\(deleted.stdout)\(deleted.stderr)")
        #expect(try JSONParser().parseObject(Array(deleted.stdout.utf8))["uid"] == "-hQ3xWk0aZq8UfV1sNcT9")
        let afterTerminator = try await CLIProcess.run(["accounts", "delete", "--config", config.path, "--", "-Zz9pL2mR7yXoE4bGdHk1"])
        #expect(afterTerminator.status == 0, "\(afterTerminator.stdout)\(afterTerminator.stderr)")
        let gone = try await CLIProcess.run(["accounts", "delete", "--config", config.path, "-hQ3xWk0aZq8UfV1sNcT9"])
        #expect(gone.status == 1 && gone.stdout.contains("user_not_found"), "\(gone.stdout)")
        for arguments in [[String](), ["-a", "-b"]] {
            let refused = try await CLIProcess.run(["accounts", "delete", "--config", config.path] + arguments)
            #expect(refused.status != 0 && !refused.stdout.contains("\"deleted\""), "\(arguments): \(refused.status)")
        }
        let help = try await CLIProcess.run(["accounts", "delete", "--help"])
        #expect(help.status == 0 && help.stdout.contains("uid"))
    }
}
