import Federate
import FederateDevProvider
import FederateGitHub
import FederateOIDC
import FederateTestSupport
import Foundation
import Testing
@testable import FederateAccounts

/// `GitHubProvider` against the dev provider's GitHub flavour (OAuth 2.0, no ID token), and
/// accounts across OpenID and OAuth-only identities: link, unlink and sign-in with the same
/// codes, and the reauthentication rule.
@Suite("GitHub flavour")
struct GitHubFlavorTests {
    static func gitHub(_ provider: DevProvider, secret: String = "dev-github-secret") throws -> GitHubProvider {
        try GitHubProvider(
            clientID: "dev-github-client", clientSecret: secret, endpoints: .enterprise(provider.baseURL),
            cache: ProviderCache(httpClient: PatientTransport.shared))
    }

    /// The browser's part: the authorization URL, approved as `user` (`login_hint`), back to the callback.
    static func signIn(_ github: GitHubProvider, as user: String? = nil, intent: AuthorizationIntent = .signIn) async throws -> Credential {
        let built = try await github.beginSignIn(try SignInRequest(redirectURI: Flavor.redirectURI, intent: intent))
        let url = user.map { built.url + "&login_hint=" + $0 } ?? built.url
        return try await github.completeSignIn(try await Flavor.authorize(url), pending: built.pending)
    }

    @Test func signsInWithTheNumericIDAndOnlyAVerifiedEmail() async throws {
        try await Flavor.with(.standard(for: .github)) { provider in
            let github = try Self.gitHub(provider)
            let built = try await github.beginSignIn(try SignInRequest(redirectURI: Flavor.redirectURI))
            let query = try FormURLEncoding.decode(try #require(URLComponents(string: built.url)?.percentEncodedQuery))
            #expect(query["code_challenge_method"] == "S256" && query["state"] != nil && query["scope"] == "read:user user:email")
            #expect(query["nonce"] == nil && !(query["scope"] ?? "").contains("openid"))
            #expect(built.url.hasPrefix(provider.baseURL + "/login/oauth/authorize?"))

            let alice = try await Self.signIn(github)
            #expect(alice.providerID == "github.com" && alice.subject == "1001" && alice.profile.username == "alice-example")
            #expect(alice.email == "alice@example.com" && alice.emailVerified && alice.idToken == nil && alice.tokens.accessToken != nil)
            // Bob's primary address is unverified: his verified one counts.
            let bob = try await Self.signIn(github, as: "1002")
            #expect(bob.subject == "1002" && bob.email == "bob@users.example" && bob.emailVerified)
            // Mallory's only address is Alice's, unverified: it claims nothing.
            let mallory = try await Self.signIn(github, as: "1003")
            #expect(mallory.email == "alice@example.com" && !mallory.emailVerified)
        }
    }

    @Test func aRenamedLoginIsTheSameAccount() async throws {
        try await Flavor.with(.standard(for: .github)) { provider in
            let github = try Self.gitHub(provider)
            let accounts = AccountService(store: InMemoryAccountStore())
            let first = try await accounts.signIn(with: try await Self.signIn(github))
            provider.renameGitHubUser(subject: "1001", to: "alice-renamed")
            let again = try await accounts.signIn(with: try await Self.signIn(github))
            #expect(again.user.uid == first.user.uid && !again.additionalUserInfo.isNewUser)
            #expect(again.credential.profile.username == "alice-renamed" && first.credential.profile.username == "alice-example")
        }
    }

    @Test func gitHubErrorsAnsweredWith200AreTypedErrors() async throws {
        try await Flavor.with(.standard(for: .github)) { provider in
            let wrong = try Self.gitHub(provider, secret: "wrong")
            let error = await #expect(throws: FederateError.self) { try await Self.signIn(wrong) }
            #expect(error?.code.rawValue == "incorrect_client_credentials" && error?.providerError != nil, "\(String(describing: error))")
            // A replayed code: bad_verification_code.
            let github = try Self.gitHub(provider)
            let built = try await github.beginSignIn(try SignInRequest(redirectURI: Flavor.redirectURI))
            let callback = try await Flavor.authorize(built.url)
            _ = try await github.completeSignIn(callback, pending: built.pending)
            let replay = await #expect(throws: FederateError.self) { try await github.completeSignIn(callback, pending: built.pending) }
            #expect(replay?.code.rawValue == "bad_verification_code")
            // A forged state never reaches the token endpoint.
            let forged = AuthorizationResponse(parameters: ["code": "x", "state": "forged"])
            let mismatch = await #expect(throws: FederateError.self) { try await github.completeSignIn(forged, pending: built.pending) }
            #expect(mismatch?.code == .stateMismatch)
        }
    }

    @Test func revocationGoesThroughTheApplicationAPI() async throws {
        try await Flavor.with(.standard(for: .github)) { provider in
            let github = try Self.gitHub(provider)
            let credential = try await Self.signIn(github)
            try await github.revoke(credential.tokens)
            let error = await #expect(throws: FederateError.self) {
                try await github.credential(accessToken: credential.tokens.accessToken ?? "")
            }
            #expect(error?.code == .unexpectedStatus)
            try await github.revoke(credential.tokens)  // already dead: 404, still done
        }
    }

    /// OpenID and OAuth-only identities on one account: link, sign in with either, the same
    /// codes for conflicts, unlink; and GitHub can neither reauthenticate nor make a session
    /// count as recent.
    @Test func accountsAcrossOpenIDAndOAuthOnlyIdentities() async throws {
        try await Flavor.with(.standard) { oidcProvider in
            try await Flavor.with(.standard(for: .github)) { githubProvider in
                let cache = ProviderCache(httpClient: PatientTransport.shared)
                let oidc = try OIDCProvider(
                    id: "oidc.dev", issuer: oidcProvider.issuer, clientID: "dev-client", clientSecret: "dev-secret", cache: cache)
                let github = try Self.gitHub(githubProvider)
                let accounts = AccountService(store: InMemoryAccountStore())

                let oidcBuilt = try await oidc.beginSignIn(try SignInRequest(redirectURI: Flavor.redirectURI))
                let oidcCredential = try await oidc.completeSignIn(try await Flavor.authorize(oidcBuilt.url), pending: oidcBuilt.pending)
                let signedIn = try await accounts.signIn(with: oidcCredential)
                try accounts.requireRecentLogin(try #require(signedIn.session))

                // GitHub's alice has alice@example.com verified too: signing in first would be
                // account_exists_with_different_credential; linking works.
                let gitHubAlice = try await Self.signIn(github)
                let exists = await #expect(throws: FederateError.self) { try await accounts.signIn(with: gitHubAlice) }
                #expect(exists?.code == .accountExistsWithDifferentCredential)
                let linked = try await accounts.link(signedIn.user.uid, with: gitHubAlice)
                #expect(Set(linked.user.providerIDs) == ["oidc.dev", "github.com"])
                let again = await #expect(throws: FederateError.self) { try await accounts.link(signedIn.user.uid, with: gitHubAlice) }
                #expect(again?.code == .providerAlreadyLinked)

                // Signing in with GitHub reaches the same account, but not a recent sign-in.
                let viaGitHub = try await accounts.signIn(with: try await Self.signIn(github))
                #expect(viaGitHub.user.uid == signedIn.user.uid)
                let session = try #require(viaGitHub.session)
                let verified = try await accounts.verifySession(try #require(viaGitHub.sessionToken))
                #expect(!verified.authTimeProven && !session.authTimeProven)
                let stale = #expect(throws: FederateError.self) { try accounts.requireRecentLogin(verified) }
                #expect(stale?.code == .requiresRecentLogin)

                // Reauthentication: refused before the redirect, and by the account layer.
                let early = await #expect(throws: FederateError.self) {
                    try await github.beginSignIn(try SignInRequest(redirectURI: Flavor.redirectURI, intent: .reauthenticate))
                }
                #expect(early?.code == .providerCannotReauthenticate)
                let late = await #expect(throws: FederateError.self) {
                    try await accounts.reauthenticate(
                        signedIn.user.uid, with: gitHubAlice, authenticatedAfter: Date(timeIntervalSince1970: 0))
                }
                #expect(late?.code == .providerCannotReauthenticate)
                let withoutFlowStart = await #expect(throws: FederateError.self) {
                    try await accounts.reauthenticate(signedIn.user.uid, with: gitHubAlice)
                }
                #expect(withoutFlowStart?.code == .providerCannotReauthenticate)

                // The OpenID provider reauthenticates, and the new session counts.
                let reauthBuilt = try await oidc.beginSignIn(try SignInRequest(redirectURI: Flavor.redirectURI, intent: .reauthenticate))
                let picked = try await PatientTransport.shared.send(
                    HTTPRequest(
                        method: "POST", url: oidcProvider.baseURL + "/authorize",
                        headers: [("Content-Type", "application/x-www-form-urlencoded")],
                        body: Array(
                            FormURLEncoding.encode(
                                (try FormURLEncoding.decode(try #require(URLComponents(string: reauthBuilt.url)?.percentEncodedQuery)))
                                    .sorted { $0.key < $1.key }
                                    .map { ($0.key, $0.value) } + [("user", "alice")]
                            ).utf8)))
                let reauthCredential = try await oidc.completeSignIn(
                    try AuthorizationResponse(redirectURL: try #require(picked.header("Location"))), pending: reauthBuilt.pending)
                let fresh = try await accounts.reauthenticate(
                    signedIn.user.uid, with: reauthCredential, authenticatedAfter: reauthBuilt.pending.createdAt)
                try accounts.requireRecentLogin(try #require(fresh.session))

                // Unlink GitHub: its identity signs in as a new user; mallory's unverified copy of
                // alice@example.com never joined or blocked anything.
                _ = try await accounts.unlink(try #require(fresh.session), providerID: "github.com")
                let mallory = try await accounts.signIn(with: try await Self.signIn(github, as: "1003"))
                #expect(mallory.user.uid != signedIn.user.uid && mallory.additionalUserInfo.isNewUser && !mallory.user.emailVerified)
            }
        }
    }
}
