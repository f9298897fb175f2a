import Crypto
import Federate
@testable import FederateDevProvider
import FederateTestSupport
import Foundation
import Testing

/// `federate login --no-browser` against the in-process dev provider: the test plays the
/// browser (auto-approve), following the printed URL to the loopback callback.
@Suite("federate login against the dev provider")
struct LoginAgainstDevProviderTests {
    @Test(arguments: [["--client-id", "dev-client", "--client-secret", "dev-secret"], ["--client-id", "dev-public"]])
    func signsIn(credentials: [String]) async throws {
        let provider = try await DevProvider.start()
        defer { Task { try? await provider.stop() } }
        let result = try await Self.login(provider, credentials)
        #expect(result["claims"]?["sub"] == "alice")
        #expect(result["userinfo"]?["email"] == "alice@example.com")
        #expect(result["granted_scopes"] == ["openid", "email", "profile"])
        #expect(result["tokens"]?["refresh_token"]?.stringValue?.isEmpty == false)
    }

    /// `--auth-method private_key_jwt --private-key FILE`: the client authenticates with a
    /// signed assertion (RFC 7523) by a key the provider registered.
    @Test func signsInWithPrivateKeyJWT() async throws {
        let key = P256.Signing.PrivateKey()
        var configuration = DevProviderConfiguration.standard
        let jwk = try #require(JWSSigningKey(p256: key, keyID: "cli-key").publicJWK(algorithm: .es256))
        configuration.clients.append(
            DevClient(
                id: "keyed", redirectURIs: ["http://127.0.0.1/callback"],
                publicKeys: try JSONWebKeySet(jwks: JSONSerializer.bytes(["keys": [.object(jwk)]]))))
        let provider = try await DevProvider.start(configuration: configuration)
        defer { Task { try? await provider.stop() } }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("federate-key-\(UUID().uuidString).pem")
        try key.pemRepresentation.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await Self.login(
            provider, ["--client-id", "keyed", "--auth-method", "private_key_jwt", "--private-key", file.path, "--key-id", "cli-key"])
        #expect(result["claims"]?["aud"] == "keyed")
        // A key the provider does not know is refused, with the reason.
        try P256.Signing.PrivateKey().pemRepresentation.write(to: file, atomically: true, encoding: .utf8)
        let refused = try await CLIProcess.run(
            [
                "token", "refresh", "--issuer", provider.issuer, "--client-id", "keyed", "--auth-method", "private_key_jwt",
                "--private-key", file.path,
                "--refresh-token", "unknown",
            ])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("invalid_client"), "\(refused.stdout)")
    }

    /// Every flavour, with the credentials `federate dev-provider` would print.
    @Test(arguments: [DevFlavor.google, .apple, .firebase])
    func signsInAgainstEveryFlavour(flavor: DevFlavor) async throws {
        let provider = try await DevProvider.start(configuration: .standard(for: flavor))
        defer { Task { try? await provider.stop() } }
        let client = provider.configuration.clients[0]
        var arguments = ["--client-id", client.id]
        if let secret = try provider.clientSecret(for: client) { arguments.append("--client-secret=" + secret) }
        if flavor == .apple { arguments += ["--scope", "openid"] }  // name/email need form_post, which `login` does not choose
        let result = try await Self.login(provider, arguments)
        let user = try #require(provider.configuration.users.first)
        #expect(result["claims"]?["sub"]?.stringValue == user.subject)
        #expect(result["claims"]?["iss"]?.stringValue == provider.issuer)
        switch flavor {
        case .google: #expect(result["claims"]?["azp"]?.stringValue == client.id)
        case .apple: #expect(result["claims"]?["nonce_supported"] == true)
        case .firebase: #expect(result["claims"]?["firebase"]?["sign_in_provider"] == "google.com")
        case .generic, .microsoft, .github: break  // microsoft: a {tenantid} issuer (Tests/FederateMicrosoftTests); github: OAuth 2.0 only
        }
    }

    /// A callback carrying this flow's exact `state` once, but a duplicated `code`, ends
    /// `login` at once with `invalid_callback` (it used to be ignored until `--timeout`); one
    /// that cannot be tied to the flow (another state, or `state` twice) is still ignored.
    @Test func aMalformedCallbackWithTheFlowsStateEndsTheLoginAtOnce() async throws {
        let provider = try await DevProvider.start()
        defer { Task { try? await provider.stop() } }
        let process = try InteractiveCLI(
            ["login", "--no-browser", "--issuer", provider.issuer, "--client-id", "dev-public", "--timeout", "30"], readStandardError: true)
        var url: String?
        while let line = await process.nextErrorLine() {
            if line.hasPrefix("http://") {
                url = line
                break
            }
        }
        let items = URLComponents(string: try #require(url))?.queryItems ?? []
        let state = try #require(items.first { $0.name == "state" }?.value)
        let redirectURI = try #require(items.first { $0.name == "redirect_uri" }?.value)
        let escaped = FormURLEncoding.escape(state)
        for untied in [
            "?code=a&code=b&state=other", "?code=a&code=b&state=\(escaped)&state=\(escaped)", "?code=a&code=b", "?code=a&state=other",
        ] {
            let ignored = try await PatientTransport.shared.send(HTTPRequest(url: redirectURI + untied))
            #expect(ignored.status == 400, "\(untied)")
        }
        let started = ContinuousClock.now
        let page = try await PatientTransport.shared.send(HTTPRequest(url: redirectURI + "?code=a&code=b&state=\(escaped)"))
        #expect(String(decoding: page.body, as: UTF8.self).contains("did not finish"))
        let output = await process.finish()
        #expect(ContinuousClock.now - started < .seconds(15))
        #expect(output.status == 1)
        let error = try JSONParser().parseObject(Array(output.remainingOutput.utf8))
        #expect(error["error"] == "invalid_callback", "\(output.remainingOutput)")
    }

    /// Runs `federate login --no-browser`, plays the browser, and returns the JSON printed.
    static func login(_ provider: DevProvider, _ credentials: [String]) async throws -> [String: JSONValue] {
        let process = try InteractiveCLI(
            ["login", "--no-browser", "--issuer", provider.issuer] + credentials + ["--show-tokens"], readStandardError: true)
        var url: String?
        while let line = await process.nextErrorLine() {
            if line.hasPrefix("http://") {
                url = line
                break
            }
        }
        let authorizationURL = try #require(url, "no authorization URL on standard error")
        let approved = try await PatientTransport.shared.send(HTTPRequest(url: authorizationURL))
        let callback = try #require(approved.header("Location"), "\(String(decoding: approved.body, as: UTF8.self))")
        #expect(callback.hasPrefix("http://127.0.0.1:"))
        let page = try await PatientTransport.shared.send(HTTPRequest(url: callback))
        #expect(page.status == 200)

        let output = await process.finish()
        #expect(output.status == 0, "\(output.remainingOutput)")
        return try JSONParser().parseObject(Array(output.remainingOutput.utf8))
    }
}
