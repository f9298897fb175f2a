import Crypto
import Federate
import FederateTestSupport
import Foundation
import Testing

/// A provider on loopback that serves whatever quirk a doctor test wants: discovery members
/// changed or removed, a chosen JWKS, a replaced response, a chosen `Date` header.
struct DoctorFixture: Sendable {
    /// Discovery members to set (`nil` removes one) over a sound default document.
    var overrides: [String: JSONValue?] = [:]
    /// The document's `issuer`; `nil` is the issuer itself.
    var documentIssuer: (@Sendable (String) -> String)?
    /// The JWKS `keys`; `nil` is one RSA-2048 key with kid `rsa-1`.
    var keys: [JSONValue]?
    /// Replaces the discovery response entirely (huge, deep, redirect).
    var discoveryResponse: TestHTTPResponse?
    /// Replaces the JWKS response entirely.
    var jwksResponse: TestHTTPResponse?
    /// The `Date` header for every response, from the current time; `nil` sends none.
    var date: @Sendable (Date) -> String? = { DoctorFixture.httpDate($0) }

    /// What a run produced: the process output and the parsed JSON report.
    struct Run {
        let output: CLIProcess.Output
        let report: [String: JSONValue]

        /// The checks, in order.
        var checks: [[String: JSONValue]] { report["checks"]?.arrayValue?.compactMap(\.objectValue) ?? [] }

        /// The check with this id.
        func check(_ id: String) -> [String: JSONValue]? { checks.first { $0["id"]?.stringValue == id } }

        /// The status of the check with this id.
        func status(_ id: String) -> String? { check(id)?["status"]?.stringValue }
    }

    /// An IMF-fixdate for `date`.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    /// The public JWK of the shared RSA test key, with `kid` as given (`nil` removes it).
    static func rsaJWK(keyID: String? = "rsa-1") throws -> JSONValue {
        var jwk = try #require(try TestIssuer.rsaKey(keyID: "rsa-1").publicJWK())
        jwk["kid"] = keyID.map(JSONValue.string)
        return .object(jwk)
    }

    /// A sound discovery document for `issuer`.
    static func members(issuer: String) -> [String: JSONValue] {
        [
            "issuer": .string(issuer),
            "authorization_endpoint": .string(issuer + "/authorize"),
            "token_endpoint": .string(issuer + "/token"),
            "userinfo_endpoint": .string(issuer + "/userinfo"),
            "revocation_endpoint": .string(issuer + "/revoke"),
            "jwks_uri": .string(issuer + "/jwks"),
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "none"],
            "code_challenge_methods_supported": ["S256"],
        ]
    }

    /// Serves the fixture, runs `federate doctor ISSUER --output json` with `arguments`, and stops.
    func run(_ arguments: [String] = []) async throws -> Run {
        let fixture = self
        let keys = try self.keys ?? [Self.rsaJWK()]
        let server = try await LoopbackHTTPServer.start { request in
            let issuer = "http://" + (request.header("Host") ?? "127.0.0.1")
            var response: TestHTTPResponse
            switch request.path {
            case "/.well-known/openid-configuration":
                if let replaced = fixture.discoveryResponse {
                    response = replaced
                } else {
                    var members = Self.members(issuer: issuer)
                    members["issuer"] = .string(fixture.documentIssuer?(issuer) ?? issuer)
                    for (name, value) in fixture.overrides { members[name] = value }
                    response = .json(JSONSerializer.string(.object(members)))
                }
            case "/jwks":
                response = fixture.jwksResponse ?? .json(JSONSerializer.string(["keys": .array(keys)]))
            default:
                response = .status(404)
            }
            if let date = fixture.date(Date()) { response.headers.append((name: "Date", value: date)) }
            return response
        }
        // A minute per request: the fixture's server shares a loaded machine with the other tests.
        let output = try await CLIProcess.run(["doctor", server.baseURL, "--output", "json", "--timeout", "60"] + arguments)
        try await server.stop()
        let report = try JSONParser().parseObject(Array(output.stdout.utf8))
        return Run(output: output, report: report)
    }
}
