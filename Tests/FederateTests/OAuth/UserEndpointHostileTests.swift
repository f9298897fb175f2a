import Federate
import FederateGitHub
@testable import FederateOAuth2
import FederateTestSupport
import Foundation
import Testing
@testable import FederateAccounts

/// Hostile answers from the user endpoint of a provider without ID tokens: GitHub's `/user` and
/// `/user/emails` (served at GitHub Enterprise Server's paths by a loopback server), and a
/// generic OAuth 2.0 provider's. Each ends in a typed error, never a crash, and never a
/// credential keyed by a login name.
@Suite("OAuth 2.0 user endpoint: hostile answers")
struct UserEndpointHostileTests {
    /// A GitHub whose `/api/v3/user` answers `user` and whose `/api/v3/user/emails` answers `emails`.
    static func gitHub(user: TestHTTPResponse, emails: TestHTTPResponse = .json("[]")) async throws -> (GitHubProvider, LoopbackHTTPServer)
    {
        let server = try await LoopbackHTTPServer.start { request in
            request.path.hasSuffix("/user/emails") ? emails : request.path.hasSuffix("/user") ? user : .status(404)
        }
        let provider = try GitHubProvider(
            clientID: "app", clientSecret: "secret", endpoints: .enterprise(server.baseURL),
            cache: ProviderCache(httpClient: PatientTransport.shared))
        return (provider, server)
    }

    static func credentialError(user: TestHTTPResponse, emails: TestHTTPResponse = .json("[]")) async throws -> FederateError? {
        let (github, server) = try await gitHub(user: user, emails: emails)
        defer { Task { try? await server.stop() } }
        do {
            let credential = try await github.credential(accessToken: "token")
            Issue.record("accepted: \(credential)")
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        (#"{"id": "1001", "login": "octocat"}"#, "a string id (GitHub's is a number)"),
        (#"{"login": "octocat"}"#, "no id: never the login"),
        (#"{"id": null, "login": "octocat"}"#, "a null id"),
        (#"{"id": 9223372036854775808, "login": "octocat"}"#, "2^63"),
        (#"{"id": 9007199254740992, "login": "octocat"}"#, "2^53, past what every parser reads exactly"),
        (#"{"id": 1e300, "login": "octocat"}"#, "1e300"),
        (#"{"id": 1.5, "login": "octocat"}"#, "a fraction"),
        (#"{"id": 0, "login": "octocat"}"#, "zero"),
        (#"{"id": -7, "login": "octocat"}"#, "a negative number"),
        (#"{"id": true}"#, "a Boolean"),
        (#"[{"id": 1}]"#, "an array, not an object"),
        (#"{"id": 1, "id": 2}"#, "a duplicated member"),
        (String(repeating: "[", count: 40) + String(repeating: "]", count: 40), "a deep document"),
        ("not json at all", "not JSON"),
    ])
    func userAnswersWithoutAnImmutableIDAreRefused(body: String, why: String) async throws {
        let error = try await Self.credentialError(user: .json(body))
        #expect(error?.code == .invalidUserResponse, "\(why): \(String(describing: error))")
    }

    @Test func aNonJSONMediaTypeAndAHugeBodyAreRefused() async throws {
        let html = try await Self.credentialError(user: .text(#"{"id": 1}"#, headers: [(name: "Content-Type", value: "text/html")]))
        #expect(html?.code == .invalidUserResponse, "\(String(describing: html))")
        let huge = try await Self.credentialError(user: .json(#"{"id": 1, "bio": ""# + String(repeating: "x", count: 400_000) + #""}"#))
        #expect(huge?.code == .responseTooLarge, "\(String(describing: huge))")
        let refused = try await Self.credentialError(user: .json(#"{"message": "Bad credentials"}"#, status: 401))
        #expect(refused?.code == .unexpectedStatus, "\(String(describing: refused))")
    }

    @Test func theSubjectIsTheNumericIDNeverTheLogin() async throws {
        let (github, server) = try await Self.gitHub(
            user: .json(#"{"id": 9007199254740991, "login": "octocat", "name": "The Octocat", "email": "public@example.com"}"#),
            emails: .json(#"[{"email": "octo@example.com", "primary": true, "verified": true}]"#))
        defer { Task { try? await server.stop() } }
        let credential = try await github.credential(accessToken: "token")
        #expect(credential.providerID == "github.com" && credential.subject == "9007199254740991")
        #expect(credential.profile.username == "octocat" && credential.email == "octo@example.com" && credential.emailVerified)
        #expect(credential.idToken == nil && !credential.provesAuthenticationTime)
    }

    @Test func onlyVerifiedEmailsCountAndThePublicEmailNever() async throws {
        // The primary address is unverified: a verified one is taken instead.
        var (github, server) = try await Self.gitHub(
            user: .json(#"{"id": 7, "login": "mallory", "email": "victim@example.com"}"#),
            emails: .json(
                #"[{"email": "victim@example.com", "primary": true, "verified": false}, {"email": "mallory@example.net", "primary": false, "verified": true}]"#
            ))
        var credential = try await github.credential(accessToken: "token")
        #expect(credential.email == "mallory@example.net" && credential.emailVerified)
        try? await server.stop()
        // Only an unverified primary: kept, but unverified (it claims nothing).
        (github, server) = try await Self.gitHub(
            user: .json(#"{"id": 7, "login": "mallory", "email": "victim@example.com"}"#),
            emails: .json(#"[{"email": "victim@example.com", "primary": true, "verified": false}]"#))
        credential = try await github.credential(accessToken: "token")
        #expect(credential.email == "victim@example.com" && !credential.emailVerified)
        try? await server.stop()
        // /user/emails refused (no user:email scope): no email at all, never /user's public one.
        (github, server) = try await Self.gitHub(
            user: .json(#"{"id": 7, "email": "victim@example.com"}"#), emails: .json(#"{"message": "Not Found"}"#, status: 404))
        credential = try await github.credential(accessToken: "token")
        #expect(credential.email == nil && !credential.emailVerified)
        try? await server.stop()
        // /user/emails failing (500): the sign-in fails, never an account without its email.
        let outage = try await Self.credentialError(user: .json(#"{"id": 7}"#), emails: .status(500))
        #expect(outage?.code == .unexpectedStatus, "\(String(describing: outage))")
    }

    @Test(arguments: [
        (#"[{"email": "alice@example.com\u0000", "primary": true, "verified": true}]"#, "a NUL"),
        (#"[{"email": "alice@example.com\u202e", "primary": true, "verified": true}]"#, "a bidirectional override"),
        (#"[{"email": "alice @example.com", "primary": true, "verified": true}]"#, "a space"),
        (#"[{"email": "no-at-sign", "primary": true, "verified": true}]"#, "no @"),
        (#"[{"email": 42, "primary": true, "verified": true}]"#, "a number"),
        (#"{"email": "alice@example.com"}"#, "an object, not a list"),
    ])
    func malformedEmailsAreRefused(emails: String, why: String) async throws {
        let error = try await Self.credentialError(user: .json(#"{"id": 1}"#), emails: .json(emails))
        #expect(error?.code == .invalidUserResponse, "\(why): \(String(describing: error))")
    }

    /// Look-alikes are other addresses: a verified Cyrillic `а` never becomes Alice's email, and
    /// the account layer keeps the two apart (emails compared as bytes).
    @Test func lookAlikeEmailsStayOtherAddresses() async throws {
        let (github, server) = try await Self.gitHub(
            user: .json(#"{"id": 66}"#), emails: .json(#"[{"email": "\u0430lice@example.com", "primary": true, "verified": true}]"#))
        defer { Task { try? await server.stop() } }
        let credential = try await github.credential(accessToken: "token")
        #expect(credential.email == "\u{0430}lice@example.com" && credential.email != "alice@example.com")
        let accounts = AccountService(store: InMemoryAccountStore())
        let alice = try await accounts.signIn(
            with: Credential(providerID: "oidc.dev", subject: "alice", email: "alice@example.com", emailVerified: true))
        let other = try await accounts.signIn(with: credential)
        #expect(other.user.uid != alice.user.uid && other.additionalUserInfo.isNewUser)
    }

    /// The generic provider's fields: a string ID is fine there, a login field never identifies.
    @Test func genericFieldsAreReadStrictly() throws {
        let fields = OAuth2UserFields(id: "sub", email: "mail", emailVerified: "mail_ok", username: "login", authTime: "last_login")
        let user = try OAuth2User(
            answer: ["sub": "u-1", "mail": "u1@example.com", "mail_ok": true, "login": "u1", "last_login": 1_700_000_000], fields: fields)
        #expect(user.id == "u-1" && user.emailVerified && user.username == "u1" && user.authenticatedAt?.secondsSince1970 == 1_700_000_000)
        let stringTrue = try OAuth2User(
            answer: ["sub": "u-1", "mail": "u1@example.com", "mail_ok": "true", "last_login": 1], fields: fields)
        #expect(!stringTrue.emailVerified, "only JSON true verifies")
        for bad: JSONValue in [
            ["login": "u1", "last_login": 1], ["sub": "", "last_login": 1],
            ["sub": .string(String(repeating: "a", count: 256)), "last_login": 1],
            ["sub": "u\u{0007}", "last_login": 1], ["sub": "u-1", "last_login": "yesterday"], ["sub": "u-1", "last_login": 1e300],
        ] {
            #expect(throws: FederateError.self) { try OAuth2User(answer: bad, fields: fields) }
        }
    }
}
