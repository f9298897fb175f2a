import Federate
import FederateTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `federate serve`'s MCP server (FederateMCP on Hummingbird, the Swift MCP SDK's server) with
/// an independent client: the official Python MCP SDK (`mcp`, pinned in
/// Tests/Interop/requirements.txt, `Tests/Interop/mcp_client.py`). From a 401 it discovers the
/// RFC 9728 metadata and runs its own OAuth flow (PKCE, RFC 8707 `resource`) against the dev
/// provider, then calls the tools; a token for another resource gets 401 with the challenge,
/// one without a tool's scope 403 `insufficient_scope`.
@Suite("Interop: the Python MCP SDK against federate serve's MCP server", .serialized)
struct MCPInteropTests {
    @Test(.timeLimit(.minutes(5)))
    func thePythonSDKDiscoversSignsInAndCallsTools() async throws {
        let root = try ExternalProcess.packageRoot()
        let python = try await InteropPython.prepare(root: root)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("federate-mcp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("serve.json")
        let object: JSONValue = [
            "store": ["sqlite": .string(directory.appendingPathComponent("accounts.sqlite").path)],
            "providers": [["name": "dev", "type": "dev", "flavor": "generic"]],
            "mcp": ["provider": "dev"],
        ]
        try Data(JSONSerializer.bytes(object)).write(to: config)
        let port = try FreePort.loopback()
        let serve = try InteractiveCLI(
            executable: CLIProcess.executablePath, arguments: ["serve", "--config", config.path, "--port", String(port)],
            directory: directory.path, environment: [:])
        let line = try #require(await serve.nextLine())
        #expect(line.contains("\"url\""), "\(line)")
        let run = await ExternalProcess.run(
            [python, "Tests/Interop/mcp_client.py", "--url", "http://127.0.0.1:\(port)/mcp"], in: root, timeout: 240)
        let end = await serve.send(signal: SIGTERM)
        #expect(end.exited && end.status == 0)
        try #require(!run.timedOut, "the MCP client timed out")
        let result = try JSONParser().parseObject(Array(run.stdout.utf8))
        #expect(result["ok"] == true, "\(run.stdout)\n\(ExternalProcess.tail(run.stderr))")
        #expect(result["steps"]?.arrayValue?.count == 4)
    }
}
