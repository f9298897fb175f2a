import Federate
import FederateDevProvider
import FederateTestSupport
import Foundation
import Testing

/// `federate doctor`: the real binary against the dev provider and against loopback servers
/// serving quirky and hostile documents; each test asserts the specific check and the exit code.
@Suite("Doctor: federate doctor")
struct DoctorCommandTests {
    static let statuses: Set<String> = ["ok", "warning", "failure"]

    /// The JSON shape Docs/CLI.md documents, for any report.
    static func expectShape(_ run: DoctorFixture.Run, sourceLocation: SourceLocation = #_sourceLocation) {
        let report = run.report
        #expect(report["issuer"]?.stringValue != nil, sourceLocation: sourceLocation)
        #expect(report["client_id"] != nil, sourceLocation: sourceLocation)
        let result = report["result"]?.stringValue ?? ""
        #expect(statuses.contains(result), sourceLocation: sourceLocation)
        #expect(
            run.output.status == (result == "failure" ? 1 : 0), "exit \(run.output.status) for result \(result)",
            sourceLocation: sourceLocation)
        var counts: [String: Int64] = [:]
        for check in run.checks {
            #expect(
                Set(check.keys).isSubset(of: ["id", "status", "message", "federate", "code", "details"]), "\(check)",
                sourceLocation: sourceLocation)
            for key in ["id", "message", "federate"] {
                let text = check[key]?.stringValue ?? ""
                #expect(text.isEmpty == false, "\(key) in \(check)", sourceLocation: sourceLocation)
            }
            let status = check["status"]?.stringValue ?? ""
            #expect(statuses.contains(status), sourceLocation: sourceLocation)
            counts[status, default: 0] += 1
        }
        for status in statuses {
            #expect(report["summary"]?[status]?.int64Value == counts[status] ?? 0, "summary \(status)", sourceLocation: sourceLocation)
        }
        let worst = ["failure", "warning", "ok"].first { counts[$0] != nil } ?? "ok"
        #expect(result == worst, sourceLocation: sourceLocation)
        #expect(
            Set(run.checks.compactMap { $0["id"]?.stringValue }).count == run.checks.count, "ids are unique", sourceLocation: sourceLocation
        )
    }

    // MARK: Real providers

    @Test func theDevProviderPassesWithAClientID() async throws {
        let provider = try await DevProvider.start()
        defer { Task { try? await provider.stop() } }
        let output = try await CLIProcess.run([
            "doctor", provider.issuer, "--client-id", "dev-client", "--output", "json", "--timeout", "60",
        ])
        let run = DoctorFixture.Run(output: output, report: try JSONParser().parseObject(Array(output.stdout.utf8)))
        Self.expectShape(run)
        #expect(output.status == 0, "\(output.stdout)")
        for id in [
            "discovery.fetch", "discovery.issuer", "discovery.document", "algorithms.accepted", "keys.fetch", "keys.usable",
            "keys.kid", "keys.algorithms", "endpoints.pkce", "endpoints.response_types", "endpoints.token", "client.id", "client.policy",
        ] {
            #expect(run.status(id) == "ok", "\(id): \(run.check(id) ?? [:])")
        }
        #expect(run.status("endpoints.tls") == "warning")  // plain http, on loopback
        #expect(run.check("keys.usable")?["details"]?["count"]?.int64Value ?? 0 >= 1)
        #expect(run.check("client.policy")?["details"]?["profile"] == "standard")
        #expect(run.check("client.policy")?["details"]?["audiences"] == ["dev-client"])
        #expect(run.report["client_id"] == "dev-client")
        // Hummingbird sends Date: the clock was compared, and agrees.
        #expect(run.status("clock.skew") == "ok", "\(run.check("clock.skew") ?? [:])")
    }

    @Test func textOutputIsTheDefault() async throws {
        let provider = try await DevProvider.start()
        defer { Task { try? await provider.stop() } }
        let output = try await CLIProcess.run(["doctor", provider.issuer, "--timeout", "60"])
        #expect(output.status == 0)
        #expect(output.stdout.hasPrefix("federate doctor \(provider.issuer)\n"))
        #expect(output.stdout.contains("ok      discovery.issuer: "))
        #expect(output.stdout.contains("WARNING endpoints.tls: "))
        #expect(output.stdout.contains("        ↳ Federate "))
        #expect(output.stdout.contains(" 0 failures.\n"))
    }

    @Test func usageErrorsAreReportedByTheParser() async throws {
        let unknown = try await CLIProcess.run(["doctor", "http://127.0.0.1:1", "--client-idd", "x"])
        #expect(unknown.status == 64)
        let empty = try await CLIProcess.run(["doctor", "http://127.0.0.1:1", "--client-id", ""])
        #expect(empty.status == 64)
        for timeout in ["0", "601", "-1", "soon"] {
            let refused = try await CLIProcess.run(["doctor", "http://127.0.0.1:1", "--timeout", timeout])
            #expect(refused.status == 64, "--timeout \(timeout)")
        }
    }

    // MARK: Discovery

    @Test func trailingSlashIssuerMismatchFails() async throws {
        let run = try await DoctorFixture(documentIssuer: { $0 + "/" }).run()
        Self.expectShape(run)
        #expect(run.output.status == 1)
        #expect(run.status("discovery.fetch") == "ok")
        #expect(run.status("discovery.issuer") == "failure")
        #expect(run.check("discovery.issuer")?["code"] == "discovery_issuer_mismatch")
        #expect(run.check("discovery.issuer")?["message"]?.stringValue?.contains("trailing slash mismatch") == true)
        #expect(run.check("discovery.issuer")?["federate"]?.stringValue?.contains("Federate refuses") == true)
        // Federate stops at discovery; the doctor goes on, judging the rest without trusting it.
        #expect(run.status("keys.fetch") == "ok")
    }

    /// The issue's provider: discovery names another issuer and the key set holds an RSA-1024
    /// key. The doctor reports both, fetching the keys at the document's jwks_uri (under the
    /// configured issuer's rules) although Federate refuses the document.
    @Test func everythingThatCanStillBeCheckedIsReportedAfterAnIssuerMismatch() async throws {
        let weak: JSONValue = .object([
            "kty": "RSA", "kid": "rsa-1024", "alg": "RS256", "use": "sig", "e": "AQAB",
            "n": .string(Base64URL.encode([0xC1] + [UInt8](repeating: 0x5A, count: 126) + [0x01])),
        ])
        let run = try await DoctorFixture(documentIssuer: { _ in "https://other.example" }, keys: [weak]).run()
        Self.expectShape(run)
        #expect(run.output.status == 1)
        #expect(run.status("discovery.issuer") == "failure")
        #expect(run.check("discovery.issuer")?["code"] == "discovery_issuer_mismatch")
        #expect(run.status("keys.fetch") == "ok")
        #expect(run.status("keys.usable") == "failure")
        #expect(run.status("keys.skipped") == "warning")
        let reason = run.check("keys.skipped")?["details"]?["keys"]?.arrayValue?.first?["reason"]?.stringValue ?? ""
        #expect(reason.contains("1024"), "\(reason)")
        #expect(run.check("algorithms.accepted") != nil)
        #expect(run.check("endpoints.token") != nil)
    }

    @Test func aMissingRequiredFieldFails() async throws {
        let run = try await DoctorFixture(overrides: ["jwks_uri": .none]).run()
        Self.expectShape(run)
        #expect(run.output.status == 1)
        #expect(run.status("discovery.document") == "failure")
        #expect(run.check("discovery.document")?["code"] == "invalid_discovery_document")
        #expect(run.check("discovery.document")?["message"]?.stringValue?.contains("jwks_uri") == true)
    }

    @Test func aRedirectIsNotFollowed() async throws {
        let run = try await DoctorFixture(discoveryResponse: .redirect(to: "https://elsewhere.example/.well-known/openid-configuration"))
            .run()
        Self.expectShape(run)
        #expect(run.output.status == 1)
        #expect(run.status("discovery.fetch") == "failure")
        #expect(run.check("discovery.fetch")?["message"]?.stringValue?.contains("elsewhere.example") == true)
        #expect(run.check("discovery.fetch")?["federate"]?.stringValue?.contains("does not follow redirects") == true)
    }

    @Test func anInsecureIssuerIsRefusedBeforeAnyRequest() async throws {
        let output = try await CLIProcess.run(["doctor", "http://provider.example", "--output", "json"])
        let run = DoctorFixture.Run(output: output, report: try JSONParser().parseObject(Array(output.stdout.utf8)))
        Self.expectShape(run)
        #expect(output.status == 1)
        #expect(run.status("discovery.fetch") == "failure")
        #expect(run.check("discovery.fetch")?["code"] == "insecure_endpoint")
        #expect(run.check("clock.skew") == nil)
    }

    @Test func anInsecureEndpointIsNamed() async throws {
        let run = try await DoctorFixture(overrides: ["token_endpoint": "http://provider.example/token"]).run()
        Self.expectShape(run)
        #expect(run.output.status == 1)
        #expect(run.status("endpoints.tls") == "failure")
        #expect(run.check("endpoints.tls")?["message"]?.stringValue?.contains("token_endpoint") == true)
    }

    // MARK: Hostile documents

    @Test func aHugeDocumentIsRefusedWithoutTrapping() async throws {
        let chunk = TestHTTPResponse(
            status: 200, headers: [(name: "Content-Type", value: "application/json")],
            body: Array(String(repeating: " ", count: 64 * 1024).utf8),
            repeatBody: 64)  // 4 MiB of whitespace
        let run = try await DoctorFixture(discoveryResponse: chunk).run()
        Self.expectShape(run)
        #expect(run.output.status == 1)
        #expect(run.status("discovery.fetch") == "failure")
        #expect(run.check("discovery.fetch")?["code"] == "discovery_failed")
        #expect(run.check("discovery.fetch")?["federate"]?.stringValue?.contains("1 MiB") == true)
    }

    @Test func aDeepDocumentIsRefusedWithoutTrapping() async throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let run = try await DoctorFixture(discoveryResponse: .json(#"{"issuer": "x", "a": "# + deep + "}")).run()
        Self.expectShape(run)
        #expect(run.output.status == 1)
        #expect(run.status("discovery.document") == "failure")
        #expect(run.check("discovery.document")?["code"] == "invalid_discovery_document")

        let deepKeys = try await DoctorFixture(jwksResponse: .json(#"{"keys": "# + deep + "}")).run()
        Self.expectShape(deepKeys)
        #expect(deepKeys.output.status == 1)
        #expect(deepKeys.status("keys.fetch") == "failure")
        #expect(deepKeys.check("keys.fetch")?["code"] == "key_fetch_failed")
    }

    @Test func oddNumbersAndTypesAreFindingsNotTraps() async throws {
        let run = try await DoctorFixture(overrides: [
            "id_token_signing_alg_values_supported": [1e308, -0.0, .double(1.8446744073709552e19)]
        ]).run()
        Self.expectShape(run)
        #expect(run.output.status == 1)
        #expect(run.status("discovery.document") == "failure")

        let keys: [JSONValue] = [
            .object(["kty": "RSA", "kid": .double(1e300), "n": .integer(Int64.min), "e": .double(-1)]),
            .object(["kty": "EC", "kid": "ec-odd", "crv": "P-256", "x": "AAAA", "y": .integer(Int64.max)]),
            .integer(9_007_199_254_740_993), .null,
            try DoctorFixture.rsaJWK(),
        ]
        let oddKeys = try await DoctorFixture(keys: keys).run()
        Self.expectShape(oddKeys)
        #expect(oddKeys.output.status == 0, "\(oddKeys.output.stdout)")
        #expect(oddKeys.status("keys.usable") == "ok")
        #expect(oddKeys.status("keys.skipped") == "warning")
        #expect(oddKeys.check("keys.skipped")?["details"]?["count"] == 4)
    }

    @Test func controlCharactersFromTheProviderAreNotPrinted() async throws {
        let server = try await LoopbackHTTPServer.start { request in
            let issuer = "http://" + (request.header("Host") ?? "")
            var members = DoctorFixture.members(issuer: issuer)
            members["issuer"] = .string(issuer + "\u{1B}[2J\u{202E}")
            return .json(JSONSerializer.string(.object(members)))
        }
        let output = try await CLIProcess.run(["doctor", server.baseURL, "--timeout", "60"])
        try await server.stop()
        #expect(output.status == 1)
        #expect(!output.stdout.contains("\u{1B}") && !output.stdout.contains("\u{202E}"))
        #expect(output.stdout.contains("FAILURE discovery.issuer: "))
    }

    // MARK: Algorithms

    @Test func hmacOnlyIsAWarning() async throws {
        let run = try await DoctorFixture(overrides: ["id_token_signing_alg_values_supported": ["HS256"]], keys: []).run()
        Self.expectShape(run)
        #expect(run.output.status == 0, "\(run.output.stdout)")
        #expect(run.status("algorithms.accepted") == "warning")
        #expect(run.check("algorithms.accepted")?["federate"]?.stringValue?.contains("client secret") == true)
        #expect(run.check("algorithms.accepted")?["details"]?["hmac"] == ["HS256"])
        #expect(run.status("keys.usable") == "warning")
    }

    @Test func noAlgorithmFederateImplementsFails() async throws {
        let run = try await DoctorFixture(overrides: ["id_token_signing_alg_values_supported": ["none", "ES256K"]]).run()
        Self.expectShape(run)
        #expect(run.output.status == 1)
        #expect(run.status("algorithms.accepted") == "failure")
        #expect(run.status("algorithms.none") == "warning")
        #expect(run.status("algorithms.unknown") == "warning")
    }

    @Test func acceptedAlgorithmsAndHMACBesideThem() async throws {
        let run = try await DoctorFixture(overrides: ["id_token_signing_alg_values_supported": ["RS256", "ES256", "HS256"]]).run()
        Self.expectShape(run)
        #expect(run.output.status == 0)
        #expect(run.check("algorithms.accepted")?["details"]?["accepted"] == ["ES256", "RS256"])
        #expect(run.status("algorithms.hmac") == "ok")
        // ES256 is accepted but only an RSA key is published.
        #expect(run.status("keys.algorithms") == "warning")
        #expect(run.check("keys.algorithms")?["details"]?["without_key"] == ["ES256"])
    }

    // MARK: Keys

    @Test func aKeyWithoutKidAndUnusableKeys() async throws {
        let keys: [JSONValue] = [
            try DoctorFixture.rsaJWK(keyID: nil),
            .object(["kty": "oct", "kid": "hmac", "k": "c2VjcmV0"]),
            .object(["kty": "RSA", "kid": "enc", "use": "enc", "n": "AQAB", "e": "AQAB"]),
        ]
        let run = try await DoctorFixture(keys: keys).run()
        Self.expectShape(run)
        #expect(run.output.status == 0)
        #expect(run.status("keys.kid") == "warning")
        #expect(run.check("keys.kid")?["federate"]?.stringValue?.contains("tries each key of matching type") == true)
        #expect(run.check("keys.usable")?["details"]?["keys"] == [["kty": "RSA", "kid": nil, "alg": nil, "use": "sig", "crv": nil]])
        #expect(run.status("keys.skipped") == "warning")
        let skipped = run.check("keys.skipped")?["details"]?["keys"]?.arrayValue ?? []
        #expect(skipped.map { $0["kid"] } == ["hmac", "enc"])
        #expect(skipped.last?["reason"]?.stringValue?.contains("'enc'") == true)
    }

    @Test func noUsableKeyFails() async throws {
        let run = try await DoctorFixture(keys: [.object(["kty": "oct", "kid": "hmac", "k": "c2VjcmV0"])]).run()
        Self.expectShape(run)
        #expect(run.output.status == 1)
        #expect(run.status("keys.usable") == "failure")
        #expect(run.status("keys.algorithms") == "failure")
    }

    @Test func aFailingKeyEndpointFails() async throws {
        let run = try await DoctorFixture(jwksResponse: .status(503)).run()
        Self.expectShape(run)
        #expect(run.output.status == 1)
        #expect(run.status("keys.fetch") == "failure")
        #expect(run.check("keys.fetch")?["code"] == "key_fetch_failed")
    }

    // MARK: Endpoints

    @Test func missingPKCEMethodsIsAWarningAndPlainOnlyAFailure() async throws {
        let missing = try await DoctorFixture(overrides: ["code_challenge_methods_supported": .none]).run()
        Self.expectShape(missing)
        #expect(missing.output.status == 0)
        #expect(missing.status("endpoints.pkce") == "warning")
        #expect(missing.check("endpoints.pkce")?["federate"]?.stringValue?.contains("still sends PKCE S256") == true)

        let plain = try await DoctorFixture(overrides: ["code_challenge_methods_supported": ["plain"]]).run()
        Self.expectShape(plain)
        #expect(plain.output.status == 1)
        #expect(plain.status("endpoints.pkce") == "failure")
        #expect(plain.check("endpoints.pkce")?["code"] == "invalid_configuration")
    }

    @Test func endpointsPresenceHostsAndMethods() async throws {
        let run = try await DoctorFixture(overrides: [
            "revocation_endpoint": .none, "userinfo_endpoint": "https://api.provider.example/userinfo",
            "end_session_endpoint": .none, "token_endpoint_auth_methods_supported": ["tls_client_auth"],
            "response_types_supported": ["id_token"], "response_modes_supported": ["form_post"],
        ]).run(["--client-id", "my-app"])
        Self.expectShape(run)
        #expect(run.output.status == 1)
        #expect(run.status("endpoints.revocation") == "warning")
        #expect(run.status("endpoints.end_session") == "ok")
        #expect(run.check("endpoints.userinfo")?["message"]?.stringValue?.contains("not the issuer's host") == true)
        #expect(run.check("endpoints.token")?["message"]?.stringValue?.contains("on the issuer's host") == true)
        #expect(run.status("endpoints.auth_methods") == "failure")
        #expect(run.status("endpoints.response_types") == "failure")
        #expect(run.status("endpoints.response_modes") == "warning")
        #expect(run.status("client.authentication") == "warning")
    }

    // MARK: Clock

    @Test func aSkewedDateHeaderIsAWarning() async throws {
        let ahead = try await DoctorFixture(date: { DoctorFixture.httpDate($0.addingTimeInterval(300)) }).run()
        Self.expectShape(ahead)
        #expect(ahead.output.status == 0)
        #expect(ahead.status("clock.skew") == "warning")
        let skew = ahead.check("clock.skew")?["details"]?["skew_seconds"]?.int64Value ?? 0
        #expect((295...305).contains(skew), "\(skew)")
        #expect(ahead.check("clock.skew")?["details"]?["tolerance_seconds"] == 60)
        #expect(ahead.check("clock.skew")?["message"]?.stringValue?.contains("ahead of") == true)

        let behind = try await DoctorFixture(date: { DoctorFixture.httpDate($0.addingTimeInterval(-3600)) }).run()
        #expect(behind.status("clock.skew") == "warning")
        #expect(behind.check("clock.skew")?["message"]?.stringValue?.contains("behind") == true)

        let close = try await DoctorFixture(date: { DoctorFixture.httpDate($0.addingTimeInterval(20)) }).run()
        #expect(close.status("clock.skew") == "ok")

        let none = try await DoctorFixture(date: { _ in nil }).run()
        #expect(none.status("clock.skew") == "warning")
        let garbage = try await DoctorFixture(date: { _ in "yesterday, 99 Foo 2025 99:99:99 GMT" }).run()
        #expect(garbage.status("clock.skew") == "warning")
        #expect(garbage.check("clock.skew")?["message"]?.stringValue?.contains("not an HTTP date") == true)
    }

    // MARK: Client

    @Test func clientChecksForAPublicClient() async throws {
        let run = try await DoctorFixture().run(["--client-id", "my app"])
        Self.expectShape(run)
        #expect(run.output.status == 1)
        #expect(run.status("client.id") == "failure")
        #expect(run.status("client.authentication") == "ok")
        #expect(run.status("client.azp") == "ok")
        #expect(run.check("client.policy")?["details"]?["algorithms"] == ["RS256"])
    }
}
