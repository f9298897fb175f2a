import Federate
import FederateTestSupport
@testable import FederateDevProvider
import FederateGoogle
import Foundation
import Testing

/// The dev provider's Firebase flavour, verified by FederateGoogle's `FirebaseIDTokenVerifier`
/// through the certificate map, as a server verifies the tokens its apps send.
@Suite("Dev provider: Firebase flavour")
struct FirebaseFlavorTests {
    static func verifier(
        _ provider: DevProvider, keys: RemoteKeySet? = nil, clock: FederateClock = .system
    ) throws -> FirebaseIDTokenVerifier {
        let map =
            try keys ?? RemoteKeySet(url: try #require(provider.certificatesURL), format: .x509Map, httpClient: PatientTransport.shared)
        return try FirebaseIDTokenVerifier(projectID: "dev-project", keys: map, issuerBase: provider.baseURL + "/", clock: clock)
    }

    @Test func tokensVerifyThroughTheCertificateMap() async throws {
        try await Flavor.with(.standard(for: .firebase)) { provider in
            #expect(provider.issuer == provider.baseURL + "/dev-project")
            let token = try provider.firebaseIDToken(for: DevProviderConfiguration.standardUsers[0])
            let verified = try await Self.verifier(provider).verify(token, checkRevoked: false)
            #expect(verified.uid == "alice")
            #expect(verified.signInProvider == "google.com")

            let map = try await PatientTransport.shared.send(HTTPRequest(url: try #require(provider.certificatesURL)))
            #expect(map.header("Cache-Control")?.contains("max-age=300") == true)
            #expect(String(decoding: map.body, as: UTF8.self).contains("BEGIN CERTIFICATE"))
        }
    }

    @Test func codeFlowTokensAreFirebaseShaped() async throws {
        try await Flavor.with(.standard(for: .firebase)) { provider in
            let client = try await Flavor.client(provider, id: "dev-project", authentication: .none)
            let tokens = try await Flavor.signIn(client)
            let claims = try #require(tokens.idTokenClaims)
            #expect(claims.issuer == provider.issuer)
            #expect(claims.audiences == ["dev-project"])
            #expect(claims.claims["firebase"]?["sign_in_provider"] == "google.com")
            _ = try await Self.verifier(provider).verify(try #require(tokens.idToken), checkRevoked: false)
        }
    }

    @Test func certificateMapIsRefetchedWhenMaxAgeExpires() async throws {
        let time = TestClock()
        var configuration = DevProviderConfiguration.standard(for: .firebase)
        configuration.keysMaxAge = .seconds(1)
        configuration.clock = time.clock
        try await Flavor.with(configuration) { provider in
            let fetches = CountingHTTPClient()
            let keys = try RemoteKeySet(
                url: try #require(provider.certificatesURL), format: .x509Map, httpClient: fetches,
                cachePolicy: CachePolicy(minimumLifetime: .seconds(1), forcedRefreshInterval: .seconds(3600)), clock: time.clock)
            let verifier = try Self.verifier(provider, keys: keys, clock: time.clock)
            let user = DevProviderConfiguration.standardUsers[0]
            _ = try await verifier.verify(try provider.firebaseIDToken(for: user), checkRevoked: false)
            _ = try await verifier.verify(try provider.firebaseIDToken(for: user), checkRevoked: false)
            #expect(fetches.count == 1)
            time.advance(by: .milliseconds(999))
            _ = try await verifier.verify(try provider.firebaseIDToken(for: user), checkRevoked: false)
            #expect(fetches.count == 1)  // not yet expired
            time.advance(by: .milliseconds(1))
            _ = try await verifier.verify(try provider.firebaseIDToken(for: user), checkRevoked: false)
            #expect(fetches.count == 2)
        }
    }

    @Test func ruleViolationsAreRejectedWithTheirCodes() async throws {
        try await Flavor.with(.standard(for: .firebase)) { provider in
            let verifier = try Self.verifier(provider)
            let user = DevProviderConfiguration.standardUsers[0]
            let twoHoursLater = try Self.verifier(provider, clock: .fixed(at: Date().addingTimeInterval(7200)))
            let expired = await #expect(throws: FederateError.self) {
                try await twoHoursLater.verify(try provider.firebaseIDToken(for: user), checkRevoked: false)
            }
            #expect(expired?.code == .idTokenExpired)
            let otherProject = try FirebaseIDTokenVerifier(
                projectID: "another-project",
                keys: try RemoteKeySet(url: try #require(provider.certificatesURL), format: .x509Map, httpClient: PatientTransport.shared),
                issuerBase: provider.baseURL + "/")
            let wrongProject = await #expect(throws: FederateError.self) {
                try await otherProject.verify(try provider.firebaseIDToken(for: user), checkRevoked: false)
            }
            #expect(wrongProject?.code == .issuerMismatch || wrongProject?.code == .audienceMismatch)
            let future = Date().addingTimeInterval(3600)
            let authInFuture = await #expect(throws: FederateError.self) {
                try await verifier.verify(try provider.firebaseIDToken(for: user, authTime: future), checkRevoked: false)
            }
            #expect(authInFuture != nil)
        }
    }
}

/// An HTTP client that counts the requests it forwards.
final class CountingHTTPClient: HTTPClient, @unchecked Sendable {
    private let lock = NSLock()
    private var requests = 0

    var count: Int { lock.withLock { requests } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        lock.withLock { requests += 1 }
        return try await PatientTransport.shared.send(request)
    }
}
