import Federate
import FederateApple
@testable import FederateDevProvider
import FederateTestSupport
import Foundation
import Testing

/// The dev provider's Apple flavour, driven by the core's relying party and FederateApple.
@Suite("Dev provider: Apple flavour")
struct AppleFlavorTests {
    static let servicesID = "com.example.dev.web"
    static let alice = "001234.abcdef0123456789abcdef0123456789.1234"

    /// A client secret made by FederateApple from the flavour's `.p8`-style key.
    static func secret(_ provider: DevProvider, clientID: String = servicesID, teamID: String? = nil) throws -> String {
        let key = try #require(provider.configuration.appleClientKey)
        return try AppleClientSecret(
            teamID: teamID ?? key.teamID, keyID: key.keyID, clientID: clientID, privateKeyPEM: key.privateKeyPEM, lifetime: .seconds(600),
            audience: provider.issuer
        ).make(now: Date())
    }

    static func client(_ provider: DevProvider, secret: String) async throws -> OpenIDClient {
        try await Flavor.client(provider, id: servicesID, authentication: .clientSecretPost(secret: secret))
    }

    @Test func firstSignInPostsTheUserJSONOnceAndTokensVerifyWithAppleVerifier() async throws {
        try await Flavor.with(.standard(for: .apple)) { provider in
            let client = try await Self.client(provider, secret: try Self.secret(provider))
            #expect(client.metadata.tokenEndpoint == AppleEndpoints.at(provider.baseURL).tokenURL)
            let scopes = ["openid", "name", "email"]

            let first = try await client.authorizationRequest(
                providerID: "apple.com", redirectURI: Flavor.redirectURI, scopes: scopes, responseMode: .formPost)
            let firstCallback = try await Flavor.authorize(first.url)
            let body = Array(FormURLEncoding.encode(firstCallback.parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }).utf8)
            let apple = try AppleCallback(formBody: body)
            #expect(apple.user?.firstName == "Alice")
            #expect(apple.user?.lastName == "Example")
            #expect(apple.user?.email == "alice@example.com")
            let tokens = try await client.finish(apple.response, pending: first.pending).tokens

            let verifier = try AppleIDTokenVerifier(
                clientIDs: [Self.servicesID], endpoints: .at(provider.baseURL), httpClient: PatientTransport.shared)
            let identity = try await verifier.verify(try #require(tokens.idToken), rawNonce: nil)
            #expect(identity.userID == Self.alice)
            #expect(identity.emailVerified == true)  // sent as the string "true"
            #expect(identity.isPrivateEmail == false)
            #expect(identity.nonceSupported == true)
            #expect(tokens.idTokenClaims?.claims["email_verified"] == "true")

            let second = try await client.authorizationRequest(
                providerID: "apple.com", redirectURI: Flavor.redirectURI, scopes: scopes, responseMode: .formPost)
            let secondCallback = try await Flavor.authorize(second.url)
            #expect(secondCallback.parameters["user"] == nil)
            _ = try await client.finish(secondCallback, pending: second.pending).tokens
        }
    }

    @Test func nameOrEmailScopeRequiresFormPost() async throws {
        try await Flavor.with(.standard(for: .apple)) { provider in
            let client = try await Self.client(provider, secret: try Self.secret(provider))
            let error = await #expect(throws: FederateError.self) { try await Flavor.signIn(client, scopes: ["openid", "email"]) }
            #expect(error?.code == "invalid_request")
            _ = try await Flavor.signIn(client, scopes: ["openid"])  // without them, a query redirect is fine
        }
    }

    @Test func clientSecretMustBeAppleShapedJWT() async throws {
        try await Flavor.with(.standard(for: .apple)) { provider in
            let wrongSubject = try Self.secret(provider, clientID: "com.example.other")
            let wrongTeam = try Self.secret(provider, teamID: "OTHERTEAM1")
            let otherKey = try AppleClientSecret(
                teamID: "DEVTEAM001", keyID: "DEVKEY0001", clientID: Self.servicesID,
                privateKeyPEM: DevAppleClientKey(teamID: "DEVTEAM001", keyID: "DEVKEY0001").privateKeyPEM, audience: provider.issuer
            ).make(now: Date())
            let appleAudience = try AppleClientSecret(
                teamID: "DEVTEAM001", keyID: "DEVKEY0001", clientID: Self.servicesID,
                privateKeyPEM: try #require(provider.configuration.appleClientKey).privateKeyPEM
            ).make(now: Date())
            for secret in [wrongSubject, wrongTeam, otherKey, appleAudience, "plain-secret"] {
                let client = try await Self.client(provider, secret: secret)
                let error = await #expect(throws: FederateError.self) { try await Flavor.signIn(client, scopes: ["openid"]) }
                #expect(error?.code == "invalid_client")
                #expect(error?.message.contains("sub the client_id") == true)
            }
        }
    }

    @Test func refreshAndRevoke() async throws {
        try await Flavor.with(.standard(for: .apple)) { provider in
            let client = try await Self.client(provider, secret: try Self.secret(provider))
            let tokens = try await Flavor.signIn(client, scopes: ["openid"])
            let refreshToken = try #require(tokens.refreshToken)
            let refreshed = try await client.refresh(refreshToken, previousIDToken: tokens.idTokenClaims)
            #expect(refreshed.refreshToken == refreshToken)  // kept: Apple sends no new one
            try await client.revoke(refreshToken, hint: "refresh_token")
            let dead = await #expect(throws: FederateError.self) { try await client.refresh(refreshToken) }
            #expect(dead?.code == .invalidGrant)
        }
    }

    @Test func serverToServerNotificationsAreVerifiedAndTyped() async throws {
        try await Flavor.with(.standard(for: .apple)) { provider in
            let verifier = try AppleNotificationVerifier(
                clientIDs: [Self.servicesID], endpoints: .at(provider.baseURL), httpClient: PatientTransport.shared)
            let received = ReceivedNotifications()
            let server = try await LoopbackHTTPServer.start { request in
                do {
                    received.append(try await verifier.verify(body: request.body))
                    return .status(200)
                } catch {
                    return .status(400)
                }
            }
            defer { Task { try? await server.stop() } }
            let url = server.baseURL + "/apple/notifications"
            for type in ["email-disabled", "email-enabled", "consent-revoked", "account-delete"] {
                let sent = try await provider.sendAppleNotification(
                    type, subject: Self.alice, clientID: Self.servicesID, email: "x@privaterelay.appleid.com", isPrivateEmail: true, to: url
                )
                #expect(sent.status == 200)
            }
            let repeated = try await provider.sendAppleNotification(
                "consent-revoked", subject: Self.alice, clientID: Self.servicesID, to: url)
            _ = try await provider.sendAppleNotification(
                "consent-revoked", subject: Self.alice, clientID: Self.servicesID, tokenID: repeated.tokenID, to: url)
            let foreign = try await provider.sendAppleNotification(
                "account-delete", subject: Self.alice, clientID: "com.example.other", to: url)
            #expect(foreign.status == 400)

            let events = received.all
            #expect(
                events.map(\.type) == [.emailDisabled, .emailEnabled, .consentRevoked, .accountDelete, .consentRevoked, .consentRevoked])
            #expect(events.first?.isPrivateEmail == true)
            #expect(events[4].notificationID == events[5].notificationID)  // a repeat carries the same jti
        }
    }
}

/// Notifications a test receiver accepted, in order.
final class ReceivedNotifications: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [AppleNotification] = []

    func append(_ notification: AppleNotification) {
        lock.withLock { items.append(notification) }
    }

    var all: [AppleNotification] { lock.withLock { items } }
}
