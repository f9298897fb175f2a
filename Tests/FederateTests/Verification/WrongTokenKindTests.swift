import Federate
import Foundation
import Testing

/// A token of another kind is named as such, `token_type_mismatch`, before any key is looked
/// up: not `unknown_key` for a session token sent where ID tokens go, nor
/// `disallowed_algorithm` for an ID token sent where sessions go.
@Suite("Tokens of the wrong kind")
struct WrongTokenKindTests {
    @Test func aSessionTokenWhereIDTokensGoIsTheWrongKind() async throws {
        let accounts = AccountService(store: InMemoryAccountStore())
        let signedIn = try await accounts.signIn(
            with: Credential(providerID: "google.com", subject: "ann", email: nil, emailVerified: false))
        let session = try #require(signedIn.sessionToken)
        #expect(await Fixtures.errorCode(session) == .tokenTypeMismatch)
        // Through the bearer verifier an API uses, too.
        let bearer = IDTokenBearerVerifier(
            providerID: "oidc.example", verifier: IDTokenVerifier(policy: Fixtures.policy(), keys: Fixtures.keySet))
        let error = await #expect(throws: FederateError.self) { _ = try await bearer.verify(session) }
        #expect(error?.code == .tokenTypeMismatch)
        // The session itself still verifies as one.
        #expect(try await accounts.verifySession(session).uid == signedIn.user.uid)
    }

    @Test func anIDTokenWhereSessionsGoIsTheWrongKind() async throws {
        let accounts = AccountService(store: InMemoryAccountStore())
        _ = try await accounts.signIn(with: Credential(providerID: "google.com", subject: "ann", email: nil, emailVerified: false))
        for idToken in [Fixtures.token(), Fixtures.token(header: [:]), Fixtures.token(key: Fixtures.ec, algorithm: .es256)] {
            let error = await #expect(throws: FederateError.self) { _ = try await accounts.verifySession(idToken) }
            #expect(error?.code == .tokenTypeMismatch)
        }
    }
}
