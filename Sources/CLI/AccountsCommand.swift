import ArgumentParser
import Crypto
import Federate
import FederateHummingbird
import FederatePostgres
import FederateSQLite
import Foundation
import Logging
import PostgresNIO

/// `federate accounts export|delete`: a data-access or erasure request, on the store a
/// `federate serve` configuration names (Docs/CLI.md).
struct AccountsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accounts",
        abstract: "Export or erase one account in the store of a serve configuration.",
        subcommands: [Export.self, Delete.self]
    )

    /// Where the store is: a `federate serve` configuration, or serve's default (`./federate-demo.sqlite`).
    struct StoreOptions: ParsableArguments {
        @Option(help: "The `federate serve` configuration file whose store to use (default: serve's, ./federate-demo.sqlite).")
        var config: String?

        func settings() throws(FederateError) -> ServeConfiguration {
            guard let config else { return ServeConfiguration() }
            guard let data = FileManager.default.contents(atPath: config) else {
                throw FederateError(.invalidConfiguration, "cannot read '\(config)'")
            }
            return try ServeConfiguration(json: Array(data), environment: ProcessInfo.processInfo.environment)
        }
    }

    /// The one account a command acts on. A uid is URL-safe base64, so about one in 64 starts
    /// with `-`: it is taken as the uid, not as an option (`--` before it works too), and help
    /// answers `--help` only, so a uid like `-hQ…` is never read as `-h`.
    struct UIDArgument: ParsableArguments {
        @Argument(parsing: .allUnrecognized, help: "The account's uid (one; may start with '-').")
        var words: [String] = []

        /// The words given, without the `--` that may stand before the uid.
        private var given: [String] { words.first == "--" ? Array(words.dropFirst()) : words }

        /// The uid.
        var uid: String { given.first ?? "" }

        func validate() throws {
            guard given.count == 1, !given[0].isEmpty else {
                throw ValidationError("name exactly one account uid (after --, if you like: accounts delete --config F -- UID)")
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print everything the store holds about one account as JSON, secrets excluded (AccountService.exportAccount).",
            helpNames: [.long])

        @OptionGroup var store: StoreOptions
        @OptionGroup var account: UIDArgument
        var uid: String { account.uid }

        func run() async throws {
            do {
                let export = try await AccountsCommand.withAccounts(try store.settings()) { accounts, _ in
                    try await accounts.exportAccount(uid: uid)
                }
                CLIOutput.line(export)
            } catch {
                throw CLIOutput.fail(error)
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Erase one account: everything the store holds about it, in one step; its provider tokens are revoked (AccountService.deleteUser).",
            helpNames: [.long])

        @OptionGroup var store: StoreOptions
        @OptionGroup var account: UIDArgument
        var uid: String { account.uid }

        func run() async throws {
            do {
                let revoked = try await AccountsCommand.withAccounts(try store.settings()) { accounts, providers -> Int in
                    // Kept tokens are revoked by the account layer; the others the identities held, here.
                    var revoked = 0
                    for entry in try await accounts.deleteUser(uid: uid) {
                        guard let provider = providers[ExactString(entry.providerID)] else { continue }
                        if (try? await provider.revoke(entry.tokens)) != nil { revoked += 1 }
                    }
                    return revoked
                }
                CLIOutput.line(["deleted": true, "uid": .string(uid), "revoked": .integer(Int64(revoked))])
            } catch {
                throw CLIOutput.fail(error)
            }
        }
    }

    /// Runs `body` with an account service on the configuration's store, and its providers
    /// that run outside `serve` (by provider ID; dev providers live inside `serve` only).
    static func withAccounts<T: Sendable>(
        _ settings: ServeConfiguration, _ body: (AccountService, [ExactString: any SignInProvider]) async throws -> T
    ) async throws -> T {
        let cache = ProviderCache(httpClient: AsyncHTTPClientTransport.shared)
        var byName: [String: any SignInProvider] = [:]
        for entry in settings.providers {
            if let (provider, _, _) = try ServeCommand.externalProvider(entry, cache: cache) { byName[entry.name] = provider }
        }
        let providers = Dictionary(byName.values.map { (ExactString($0.providerID), $0) }, uniquingKeysWith: { first, _ in first })
        let vault = try ServeCommand.providerTokenVault(
            settings, sealingKey: settings.sealingKey.map { SymmetricKey(data: $0) }, providers: byName)
        switch settings.store {
        case .sqlite(let path):
            let store = try await SQLiteAccountStore.open(path: path, busyTimeout: .seconds(2))
            do {
                let result = try await body(AccountService(store: store, providerTokens: vault), providers)
                try await store.close()
                return result
            } catch {
                try? await store.close()
                throw error
            }
        case .postgres(let url, let schema):
            let client = PostgresClient(
                configuration: try ServeCommand.postgresConfiguration(url), backgroundLogger: Logger(label: "federate.accounts"))
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                let store = try PostgresAccountStore(client: client, schema: schema)
                try await store.migrate()
                return try await body(AccountService(store: store, providerTokens: vault), providers)
            }
        }
    }
}
