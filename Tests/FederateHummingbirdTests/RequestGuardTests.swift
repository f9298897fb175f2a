import Federate
import FederateTestSupport
import FederateDevProvider
@testable import FederateHummingbird
@testable import FederateServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// The building blocks that guard requests: `returnTo`, cookies, CSRF, bearer ID tokens.
@Suite("Request guards")
struct RequestGuardTests {
    @Test(
        arguments: [
            ("/account", "/account"), ("/a/b?x=1", "/a/b?x=1"), ("/a/b?x=1#top", "/"), ("/?merge=1#", "/"), (nil, "/"), ("", "/"),
            ("//evil.example", "/"),
            ("/\\evil.example", "/"), ("https://evil.example/", "/"), ("javascript:alert(1)", "/"), ("account", "/"),
            ("/\tevil", "/"), ("/ok path", "/"), ("/%2F%2Fevil.example", "/%2F%2Fevil.example"),
        ] as [(String?, String)])
    func returnToStaysOnThisSite(value: String?, expected: String) {
        #expect(ReturnTo.sanitize(value) == expected)
    }

    /// RFC 6750 §2.1: the scheme case-insensitively, one space, then the token as sent.
    @Test(
        arguments: [
            ("Bearer abc.def.ghi", "abc.def.ghi"), ("bearer x", "x"), ("BEARER x", "x"), ("bEaReR é.x", "é.x"),
            ("Bearer ", nil), ("Bearer", nil), ("Bearerx y", nil), ("Bearer\tabc", nil), ("Basic abc", nil), ("Bearar abc", nil),
            ("", nil), ("Bé", nil), ("Bearer  two-spaces", " two-spaces"),
        ] as [(String, String?)])
    func bearerTokensAreReadFromTheAuthorizationHeader(header: String, expected: String?) {
        #expect(BearerToken.from(header) == expected)
    }

    @Test func noAuthorizationHeaderIsNoBearerToken() {
        #expect(BearerToken.from(nil) == nil)
    }

    @Test func cookiesAreWrittenWithTheirAttributesAndRead() {
        // FederateServer writes them for every integration.
        func parts(_ cookie: SetCookie) -> Set<String> { Set(cookie.headerValue.components(separatedBy: "; ")) }
        #expect(
            parts(SessionCookies.session("abc", maxAge: 3600, secure: true))
                == ["__Host-federate_session=abc", "Max-Age=3600", "Path=/", "Secure", "HttpOnly", "SameSite=Lax"])
        #expect(
            parts(SessionCookies.deletingSession(secure: false)) == [
                "federate_session=", "Max-Age=0", "Path=/", "HttpOnly", "SameSite=Lax",
            ])
        // Read by FederateServer: a name sent twice keeps its first value; names compare byte for byte.
        let request = ServerRequest(method: .get, path: "/", headers: [.cookie: "a=1; b=two", .cookie: "a=ignored; c=3; K=kelvin"])
        #expect(request.cookie("a") == "1")
        #expect(request.cookie("b") == "two")
        #expect(request.cookie("c") == "3")
        #expect(request.cookie("d") == nil)
        #expect(request.cookie("\u{212A}") == nil)  // KELVIN SIGN is not K
    }

    @Test func csrfNeedsTheOriginAndTheDoubleSubmittedToken() throws {
        let check = CSRFCheck(origin: "https://app.example")
        let token = String(repeating: "t", count: 32)
        try check.verify(origin: "https://app.example", referer: nil, headerToken: token, cookieToken: token)
        try check.verify(origin: nil, referer: "https://app.example/me?x", headerToken: token, cookieToken: token)
        let refusals: [(String?, String?, String?, String?)] = [
            ("https://evil.example", nil, token, token), (nil, nil, token, token), (nil, "https://app.example.evil/", token, token),
            ("https://app.example", nil, nil, token), ("https://app.example", nil, token, nil),
            ("https://app.example", nil, token, String(repeating: "u", count: 32)), ("https://app.example", nil, "short", "short"),
        ]
        for (origin, referer, header, cookie) in refusals {
            let error = #expect(throws: FederateError.self) {
                try check.verify(origin: origin, referer: referer, headerToken: header, cookieToken: cookie)
            }
            #expect(error?.code == .csrfFailed)
        }
        #expect(CSRFCheck.isUnsafe("DELETE") && CSRFCheck.isUnsafe("post") && !CSRFCheck.isUnsafe("GET"))
    }

    @Test func bearerMiddlewareAcceptsOnlyVerifiedIDTokens() async throws {
        let provider = try await DevProvider.start()
        defer { Task { try? await provider.stop() } }
        let metadata = try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: provider.issuer)
        let verifier = IDTokenVerifier(
            policy: IDTokenPolicy(metadata: metadata, clientID: "dev-client"),
            keys: try RemoteKeySet(url: metadata.jwksURI, httpClient: PatientTransport.shared))
        let router = Router(context: FederateContext.self)
        router.group("api").add(
            middleware: BearerAuthenticationMiddleware(verifier: IDTokenBearerVerifier(providerID: "oidc.dev", verifier: verifier))
        )
        .get("whoami") { _, context in context.federate.caller?.idToken?.subject ?? "nobody" }
        let good = try await Self.idToken(provider, clientID: "dev-client", secret: "dev-secret")
        let foreign = try await Self.idToken(provider, clientID: "dev-public", secret: nil)  // another audience

        try await Application(router: router).test(.live) { client in
            try await client.execute(uri: "/api/whoami", method: .get, headers: [.authorization: "Bearer \(good)"]) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "alice")
            }
            try await client.execute(uri: "/api/whoami", method: .get, headers: [.authorization: "Bearer \(foreign)"]) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate] == "Bearer error=\"invalid_token\"")
                #expect(String(buffer: response.body).contains("\"audience_mismatch\""))
            }
            try await client.execute(uri: "/api/whoami", method: .get) { response in
                #expect(response.status == .unauthorized)
                #expect(String(buffer: response.body).contains("\"missing_bearer_token\""))
            }
        }
    }

    /// An ID token from the dev provider for `clientID`, through the core's code flow.
    static func idToken(_ provider: DevProvider, clientID: String, secret: String?) async throws -> String {
        let metadata = try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: provider.issuer)
        let client = try OpenIDClient(
            metadata: metadata, clientID: clientID, authentication: secret.map { .clientSecretBasic(secret: $0) } ?? .none,
            httpClient: PatientTransport.shared)
        let built = try await client.authorizationRequest(providerID: "oidc.dev", redirectURI: "http://127.0.0.1:9/callback")
        let redirect = try await PatientTransport.shared.send(Federate.HTTPRequest(url: built.url))
        let tokens = try await client.finish(
            try AuthorizationResponse(redirectURL: try #require(redirect.header("Location"))), pending: built.pending
        ).tokens
        return try #require(tokens.idToken)
    }
}
