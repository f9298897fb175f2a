import Federate
import FederateOIDC
import FederateTestSupport
import Foundation
import Testing

/// The server's sign-in against an OpenID provider nobody here wrote: idpy-oidc (PyPI), run by
/// `Tests/Interop/idpy_provider.py` on loopback. Its ID tokens carry no email or name — it
/// releases them only at UserInfo — so the account gets them only if the sign-in calls UserInfo.
/// Needs the interop venv (`Tests/Interop/venv.sh`); a missing Python fails the test, never skips it.
@Suite("Interop: idpy-oidc", .serialized)
struct IdpyInteropTests {
    @Test(.timeLimit(.minutes(20)))
    func userInfoOnlyClaimsReachTheAccount() async throws {
        let root = try ExternalProcess.packageRoot()
        let python = try await InteropPython.prepare(root: root)
        let opPort = try FreePort.loopback(), serverPort = try FreePort.loopback()
        let op = try InteractiveCLI(
            executable: python,
            arguments: [
                "Tests/Interop/idpy_provider.py", "--port", String(opPort), "--client-id", "federate-rp", "--client-secret", "idpy-secret",
                "--redirect-uri", "http://127.0.0.1:\(serverPort)/auth/idpy/callback",
            ],
            directory: root.path)
        let ready = await op.nextLine()
        let issuer = "http://127.0.0.1:\(opPort)"
        try #require(ready == "READY " + issuer, "idpy_provider.py did not start: \(ready ?? "no output")")

        let accounts = AccountService(store: InMemoryAccountStore())
        let idpy = try OIDCProvider(
            id: "oidc.idpy", issuer: issuer, clientID: "federate-rp", clientSecret: "idpy-secret",
            cache: ProviderCache(httpClient: PatientTransport.shared))
        try await RoutesServer.run(port: serverPort, providers: ["idpy": idpy], accounts: accounts) { origin in
            let browser = TestBrowser()
            let landed = try await browser.navigate(origin + "/auth/idpy/start?returnTo=/", origin: origin)
            #expect(String(decoding: landed.body, as: UTF8.self) == "home", "\(browser.history)")
            let me = try JSONParser().parseObject(try await browser.send(origin + "/me").body)
            #expect(me["email"] == "alice@example.com" && me["email_verified"] == true && me["display_name"] == "Alice Idpy", "\(me)")
            let uid = try #require(me["uid"]?.stringValue)
            #expect(try await accounts.user(uid: uid).identity(providerID: "oidc.idpy")?.subject == "alice")
        }
        await op.terminate()
    }
}
