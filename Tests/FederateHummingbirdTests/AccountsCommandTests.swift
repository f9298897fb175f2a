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
}
