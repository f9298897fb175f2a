import Federate
import FederateDevProvider
import FederateHummingbird
import FederateOIDC
import FederateTestSupport
import Foundation
import Hummingbird
import Testing

/// Step-up end to end: a route demands a phishing-resistant sign-in, the session's level falls
/// short (403 for the browser, RFC 9470's 401 for a bearer caller), the start route asks the
/// dev provider for `acr_values`, the tester picks a method on its sign-in page, and the new
/// session carries the `acr`/`amr` the route accepts.
@Suite("Step-up end to end", .serialized)
struct StepUpTests {
    static func sensitive(_ accounts: AccountService) -> (Router<FederateContext>, String) -> Void {
        { router, origin in
            router.group("sensitive")
                .add(middleware: SessionAuthenticationMiddleware<FederateContext>(accounts: accounts, origin: origin))
                .add(
                    middleware: RequireRecentLoginMiddleware<FederateContext>(
                        accounts: accounts, within: .seconds(300), requirement: .phishingResistant)
                )
                .get { _, context in context.federate.session?.acr ?? "none" }
        }
    }

    @Test func aPhishingResistantRouteIsReachedByStepUp() async throws {
        let dev = try await DevProvider.start(configuration: FederateRoutesTests.devConfiguration(.generic, path: "/auth/dev/callback"))
        defer { Task { try? await dev.stop() } }
        let accounts = AccountService(store: InMemoryAccountStore())
        let providers: [String: any SignInProvider] = [
            "dev": try OIDCProvider(
                id: "oidc.dev", issuer: dev.issuer, clientID: "dev-client", clientSecret: "dev-secret",
                cache: ProviderCache(httpClient: PatientTransport.shared))
        ]
        try await RoutesServer.run(providers: providers, accounts: accounts, routes: Self.sensitive(accounts)) { origin in
            let browser = TestBrowser()
            // A plain sign-in: the dev provider's auto-approved user asserts no acr.
            _ = try await browser.navigate(origin + "/auth/dev/start", origin: origin)
            let plain = try #require(browser.cookie("federate_session"))
            let refused = try await browser.send(origin + "/sensitive")
            #expect(refused.status == 403)
            #expect(try JSONParser().parseObject(refused.body)["error"] == "insufficient_authentication_level")
            // The same session sent as a bearer token: RFC 9470's challenge.
            let challenged = try await TestBrowser().send(origin + "/sensitive", headers: [("Authorization", "Bearer " + plain)])
            #expect(challenged.status == 401)
            let header = try #require(challenged.header("WWW-Authenticate"))
            #expect(header.hasPrefix("Bearer error=\"insufficient_user_authentication\""), "\(header)")
            #expect(header.contains("acr_values=\"phr phrh\"") && header.contains("max_age=300"), "\(header)")

            // Step up: the provider shows its page (prompt=login), the tester picks a passkey.
            let landed = try await browser.navigate(
                origin + "/auth/dev/start?intent=reauthenticate&acr_values=phr%20phrh&max_age=0&returnTo=/sensitive", origin: origin,
                pick: "alice", fields: ["method": "passkey"])
            #expect(landed.status == 200 && String(decoding: landed.body, as: UTF8.self) == "phr", "\(browser.history)")
            let stepped = try await accounts.verifySession(try #require(browser.cookie("federate_session")))
            #expect(stepped.acr == "phr" && stepped.amr == ["swk", "user", "pop"])
            let me = try JSONParser().parseObject(try await browser.send(origin + "/me").body)
            #expect(me["acr"] == "phr" && me["amr"] == ["swk", "user", "pop"], "\(me)")
            #expect(try await TestBrowser().send(origin + "/sensitive", headers: [("Authorization", "Bearer " + plain)]).status == 401)

            // Asking for phrh but authenticating with a passkey (phr): the provider answers phr, the
            // server refuses the sign-in, and the stepped-up session stays.
            let before = browser.cookie("federate_session")
            _ = try await browser.navigate(
                origin + "/auth/dev/start?intent=reauthenticate&acr_values=phrh", origin: origin, pick: "alice",
                fields: ["method": "passkey"])
            #expect(browser.history.last == origin + "/?error=insufficient_authentication_level", "\(browser.history)")
            #expect(browser.cookie("federate_session") == before)

            // A security key meets phrh.
            _ = try await browser.navigate(
                origin + "/auth/dev/start?intent=reauthenticate&acr_values=phrh&returnTo=/sensitive", origin: origin, pick: "alice",
                fields: ["method": "securityKey"])
            #expect(try await browser.send(origin + "/sensitive").body == Array("phrh".utf8))
        }
    }

    @Test func theStartRouteReadsStepUpParametersStrictly() async throws {
        let dev = try await DevProvider.start(configuration: FederateRoutesTests.devConfiguration(.generic, path: "/auth/dev/callback"))
        defer { Task { try? await dev.stop() } }
        let accounts = AccountService(store: InMemoryAccountStore())
        let providers: [String: any SignInProvider] = [
            "dev": try OIDCProvider(
                id: "oidc.dev", issuer: dev.issuer, clientID: "dev-client", clientSecret: "dev-secret",
                cache: ProviderCache(httpClient: PatientTransport.shared)),
            "plain": PlainProvider(),
        ]
        try await RoutesServer.run(providers: providers, accounts: accounts) { origin in
            let browser = TestBrowser()
            let tooMany = (0..<17).map { "v\($0)" }.joined(separator: "%20")
            for query in [
                "max_age=-1", "max_age=abc", "max_age=99999999999", "max_age=", "max_age=1e3", "acr_values=", "acr_values=%20",
                "acr_values=\(tooMany)", "acr_values=caf%C3%A9",
            ] {
                let response = try await browser.send(origin + "/auth/dev/start?" + query)
                #expect(response.status == 400, "\(query)")
                #expect(try JSONParser().parseObject(response.body)["error"] == "invalid_request", "\(query)")
            }
            // A provider that cannot be asked for a level says so instead of ignoring the request.
            #expect(try await browser.send(origin + "/auth/plain/start?acr_values=phr").status == 400)
            // max_age 0 goes to the provider as sent.
            let started = try await browser.send(origin + "/auth/dev/start?max_age=0&acr_values=phr")
            let location = try #require(started.header("Location"))
            let query = try FormURLEncoding.decode(String(location.split(separator: "?", maxSplits: 1)[1]))
            #expect(query["max_age"] == "0" && query["acr_values"] == "phr")
        }
    }
}

/// A sign-in provider without step-up.
private struct PlainProvider: SignInProvider {
    var providerID: String { "plain.example" }
    func beginSignIn(_ request: SignInRequest) async throws(FederateError) -> BuiltAuthorizationRequest {
        throw FederateError(.invalidConfiguration, "not used")
    }
    func completeSignIn(_ callback: AuthorizationResponse, pending: PendingAuthorization) async throws(FederateError) -> Credential {
        throw FederateError(.invalidConfiguration, "not used")
    }
    func revoke(_ tokens: ProviderTokens) async throws(FederateError) {}
}
