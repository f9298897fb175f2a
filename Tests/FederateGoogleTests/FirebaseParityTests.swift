import Federate
@testable import FederateDevProvider
@testable import FederateGoogle
import FederateTestSupport
import Foundation
import Testing

/// Firebase Admin parity (issue 17, item 6): `firebase.tenant`, session cookies
/// (`verifySessionCookie`'s issuer and key URL), and the Auth emulator's unsigned tokens,
/// accepted only when an emulator is configured explicitly. Tokens come from the dev
/// provider's Firebase flavour and from an independent maker (Python's `cryptography`,
/// `Tests/Interop/tenant_tokens.py`).
@Suite("Firebase: tenants, session cookies, emulator")
struct FirebaseParityTests {
    static let project = "dev-project"
    static let now: Int64 = 1_760_000_000
    static var clock: FederateClock { .fixed(at: Date(timeIntervalSince1970: Double(now))) }

    static func python() async throws -> [String: JSONValue] {
        let root = try ExternalProcess.packageRoot()
        let python = try await InteropPython.prepare(root: root)
        let run = await ExternalProcess.run(
            [python, "Tests/Interop/tenant_tokens.py", "--now", String(now), "--client-id", "unused", "--project", project], in: root,
            timeout: 60)
        try #require(run.status == 0, "tenant_tokens.py failed: \(ExternalProcess.tail(run.stderr))")
        return try JSONParser().parseObject(Array(run.stdout.utf8))
    }

    @Test func theAdminSDKsURLsAndIssuers() {
        #expect(FirebaseSessionCookieVerifier.certificatesURL == "https://www.googleapis.com/identitytoolkit/v3/relyingparty/publicKeys")
        #expect(FirebaseSessionCookieVerifier.issuerBase == "https://session.firebase.google.com/")
        #expect(
            FirebaseIDTokenVerifier.certificatesURL
                == "https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com")
    }

    @Test func pythonSessionCookiesAndEmulatorTokens() async throws {
        let made = try await Self.python()
        let tokens = try #require(made["firebase"])
        func token(_ name: String) -> String { tokens[name]?.stringValue ?? "" }
        let keys = try JSONWebKeySet(x509Map: JSONSerializer.bytes(try #require(made["x509"])))

        // Session cookies: their own issuer; an ID token's issuer is refused, and vice versa.
        let cookies = try FirebaseSessionCookieVerifier(projectID: Self.project, keys: keys, clock: Self.clock)
        let cookie = try await cookies.verify(token("session_cookie"))
        #expect(cookie.uid == "uid-1")
        #expect(!cookie.isEmulated)
        #expect(cookie.tenant == nil)
        #expect(await refusalCode { try await cookies.verify(token("session_cookie_as_id_token")) } == .issuerMismatch)
        #expect(await refusalCode { try await cookies.verify(token("session_cookie_long_sub")) } == .invalidClaim)
        let idTokens = try FirebaseIDTokenVerifier(projectID: Self.project, keys: keys, clock: Self.clock)
        #expect(await refusalCode { try await idTokens.verify(token("session_cookie"), checkRevoked: false) } == .issuerMismatch)
        let later = try FirebaseSessionCookieVerifier(
            projectID: Self.project, keys: keys, clock: .fixed(at: Date(timeIntervalSince1970: Double(Self.now + 7200))))
        #expect(await refusalCode { try await later.verify(token("session_cookie")) } == .sessionCookieExpired)

        // Tenants: the expected tenant passes; another tenant's cookie, or a project-level one, does not.
        let tenantA = try FirebaseSessionCookieVerifier(projectID: Self.project, keys: keys, tenants: ["tenant-a"], clock: Self.clock)
        #expect(try await tenantA.verify(token("session_cookie_tenant_a")).tenant == "tenant-a")
        #expect(await refusalCode { try await tenantA.verify(token("session_cookie_tenant_b")) } == .tenantNotAllowed)
        #expect(await refusalCode { try await tenantA.verify(token("session_cookie")) } == .tenantNotAllowed)
        // Without tenants (project level), any tenant's cookie passes, as in the Admin SDKs.
        #expect(try await cookies.verify(token("session_cookie_tenant_b")).tenant == "tenant-b")

        // Unsigned emulator tokens: refused by default, whatever the claims.
        #expect(await refusalCode { try await idTokens.verify(token("emulator_id_token"), checkRevoked: false) } == .malformedToken)
        // `alg: none` with a signature: no `kid`, refused before any key is looked at.
        #expect(
            await refusalCode { try await idTokens.verify(token("emulator_signed_with_none_alg_and_signature"), checkRevoked: false) }
                == .unknownKey)
        // With the emulator named: accepted with the real rules, and signed tokens refused.
        let emulator = try FirebaseEmulator(host: "127.0.0.1:9099")
        let emulated = try FirebaseIDTokenVerifier(projectID: Self.project, emulator: emulator, clock: Self.clock)
        let accepted = try await emulated.verify(token("emulator_id_token"), checkRevoked: false)
        #expect(accepted.isEmulated)
        #expect(accepted.idToken == nil)
        #expect(accepted.uid == "uid-1")
        #expect(await refusalCode { try await emulated.verify(token("emulator_wrong_audience"), checkRevoked: false) } == .audienceMismatch)
        #expect(await refusalCode { try await emulated.verify(token("emulator_wrong_issuer"), checkRevoked: false) } == .issuerMismatch)
        #expect(await refusalCode { try await emulated.verify(token("emulator_expired"), checkRevoked: false) } == .idTokenExpired)
        #expect(
            await refusalCode { try await emulated.verify(token("emulator_signed_with_none_alg_and_signature"), checkRevoked: false) }
                == .disallowedAlgorithm)
        #expect(await refusalCode { try await emulated.verify(token("session_cookie"), checkRevoked: false) } == .disallowedAlgorithm)
        #expect(await refusalCode { try await emulated.verify(token("emulator_id_token")) } == .invalidConfiguration)
        let emulatedTenant = try FirebaseIDTokenVerifier(
            projectID: Self.project, tenants: ["tenant-a"], emulator: emulator, clock: Self.clock)
        #expect(try await emulatedTenant.verify(token("emulator_id_token_tenant_a"), checkRevoked: false).tenant == "tenant-a")
        #expect(await refusalCode { try await emulatedTenant.verify(token("emulator_id_token"), checkRevoked: false) } == .tenantNotAllowed)
        let emulatedCookies = try FirebaseSessionCookieVerifier(projectID: Self.project, emulator: emulator, clock: Self.clock)
        #expect(try await emulatedCookies.verify(token("emulator_session_cookie")).isEmulated)
        #expect(await refusalCode { try await emulatedCookies.verify(token("emulator_id_token")) } == .issuerMismatch)
    }

    @Test func theEmulatorIsNeverImplicit() throws {
        #expect(try FirebaseEmulator.fromEnvironment([:]) == nil)
        #expect(try FirebaseEmulator.fromEnvironment(["FIREBASE_AUTH_EMULATOR_HOST": ""]) == nil)
        #expect(try FirebaseEmulator.fromEnvironment(["FIREBASE_AUTH_EMULATOR_HOST": "127.0.0.1:9099"])?.host == "127.0.0.1:9099")
        for bad in ["http://127.0.0.1:9099", "127.0.0.1:9099/path", "host name", ""] {
            #expect(throws: FederateError.self) { try FirebaseEmulator(host: bad) }
        }
        // A verifier built without one has none, even with the variable set in this process.
        let verifier = try FirebaseIDTokenVerifier(projectID: Self.project, keys: JSONWebKeySet.empty)
        #expect(verifier.emulator == nil)
        #expect(throws: FederateError.self) { try FirebaseIDTokenVerifier(projectID: Self.project, keys: JSONWebKeySet.empty, tenants: []) }
    }

    @Test func devProviderSessionCookiesTenantsAndEmulator() async throws {
        let provider = try await DevProvider.start(configuration: .standard(for: .firebase))
        defer { Task { try? await provider.stop() } }
        let alice = DevProviderConfiguration.standardUsers[0]
        let cookieKeys = try RemoteKeySet(
            url: try #require(provider.sessionCookieKeysURL), format: .x509Map, httpClient: PatientTransport.shared)
        let cookies = try FirebaseSessionCookieVerifier(
            projectID: Self.project, keys: cookieKeys, issuerBase: provider.sessionCookieIssuerBase, tenants: ["tenant-a"])
        #expect(try await cookies.verify(try provider.firebaseSessionCookie(for: alice, tenant: "tenant-a")).uid == "alice")
        #expect(
            await refusalCode { try await cookies.verify(try provider.firebaseSessionCookie(for: alice, tenant: "tenant-b")) }
                == .tenantNotAllowed)
        #expect(await refusalCode { try await cookies.verify(try provider.firebaseSessionCookie(for: alice)) } == .tenantNotAllowed)
        // An ID token is not a session cookie.
        #expect(
            await refusalCode { try await cookies.verify(try provider.firebaseIDToken(for: alice, tenant: "tenant-a")) } == .issuerMismatch)

        let idTokens = try FirebaseIDTokenVerifier(
            projectID: Self.project,
            keys: RemoteKeySet(url: try #require(provider.certificatesURL), format: .x509Map, httpClient: PatientTransport.shared),
            issuerBase: provider.baseURL + "/", tenants: ["tenant-a"])
        #expect(
            try await idTokens.verify(try provider.firebaseIDToken(for: alice, tenant: "tenant-a"), checkRevoked: false).tenant
                == "tenant-a")
        #expect(
            await refusalCode { try await idTokens.verify(try provider.firebaseIDToken(for: alice), checkRevoked: false) }
                == .tenantNotAllowed)

        // The dev provider as the Auth emulator.
        let unsigned = provider.firebaseEmulatorToken(for: alice)
        #expect(await refusalCode { try await idTokens.verify(unsigned, checkRevoked: false) } == .malformedToken)
        let emulated = try FirebaseIDTokenVerifier(projectID: Self.project, emulator: FirebaseEmulator(host: "127.0.0.1:9099"))
        #expect(try await emulated.verify(unsigned, checkRevoked: false).uid == "alice")
    }
}
