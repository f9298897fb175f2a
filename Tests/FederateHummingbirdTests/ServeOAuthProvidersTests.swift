import Federate
import FederateDevProvider
import FederateTestSupport
import Foundation
import Testing

/// `federate serve --config` with providers of `"type": "github"` and `"type": "oauth2"`: both
/// sign in against the dev provider's GitHub flavour (one as GitHub Enterprise Server, one
/// configured from data) to accounts keyed by the numeric ID; a wrong entry fails the start.
@Suite("federate serve: github and oauth2 providers", .serialized)
struct ServeOAuthProvidersTests {
    @Test(.timeLimit(.minutes(5)))
    func gitHubAndAGenericOAuth2ProviderSignIn() async throws {
        let github = try await DevProvider.start(configuration: .standard(for: .github))
        defer { Task { try? await github.stop() } }
        let object: [String: JSONValue] = [
            "providers": [
                [
                    "name": "gh", "type": "github", "client_id": "dev-github-client", "client_secret_env": "GH_SECRET",
                    "enterprise_url": .string(github.baseURL),
                ],
                [
                    "name": "corp", "type": "oauth2", "label": "Corp", "client_id": "dev-github-client", "client_secret_env": "GH_SECRET",
                    "authorization_endpoint": .string(github.baseURL + "/login/oauth/authorize"),
                    "token_endpoint": .string(github.baseURL + "/login/oauth/access_token"),
                    "user_endpoint": .string(github.baseURL + "/api/v3/user"), "scopes": ["read:user"],
                    "fields": ["id": "id", "email": nil, "username": "login"],
                ],
            ]
        ]
        try await ServeAccessTokenTests.serve(object, environment: ["GH_SECRET": "dev-github-secret"]) { origin in
            let page = String(decoding: try await PatientTransport.shared.send(HTTPRequest(url: origin + "/")).body, as: UTF8.self)
            #expect(page.contains(#""label":"GitHub""#) && page.contains(#""reauthenticates":false"#), "the demo page's providers")
            let browser = TestBrowser()
            _ = try await browser.navigate(origin + "/auth/gh/start", origin: origin)
            var me = try JSONParser().parseObject(try await browser.send(origin + "/me").body)
            #expect(
                me["providers"]?.arrayValue?.first?["provider_id"] == "github.com" && me["email"] == "alice@example.com"
                    && me["recent_login"] == false, "\(me)")
            let uid = me["uid"]
            // The same GitHub user through the data-configured provider: another provider ID,
            // so linking it to the same account works, keyed by the numeric id too.
            _ = try await browser.navigate(origin + "/auth/corp/start?intent=link", origin: origin, pick: "alice@example.com")
            me = try JSONParser().parseObject(try await browser.send(origin + "/me").body)
            #expect(me["uid"] == uid && me["providers"]?.arrayValue?.count == 2, "\(me)")
            let csrf = try #require(me["csrf_token"]?.stringValue)
            let signOut = try JSONParser().parseObject(
                try await browser.send(origin + "/auth/signout", method: "POST", headers: [("Origin", origin), ("X-CSRF-Token", csrf)]).body
            )
            #expect(signOut == ["signed_out": true, "provider_sign_out": false], "\(signOut)")
        }
    }

    @Test(
        .timeLimit(.minutes(5)),
        arguments: [
            (["name": "gh", "type": "github", "client_id": "c"], "invalid_configuration"),  // no secret
            (
                [
                    "name": "gh", "type": "github", "client_id": "c", "client_secret_env": "S",
                    "enterprise_url": "http://github.example.com",
                ], "insecure_endpoint"
            ),
            (
                [
                    "name": "o", "type": "oauth2", "client_id": "c", "issuer": "https://auth.example",
                    "user_endpoint": "http://api.example/me",
                ], "insecure_endpoint"
            ),
            (
                [
                    "name": "o", "type": "oauth2", "client_id": "c", "issuer": "https://auth.example",
                    "user_endpoint": "https://api.example/me",
                    "fields": ["id": "id", "login_name": "login"],
                ], "invalid_configuration"
            ),  // an unknown field
            // No server:
            (["name": "o", "type": "oauth2", "client_id": "c", "user_endpoint": "https://api.example/me"], "invalid_configuration"),
            // No user endpoint:
            (["name": "o", "type": "oauth2", "client_id": "c", "issuer": "https://auth.example"], "invalid_configuration"),
            (["name": "signout", "type": "dev", "flavor": "generic"], "invalid_configuration"),  // the sign-out route's name
        ] as [(JSONValue, String)])
    func wrongEntriesFailTheStart(entry: JSONValue, code: String) async throws {
        let failure = try await ServeStartFailureTests.start(["providers": [entry]], environment: ["S": "secret"])
        #expect(failure.status == 1 && failure.code == code, "\(failure)")
    }
}
