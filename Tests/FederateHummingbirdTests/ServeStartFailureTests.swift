import Federate
import FederateTestSupport
import Foundation
import Synchronization
import Testing

/// Every start failure `federate serve` documents (the tables marked `serve-start-failures` in
/// Docs/CLI.md and Docs/Server.md) is one it really exits with: each code is provoked here
/// through `federate serve --config`, and a code documented without a way to provoke it, or
/// provoked without being documented, fails the test.
@Suite("federate serve start failures", .serialized)
struct ServeStartFailureTests {
    /// What a `federate serve` that failed to start printed.
    struct Failure: CustomStringConvertible {
        let status: Int32
        let code: String?
        let output: String
        var description: String { "exit \(status): \(output)" }
    }

    /// Runs `federate serve --config` on `object` (plus an SQLite store in a fresh directory
    /// unless it names a store) and returns how it ended; a server that starts is stopped
    /// by the timeout and reported as exit 9.
    static func start(
        _ object: [String: JSONValue], environment: [String: String] = [:], arguments: [String] = ["--port", "0"]
    ) async throws -> Failure {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("federate-start-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var object = object
        if object["store"] == nil { object["store"] = ["sqlite": .string(directory.appendingPathComponent("accounts.sqlite").path)] }
        let config = directory.appendingPathComponent("serve.json")
        try Data(JSONSerializer.bytes(.object(object))).write(to: config)
        let output = try await CLIProcess.run(["serve", "--config", config.path] + arguments, environment: environment, timeout: 60)
        let code = (try? JSONParser().parseObject(Array(output.stdout.utf8)))?["error"]?.stringValue
        return Failure(status: output.status, code: code, output: output.stdout + output.stderr)
    }

    /// An `oidc` provider at `issuer` whose ID tokens the API takes, so `serve` discovers it at start.
    static func apiProvider(_ issuer: String) -> [String: JSONValue] {
        ["api_bearer_provider": "corp", "providers": [["name": "corp", "type": "oidc", "issuer": .string(issuer), "client_id": "rp"]]]
    }

    /// A discovery document for `issuer` with the fields Federate requires, and no introspection endpoint.
    static func document(issuer: String) -> TestHTTPResponse {
        .json(
            JSONSerializer.string([
                "issuer": .string(issuer), "authorization_endpoint": .string(issuer + "/authorize"),
                "token_endpoint": .string(issuer + "/token"),
                "jwks_uri": .string(issuer + "/jwks"), "response_types_supported": ["code"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"],
            ]))
    }

    /// Starts `federate serve` so that it fails with `code`, and returns what it printed.
    static func provoke(_ code: String) async throws -> Failure {
        switch code {
        case "invalid_configuration":
            return try await start(["port": 70_000])
        case "address_in_use":
            let holder = try await LoopbackHTTPServer.start { _ in .status(200) }
            defer { Task { try? await holder.stop() } }
            return try await start([:], arguments: ["--port", String(holder.port)])
        case "account_store_failed":
            return try await start(["store": ["sqlite": .string("/nonexistent-\(UUID().uuidString)/accounts.sqlite")]])
        case "store_schema_mismatch":
            // A database a newer release migrated: its schema version (999) is unknown here.
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("federate-start-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let database = directory.appendingPathComponent("accounts.sqlite").path
            let create = await ExternalProcess.run(
                [
                    "/usr/bin/env", "python3", "-c",
                    "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('CREATE TABLE federate_schema (version INTEGER PRIMARY KEY NOT NULL, applied_at REAL NOT NULL)'); c.execute('INSERT INTO federate_schema VALUES (999, 0)'); c.commit()",
                    database,
                ], in: directory, timeout: 30)
            #expect(create.status == 0, "\(create.stderr)")
            return try await start(["store": ["sqlite": .string(database)]])
        case "invalid_key":
            let apple: JSONValue = [
                "name": "apple", "type": "apple", "services_id": "s", "team_id": "T", "key_id": "K", "private_key_env": "APPLE_P8",
            ]
            return try await start(["providers": [apple]], environment: ["APPLE_P8": "not a key"])
        case "insecure_endpoint":
            return try await start(Self.apiProvider("http://login.example"))
        case "invalid_url":
            return try await start(Self.apiProvider("login.example"))
        case "discovery_failed":
            let server = try await LoopbackHTTPServer.start { _ in .status(404) }
            defer { Task { try? await server.stop() } }
            return try await start(Self.apiProvider(server.baseURL))
        case "discovery_issuer_mismatch":
            let server = try await LoopbackHTTPServer.start { _ in Self.document(issuer: "https://login.example/{tenantid}/v2.0") }
            defer { Task { try? await server.stop() } }
            return try await start(Self.apiProvider(server.baseURL))
        case "invalid_discovery_document":
            let server = try await LoopbackHTTPServer.start { _ in .text("<html>not a discovery document</html>") }
            defer { Task { try? await server.stop() } }
            return try await start(Self.apiProvider(server.baseURL))
        case "endpoint_not_available":
            let issuer = Mutex<String>("")
            let server = try await LoopbackHTTPServer.start { _ in Self.document(issuer: issuer.withLock { $0 }) }
            defer { Task { try? await server.stop() } }
            issuer.withLock { $0 = server.baseURL }
            let corp: JSONValue = ["name": "corp", "type": "oidc", "issuer": .string(server.baseURL), "client_id": "rp"]
            return try await start([
                "api_access_tokens": ["provider": "corp", "resource": "https://api.example", "method": "introspection"],
                "providers": [corp],
            ])
        default:
            Issue.record("no way to provoke '\(code)': add one here, or take it out of the docs")
            return Failure(status: -1, code: nil, output: "")
        }
    }

    /// The codes a document's `serve-start-failures` table lists, in order.
    static func documentedCodes(_ doc: String) throws -> [String] {
        let text = try String(contentsOf: DocPaths.root.appendingPathComponent(doc), encoding: .utf8)
        guard let start = text.range(of: "<!-- serve-start-failures -->"), let end = text.range(of: "<!-- /serve-start-failures -->"),
            start.upperBound < end.lowerBound
        else { return [] }
        return text[start.upperBound..<end.lowerBound].split(separator: "\n").compactMap { line in
            guard line.hasPrefix("| `"), let close = line.dropFirst(3).firstIndex(of: "`") else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: 3)..<close])
        }
    }

    @Test func cliAndServerGuidesListTheSameStartFailures() throws {
        let cli = try Self.documentedCodes("Docs/CLI.md"), server = try Self.documentedCodes("Docs/Server.md")
        #expect(cli.count >= 10, "\(cli)")
        #expect(cli == server)
    }

    /// Each documented code, provoked: exit 1 and `{"error": CODE, ...}` on standard output.
    @Test(.timeLimit(.minutes(5)), arguments: try documentedCodes("Docs/CLI.md"))
    func everyDocumentedStartFailureIsWhatServeExitsWith(code: String) async throws {
        let failure = try await Self.provoke(code)
        #expect(failure.status == 1 && failure.code == code, "\(failure)")
    }

    /// `--port` is checked like the file's `port`.
    @Test func aPortOutOfRangeIsInvalidConfiguration() async throws {
        let failure = try await Self.start([:], arguments: ["--port", "70000"])
        #expect(failure.status == 1 && failure.code == "invalid_configuration", "\(failure)")
    }
}

/// Where the repository's documents are, from this file's path.
enum DocPaths {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
