import Crypto
import Federate
import FederateApple
import FederateDevProvider
import FederateGoogle
import FederateHummingbird
import FederateOIDC
import FederateTestSupport
import Foundation
import Hummingbird
import Testing

/// `FederateRoutes` on a real Hummingbird server on loopback, driven like a browser (cookies
/// and redirects by hand) against dev providers of three flavours.
@Suite("FederateRoutes end to end", .serialized)
struct FederateRoutesTests {
    /// A browser: a cookie jar and redirect-following by hand.
    final class Browser: @unchecked Sendable {
        private let lock = NSLock()
        private var jar: [String: String] = [:]

        func cookie(_ name: String) -> String? { lock.withLock { jar[name] } }

        func send(_ url: String, method: String = "GET", body: String? = nil, headers: [(String, String)] = []) async throws -> Federate.HTTPResponse {
            var all = headers.map { (name: $0.0, value: $0.1) }
            let cookies = lock.withLock { jar.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
            if url.hasPrefix("http://127.0.0.1"), !cookies.isEmpty { all.append((name: "Cookie", value: cookies)) }
            if body != nil { all.append((name: "Content-Type", value: "application/x-www-form-urlencoded")) }
            let response = try await AsyncHTTPClientTransport.shared.send(Federate.HTTPRequest(
                method: method, url: url, headers: all, body: body.map { Array($0.utf8) }))
            for header in response.headers where header.name.lowercased() == "set-cookie" {
                let pair = header.value.split(separator: ";")[0]
                guard let equals = pair.firstIndex(of: "=") else { continue }
                let name = String(pair[..<equals]), value = String(pair[pair.index(after: equals)...])
                lock.withLock {
                    if header.value.contains("Max-Age=0") { jar.removeValue(forKey: name) } else { jar[name] = value }
                }
            }
            return response
        }

        /// Follows redirects from `url`, submitting an auto-posting form like a browser; returns the last response.
        func navigate(_ url: String, origin: String) async throws -> Federate.HTTPResponse {
            var response = try await send(url)
            var current = url
            for _ in 0..<10 {
                if let location = response.header("Location"), [302, 303].contains(response.status) {
                    current = location.hasPrefix("/") ? origin + location : location
                    response = try await send(current)
                } else if response.status == 200, let action = Self.formAction(response.body) {
                    let fields = HTMLForm.hiddenFields(String(decoding: response.body, as: UTF8.self))
                    response = try await send(action, method: "POST", body: FormURLEncoding.encode(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
                } else {
                    break
                }
            }
            return response
        }

        static func formAction(_ body: [UInt8]) -> String? {
            let html = String(decoding: body, as: UTF8.self)
            guard html.contains("document.forms[0].submit()"), let start = html.range(of: "action=\""),
                let end = html[start.upperBound...].firstIndex(of: "\"") else { return nil }
            return String(html[start.upperBound..<end]).replacingOccurrences(of: "&amp;", with: "&")
        }
    }

    static func devConfiguration(_ flavor: DevFlavor, path: String) -> DevProviderConfiguration {
        var configuration = DevProviderConfiguration.standard(for: flavor)
        for index in configuration.clients.indices where !configuration.clients[index].redirectURIs.isEmpty {
            configuration.clients[index].redirectURIs = ["http://127.0.0.1" + path]
        }
        return configuration
    }

    @Test func signInLinkSignOutRecentLoginAndDelete() async throws {
        let generic = try await DevProvider.start(configuration: Self.devConfiguration(.generic, path: "/auth/dev/callback"))
        let google = try await DevProvider.start(configuration: Self.devConfiguration(.google, path: "/auth/google/callback"))
        let apple = try await DevProvider.start(configuration: Self.devConfiguration(.apple, path: "/auth/apple/callback"))
        defer { Task { for provider in [generic, google, apple] { try? await provider.stop() } } }
        let key = try #require(apple.configuration.appleClientKey)
        let clock = TestClock()
        let accounts = AccountService(store: InMemoryAccountStore(), clock: clock.function)
        let port = try FreePort.loopback()
        let origin = "http://127.0.0.1:\(port)"
        let configuration = FederateServerConfiguration(
            origin: origin,
            providers: [
                "dev": try OIDCProvider(id: "oidc.dev", issuer: generic.issuer, clientID: "dev-client", clientSecret: "dev-secret"),
                "google": GoogleProvider(clientID: "dev-google.apps.googleusercontent.com", clientSecret: "dev-google-secret", endpoints: .at(google.baseURL)),
                "apple": try AppleProvider(servicesID: "com.example.dev.web", teamID: key.teamID, keyID: key.keyID, privateKeyPEM: key.privateKeyPEM, endpoints: .at(apple.baseURL)),
            ],
            accounts: accounts,
            sealer: try PendingAuthorizationSealer(keys: [.init(id: "k1", key: SymmetricKey(size: .bits256))]),
            appleDomainAssociation: "apple-association-contents")
        let router = Router(context: FederateContext.self)
        FederateRoutes<FederateContext>(configuration: configuration).register(on: router)
        router.get("/") { _, _ in "home" }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
        let server = Task { try await app.runService() }
        defer { server.cancel() }
        let browser = Browser()
        try await Self.waitUntilListening(origin)

        // Sign in with the generic provider; returnTo must stay on this site.
        let signedIn = try await browser.navigate(origin + "/auth/dev/start?returnTo=//evil.example/x", origin: origin)
        #expect(String(decoding: signedIn.body, as: UTF8.self) == "home")
        #expect(browser.cookie("federate_session") != nil)
        let me = try JSONParser().parseObject(try await browser.send(origin + "/me").body)
        let uid = try #require(me["uid"]?.stringValue)
        #expect(me["providers"]?.arrayValue?.count == 1)
        let csrf = try #require(me["csrf_token"]?.stringValue)
        #expect(browser.cookie("federate_csrf") == csrf)

        // Link Google, then Apple (form_post, cross-site POST in real life).
        _ = try await browser.navigate(origin + "/auth/google/start?intent=link&returnTo=/", origin: origin)
        _ = try await browser.navigate(origin + "/auth/apple/start?intent=link&returnTo=/", origin: origin)
        let linked = try JSONParser().parseObject(try await browser.send(origin + "/me").body)
        #expect(Set(linked["providers"]?.arrayValue?.compactMap { $0["provider_id"]?.stringValue } ?? []) == ["oidc.dev", "google.com", "apple.com"])

        // Sign-out needs the CSRF header; then Google signs in to the same account.
        let forged = try await browser.send(origin + "/auth/signout", method: "POST", headers: [("Origin", "https://evil.example")])
        #expect(forged.status == 403)
        let signOut = try await browser.send(origin + "/auth/signout", method: "POST", headers: [("Origin", origin), ("X-CSRF-Token", csrf)])
        #expect(signOut.status == 200)
        #expect(try await browser.send(origin + "/me").status == 401)
        _ = try await browser.navigate(origin + "/auth/google/start", origin: origin)
        #expect(try JSONParser().parseObject(try await browser.send(origin + "/me").body)["uid"]?.stringValue == uid)

        // Ten minutes later, deleting needs a recent sign-in; reauthenticating rotates the session.
        clock.advance(by: 600)
        let tooOld = try await browser.send(origin + "/me", method: "DELETE", headers: [("Origin", origin), ("X-CSRF-Token", csrf)])
        #expect(tooOld.status == 403)
        #expect(String(decoding: tooOld.body, as: UTF8.self).contains("\"requires_recent_login\""))
        let before = browser.cookie("federate_session")
        _ = try await browser.navigate(origin + "/auth/google/start?intent=reauthenticate", origin: origin)
        #expect(browser.cookie("federate_session") != before)
        let deleted = try await browser.send(origin + "/me", method: "DELETE", headers: [("Origin", origin), ("X-CSRF-Token", csrf)])
        #expect(deleted.status == 200, "\(String(decoding: deleted.body, as: UTF8.self))")
        #expect(try JSONParser().parseObject(deleted.body)["revoked"] == 3)
        #expect(browser.cookie("federate_session") == nil)

        // Apple's domain check gets the file itself, never a redirect.
        let association = try await browser.send(origin + "/.well-known/apple-developer-domain-association.txt")
        #expect(association.status == 200)
        #expect(String(decoding: association.body, as: UTF8.self) == "apple-association-contents")
    }

    static func waitUntilListening(_ origin: String) async throws {
        for _ in 0..<100 {
            if (try? await AsyncHTTPClientTransport.shared.send(Federate.HTTPRequest(url: origin + "/"))) != nil { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the server did not start")
    }
}
