import Federate
import FederateTestSupport
import FederateDevProvider
import Foundation
import Testing

extension AccountsTests {
    /// The whole path over real HTTP on loopback: two dev providers sign users in, the core
    /// verifies their ID tokens, and the account layer signs in, links, reauthenticates and
    /// guards a sensitive operation.
    @Suite("Accounts: end to end with the dev provider")
    struct EndToEndTests {
        static let redirectURI = "http://127.0.0.1:9/callback"

        /// A provider ID, a running dev provider and a relying party for it.
        struct Provider {
            let id: String
            let server: DevProvider
            let client: OpenIDClient

            static func start(id: String) async throws -> Provider {
                let server = try await DevProvider.start()
                let metadata = try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: server.issuer)
                let client = try OpenIDClient(
                    metadata: metadata, clientID: "dev-client", authentication: .clientSecretBasic(secret: "dev-secret"),
                    httpClient: PatientTransport.shared)
                return Provider(id: id, server: server, client: client)
            }

            /// Plays the browser (the dev provider auto-approves `alice`, or the `loginHint` user)
            /// and finishes the code flow; the core verifies the ID token (signature, iss, aud, nonce).
            func signIn(loginHint: String? = nil) async throws -> (OpenIDSignIn, PendingAuthorization) {
                let built = try await client.authorizationRequest(
                    providerID: id, redirectURI: EndToEndTests.redirectURI, loginHint: loginHint)
                let redirect = try await PatientTransport.shared.send(HTTPRequest(url: built.url))
                #expect(redirect.status == 302)
                let callback = try AuthorizationResponse(redirectURL: try #require(redirect.header("Location")))
                return (try await client.finish(callback, pending: built.pending), built.pending)
            }

            /// A credential from a sign-in, through the token set.
            func credential(loginHint: String? = nil) async throws -> Credential {
                let (finished, pending) = try await signIn(loginHint: loginHint)
                return Credential(providerID: id, signIn: finished, rawNonce: pending.nonce)
            }

            /// A credential from a raw ID token verified by hand with the core's verifier
            /// (the route for ID tokens that arrive from apps).
            func credentialFromRawIDToken() async throws -> Credential {
                let (finished, pending) = try await signIn()
                let tokens = finished.tokens
                let idToken = try await IDTokenVerifier(policy: client.policy, keys: client.keys)
                    .verify(try #require(tokens.idToken), expecting: IDTokenExpectations(nonce: pending.nonce))
                return Credential(
                    providerID: id, idToken: idToken, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
                    rawNonce: pending.nonce)
            }
        }

        @Test(arguments: StoreKind.allCases)
        func signInLinkReauthenticateAndRecentLogin(kind: StoreKind) async throws {
            let dev = try await Provider.start(id: "oidc.dev")
            let second = try await Provider.start(id: "oidc.second")
            do {
                // The dev provider reports real time in `auth_time`; the service starts ten minutes behind.
                try await kind.withService(clockBehind: 600) { accounts, clock in
                    // A credential whose raw nonce is not the ID token's nonce is refused.
                    let (finished, _) = try await dev.signIn()
                    await expectError(.nonceMismatch) {
                        try await accounts.signIn(with: Credential(providerID: dev.id, signIn: finished, rawNonce: "another nonce"))
                    }

                    // Sign in with the first provider: a new user.
                    let alice = try await accounts.signIn(with: try await dev.credential())
                    #expect(alice.additionalUserInfo.isNewUser)
                    #expect(alice.user.email == "alice@example.com")
                    #expect(alice.user.emailVerified)
                    #expect(alice.user.displayName == "Alice Example")
                    #expect(alice.credential.idToken?.issuer == dev.server.issuer)
                    let uid = alice.user.uid

                    // The second provider knows the same email: signing in with it first is refused.
                    let refused = await expectError(.accountExistsWithDifferentCredential) {
                        try await accounts.signIn(with: try await second.credentialFromRawIDToken())
                    }
                    #expect(refused?.accountContext?.existingProviderIDs == ["oidc.dev"])

                    // Link it (here: the pending credential from the refusal), then sign in with it.
                    let pending = try #require(refused?.accountContext?.pendingCredential)
                    let linked = try await accounts.link(uid, with: pending)
                    #expect(linked.user.providerIDs == ["oidc.dev", "oidc.second"])
                    let viaSecond = try await accounts.signIn(with: try await second.credentialFromRawIDToken())
                    #expect(viaSecond.user.uid == uid)
                    #expect(!viaSecond.additionalUserInfo.isNewUser)

                    // Bob signs in with the first provider; reauthenticating Alice with Bob fails.
                    let bobCredential = try await dev.credential(loginHint: "bob@example.com")
                    let bob = try await accounts.signIn(with: bobCredential)
                    #expect(bob.user.uid != uid)
                    #expect(!bob.user.emailVerified)
                    await expectError(.userMismatch) { try await accounts.reauthenticate(uid, with: bobCredential) }

                    // An old session cannot unlink; after reauthentication the new session can.
                    let oldSession = try await accounts.verifySession(try #require(viaSecond.sessionToken))
                    clock.advance(by: .seconds(600))
                    await expectError(.requiresRecentLogin) { try await accounts.unlink(oldSession, providerID: "oidc.second") }
                    let fresh = try await accounts.reauthenticate(uid, with: try await dev.credential())
                    let freshSession = try await accounts.verifySession(try #require(fresh.sessionToken))
                    // The session's auth_time is the provider's (whole seconds), not the old session's.
                    #expect(abs(freshSession.authTime.timeIntervalSince(clock.now)) < 30)
                    #expect(freshSession.authTime.timeIntervalSince(oldSession.authTime) > 500)
                    let after = try await accounts.unlink(freshSession, providerID: "oidc.second")
                    #expect(after.providerIDs == ["oidc.dev"])
                }
            } catch {
                try? await dev.server.stop()
                try? await second.server.stop()
                throw error
            }
            try await dev.server.stop()
            try await second.server.stop()
        }
    }
}
