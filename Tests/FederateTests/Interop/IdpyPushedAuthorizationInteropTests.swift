import FederateTestSupport
import Foundation
import Testing
import Federate
@testable import FederateRelyingParty

/// Pushed authorization requests (RFC 9126) and `client_secret_jwt` against idpy-oidc (PyPI),
/// an OpenID provider nobody here wrote, run by `Tests/Interop/idpy_provider.py --require-par`
/// on loopback. Needs the interop venv (`Tests/Interop/venv.sh`); a missing Python fails the
/// test, never skips it. idpy-oidc 5 has no device authorization endpoint: the device grant is
/// tested against django-oauth-toolkit (`DOTDeviceGrantInteropTests`) and the dev provider.
@Suite("Interop: idpy-oidc pushed authorization", .serialized)
struct IdpyPushedAuthorizationInteropTests {
    static let redirectURI = "http://127.0.0.1:9/callback"

    @Test(.timeLimit(.minutes(20)))
    func aRequiredPushedRequestWithClientSecretJWTSignsIn() async throws {
        let root = try ExternalProcess.packageRoot()
        let python = try await InteropPython.prepare(root: root)
        let port = try FreePort.loopback()
        let secret = "idpy-secret-of-32-bytes-or-more!"
        let op = try InteractiveCLI(
            executable: python,
            arguments: [
                "Tests/Interop/idpy_provider.py", "--port", String(port), "--client-id", "federate-rp", "--client-secret", secret,
                "--redirect-uri", Self.redirectURI, "--require-par",
            ],
            directory: root.path)
        let issuer = "http://127.0.0.1:\(port)"
        let ready = await op.nextLine()
        try #require(ready == "READY " + issuer, "idpy_provider.py did not start: \(ready ?? "no output")")

        let metadata = try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: issuer)
        #expect(metadata.requiresPushedAuthorizationRequests)
        #expect(metadata.pushedAuthorizationRequestEndpoint == issuer + "/par")
        let client = try OpenIDClient(
            metadata: metadata, clientID: "federate-rp", authentication: .clientSecretJWT(secret: secret),
            httpClient: PatientTransport.shared)
        let refused = await #expect(throws: FederateError.self) {
            try await client.authorizationRequest(providerID: "oidc.idpy", redirectURI: Self.redirectURI)
        }
        #expect(refused?.code == .pushedAuthorizationRequired)

        // idpy-oidc 5 checks the redirect as a whole OpenID request before it resolves
        // request_uri: it needs response_type, scope and redirect_uri repeated.
        let built = try await client.authorizationRequest(
            providerID: "oidc.idpy", redirectURI: Self.redirectURI, delivery: AuthorizationDelivery(repeatsRequiredParameters: true))
        let pushed = try #require(built.pushed)
        #expect(pushed.requestURI.hasPrefix("urn:uuid:") && pushed.expiresAt > Date(timeIntervalSinceNow: 30))
        let answer = try await PatientTransport.shared.send(HTTPRequest(url: built.url))
        #expect(answer.status == 302, "\(String(decoding: answer.body, as: UTF8.self))")
        let callback = try AuthorizationResponse(redirectURL: try #require(answer.header("Location")))
        let tokens = try await client.finish(callback, pending: built.pending).tokens
        #expect(tokens.idTokenClaims?.subject == "alice")
        // The pushed request was used once.
        #expect(try await PatientTransport.shared.send(HTTPRequest(url: built.url)).status == 400)

        // A wrong secret is refused at the pushed-authorization endpoint.
        let impostor = try OpenIDClient(
            metadata: metadata, clientID: "federate-rp", authentication: .clientSecretJWT(secret: "not-the-secret-but-long-enough!!"),
            httpClient: PatientTransport.shared)
        let wrong = await #expect(throws: FederateError.self) {
            try await impostor.authorizationRequest(providerID: "oidc.idpy", redirectURI: Self.redirectURI, delivery: .automatic)
        }
        #expect(wrong?.code == .invalidClient)
        await op.terminate()
    }
}
