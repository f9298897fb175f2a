import Federate
import FederateDevProvider
import FederateOIDC
import FederateTestSupport
import Foundation
import Testing

extension AccountsTests {
    /// The sign-in use case in the account layer, without any HTTP framework: `beginSignIn` and
    /// `completeSignIn` against the dev provider over loopback, for each intent.
    @Suite("Accounts: the sign-in use case (begin, complete)")
    struct SignInFlowTests {
        static let redirectURI = "http://127.0.0.1:9/callback"

        /// Follows the authorization request through the dev provider (choosing `user` on its
        /// sign-in page when it shows one) and returns the callback.
        static func callback(_ built: BuiltAuthorizationRequest, user: String = "alice") async throws -> AuthorizationResponse {
            var response = try await PatientTransport.shared.send(HTTPRequest(url: built.url))
            if response.status == 200 {  // the sign-in page: post it back with the chosen user
                var fields = HTMLForm.hiddenFields(String(decoding: response.body, as: UTF8.self))
                fields["user"] = user
                response = try await PatientTransport.shared.send(
                    HTTPRequest(
                        method: "POST", url: String(built.url.prefix { $0 != "?" }),
                        headers: [("Content-Type", "application/x-www-form-urlencoded")],
                        body: Array(FormURLEncoding.encode(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }).utf8)))
            }
            return try AuthorizationResponse(redirectURL: try #require(response.header("Location")))
        }

        @Test func signInThenReauthenticateRotatesTheSessionAndAForeignSessionIsRefused() async throws {
            let dev = try await DevProvider.start()
            defer { Task { try? await dev.stop() } }
            let provider = try OIDCProvider(
                id: "oidc.dev", issuer: dev.issuer, clientID: "dev-client", clientSecret: "dev-secret",
                cache: ProviderCache(httpClient: PatientTransport.shared))
            let accounts = AccountService(store: InMemoryAccountStore())

            // Sign in: a new account and a session.
            let signIn = try await accounts.beginSignIn(with: provider, try SignInRequest(redirectURI: Self.redirectURI), session: nil)
            #expect(signIn.pending.intent == .signIn)
            let first = try await accounts.completeSignIn(
                with: provider, callback: try await Self.callback(signIn), pending: signIn.pending, session: nil)
            let result = try #require(first.result)
            let session = try #require(result.session), token = try #require(result.sessionToken)
            #expect(result.additionalUserInfo.isNewUser && first.mergeTicket == nil)

            // A link or a reauthentication acts for a signed-in user.
            await expectError(.userMismatch) {
                try await accounts.beginSignIn(
                    with: provider, try SignInRequest(redirectURI: Self.redirectURI, intent: .reauthenticate), session: nil)
            }

            // Reauthenticate: the provider signs the user in again; the session rotates.
            let reauth = try await accounts.beginSignIn(
                with: provider, try SignInRequest(redirectURI: Self.redirectURI, intent: .reauthenticate), session: session)
            #expect(reauth.url.contains("prompt=login") && reauth.url.contains("max_age=0"))
            let rotated = try await accounts.completeSignIn(
                with: provider, callback: try await Self.callback(reauth), pending: reauth.pending, session: session)
            let fresh = try #require(rotated.result?.session)
            #expect(fresh.uid == session.uid && fresh.sessionID != session.sessionID)
            await expectError(.sessionRevoked) { try await accounts.verifySession(token) }

            // The flow finished with another user's session: refused, nothing linked.
            let bob = try await accounts.signIn(with: Credential(providerID: "oidc.other", subject: "bob"))
            let link = try await accounts.beginSignIn(
                with: provider, try SignInRequest(redirectURI: Self.redirectURI, intent: .link), session: fresh)
            await expectError(.userMismatch) {
                try await accounts.completeSignIn(
                    with: provider, callback: try await Self.callback(link), pending: link.pending, session: bob.session)
            }
            #expect(try await accounts.user(uid: bob.user.uid).providerIDs == ["oidc.other"])
        }
    }
}
