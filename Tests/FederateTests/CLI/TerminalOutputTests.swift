import Federate
import FederateTestSupport
import Foundation
import Testing

/// Nothing a provider sends reaches the terminal raw: URLs Federate prints or opens are
/// printable ASCII without spaces, checked when they are parsed; other provider text is
/// bounded in bytes and stripped of control and bidirectional characters (`TerminalText`).
@Suite("CLI: provider text on the terminal")
struct TerminalOutputTests {
    /// What must never appear in the tool's output: ESC, the 8-bit CSI, bidirectional overrides
    /// and isolates, and a pile of combining marks.
    static func expectClean(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for scalar in ["\u{1B}", "\u{9B}", "\u{202E}", "\u{2066}", "\u{200F}", "\u{61C}"] {
            #expect(
                !text.contains(scalar), "raw U+\(String(scalar.unicodeScalars.first?.value ?? 0, radix: 16)) in output",
                sourceLocation: sourceLocation)
        }
        #expect(
            !text.contains(String(repeating: "\u{301}", count: 200)), "a pile of combining marks in output", sourceLocation: sourceLocation)
    }

    /// A provider on loopback whose discovery document and device answer carry `hostile` values.
    static func provider(discovery: [String: JSONValue] = [:], device: [String: JSONValue] = [:]) async throws -> LoopbackHTTPServer {
        try await LoopbackHTTPServer.start { request in
            let issuer = "http://" + (request.header("Host") ?? "127.0.0.1")
            switch request.path {
            case "/.well-known/openid-configuration":
                var members: [String: JSONValue] = [
                    "issuer": .string(issuer), "authorization_endpoint": .string(issuer + "/authorize"),
                    "token_endpoint": .string(issuer + "/token"), "jwks_uri": .string(issuer + "/jwks"),
                    "device_authorization_endpoint": .string(issuer + "/device"),
                    "pushed_authorization_request_endpoint": .string(issuer + "/par"),
                    "response_types_supported": ["code"], "subject_types_supported": ["public"],
                    "id_token_signing_alg_values_supported": ["RS256"], "token_endpoint_auth_methods_supported": ["none"],
                ]
                members.merge(discovery) { _, new in new }
                return .json(JSONSerializer.string(.object(members)))
            case "/device":
                var answer: [String: JSONValue] = [
                    "device_code": "dc", "user_code": "ABCD-EFGH", "verification_uri": .string(issuer + "/activate"), "expires_in": 60,
                    "interval": 1,
                ]
                answer.merge(device) { _, new in new }
                return .json(JSONSerializer.string(.object(answer)))
            case "/par":
                return TestHTTPResponse(
                    status: 201, headers: [("Content-Type", "application/json")],
                    body: Array(#"{"request_uri":"urn:x","expires_in":60}"#.utf8))
            case "/token":
                return TestHTTPResponse(
                    status: 400, headers: [("Content-Type", "application/json")], body: Array(#"{"error":"authorization_pending"}"#.utf8))
            default:
                return .json(#"{"keys":[]}"#)
            }
        }
    }

    static let hostileURIs: [String] = [
        "https://op.example/activate\u{1B}[2J", "https://op.example/\u{202E}etavitca", "https://op.example/acti vate",
        "https://op.example/\u{1B}]8;;https://evil.example\u{1B}\\activate\u{1B}]8;;\u{1B}\\", "https://op.example/\u{9B}2J",
        "https://op.\u{0435}xample/activate",  // a Cyrillic look-alike
    ]

    @Test(arguments: hostileURIs)
    func loginDeviceRefusesAHostileVerificationURI(uri: String) async throws {
        for field in ["verification_uri", "verification_uri_complete"] {
            let server = try await Self.provider(device: [field: .string(uri)])
            let output = try await CLIProcess.run([
                "login", "--device", "--issuer", server.baseURL, "--client-id", "cli", "--timeout", "5",
            ])
            try await server.stop()
            #expect(output.status == 1)
            #expect(output.stdout.contains("invalid_device_authorization_response"), "\(field): \(output.stdout)")
            Self.expectClean(output.stdout + output.stderr)
        }
    }

    /// One letter and 20,000 combining marks: one "character", 40,001 bytes.
    @Test func loginDeviceRefusesAUserCodeThatIsLongInBytes() async throws {
        let server = try await Self.provider(device: ["user_code": .string("A" + String(repeating: "\u{301}", count: 20_000))])
        let output = try await CLIProcess.run(["login", "--device", "--issuer", server.baseURL, "--client-id", "cli", "--timeout", "5"])
        try await server.stop()
        #expect(output.status == 1)
        #expect(output.stdout.contains("invalid_device_authorization_response"), "\(output.stdout)")
        Self.expectClean(output.stdout + output.stderr)
    }

    /// A sound answer still prints the URI and the code.
    @Test func loginDevicePrintsASoundAnswer() async throws {
        let server = try await Self.provider(device: ["user_code": "WDJB-MJHT"])
        let output = try await CLIProcess.run(["login", "--device", "--issuer", server.baseURL, "--client-id", "cli", "--timeout", "2"])
        try await server.stop()
        #expect(output.stderr.contains("/activate"), "\(output.stderr)")
        #expect(output.stderr.contains("and enter the code: WDJB-MJHT"))
    }

    /// An OSC 8 hyperlink (or any other escape) in `authorization_endpoint` is refused when the
    /// document is parsed: `login` and `login --par` print no URL at all.
    @Test(arguments: [[String](), ["--par"]])
    func loginRefusesAHostileAuthorizationEndpoint(extra: [String]) async throws {
        for uri in Self.hostileURIs {
            let server = try await Self.provider(discovery: ["authorization_endpoint": .string(uri)])
            let output = try await CLIProcess.run(
                ["login", "--no-browser", "--issuer", server.baseURL, "--client-id", "cli", "--timeout", "5"] + extra)
            try await server.stop()
            #expect(output.status == 1)
            #expect(output.stdout.contains("invalid_url"), "\(uri.debugDescription): \(output.stdout)")
            #expect(!output.stderr.contains("Open this URL"))
            Self.expectClean(output.stdout + output.stderr)
        }
    }

    /// Data the tool prints as JSON stays exact, with the characters a terminal would obey
    /// written as `\u` escapes.
    @Test func discoverEscapesTerminalControlsInJSON() async throws {
        let server = try await Self.provider(discovery: ["service_documentation": "see \u{202E}txt.exe\u{9B}2J\u{2066}x\u{2069}\u{1B}[31m"])
        let output = try await CLIProcess.run(["discover", server.baseURL])
        try await server.stop()
        #expect(output.status == 0, "\(output.stdout)")
        Self.expectClean(output.stdout)
        #expect(output.stdout.contains(#"see \u202etxt.exe\u009b2J\u2066x\u2069\u001b[31m"#), "\(output.stdout)")
        let document = try JSONParser().parseObject(Array(output.stdout.utf8))
        #expect(document["service_documentation"] == "see \u{202E}txt.exe\u{9B}2J\u{2066}x\u{2069}\u{1B}[31m")
    }

    @Test func terminalTextIsBoundedInBytesAndStripped() {
        #expect(TerminalText.sanitized("a\u{1B}[2Jb\u{202E}c\u{9B}d\u{61C}e\u{200E}f\u{2028}g") == "a?[2Jb?c?d?e?f?g")
        let flood = TerminalText.sanitized("A" + String(repeating: "\u{301}", count: 20_000), maxBytes: 64)
        #expect(flood.utf8.count <= 64)
        #expect(flood.hasSuffix("\u{2026}"))
        #expect(TerminalText.sanitized("exactly", maxBytes: 7) == "exactly")
        #expect(TerminalText.sanitized("exactly!", maxBytes: 7) == "exac\u{2026}")
        #expect(TerminalText.sanitized("", maxBytes: 0) == "")
        for limit in 0...12 {
            let cut = TerminalText.sanitized("\u{1F600}\u{1F600}\u{1F600}\u{1F600}", maxBytes: limit)
            #expect(cut.utf8.count <= max(limit, 4), "\(limit)")
        }
    }
}
