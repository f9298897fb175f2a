import Federate
import FederateHummingbird
import FederateOIDC
import FederateTestSupport
import Foundation
import Testing

/// Step-up against idpy-oidc (PyPI), a provider nobody here wrote: `Tests/Interop/idpy_provider.py
/// --acr phr` registers a second authentication method for the class `phr`, which idpy-oidc's
/// own `acr_values` handling picks. A plain sign-in gets its default class; the phishing-resistant
/// route refuses that session, and a step-up with `acr_values=phr` reaches it.
/// Needs the interop venv (`Tests/Interop/venv.sh`); a missing Python fails the test, never skips it.
@Suite("Interop: idpy-oidc step-up", .serialized)
struct IdpyStepUpInteropTests {
    @Test(.timeLimit(.minutes(20)))
    func stepUpReachesAPhishingResistantRoute() async throws {
        let root = try ExternalProcess.packageRoot()
        let python = try await InteropPython.prepare(root: root)
        let opPort = try FreePort.loopback(), serverPort = try FreePort.loopback()
        let op = try InteractiveCLI(
            executable: python,
            arguments: [
                "Tests/Interop/idpy_provider.py", "--port", String(opPort), "--client-id", "federate-rp", "--client-secret", "idpy-secret",
                "--redirect-uri", "http://127.0.0.1:\(serverPort)/auth/idpy/callback", "--acr", "phr",
            ],
            directory: root.path)
        let ready = await op.nextLine()
        let issuer = "http://127.0.0.1:\(opPort)"
        try #require(ready == "READY " + issuer, "idpy_provider.py did not start: \(ready ?? "no output")")

        let accounts = AccountService(store: InMemoryAccountStore())
        let idpy = try OIDCProvider(
            id: "oidc.idpy", issuer: issuer, clientID: "federate-rp", clientSecret: "idpy-secret",
            cache: ProviderCache(httpClient: PatientTransport.shared))
        try await RoutesServer.run(port: serverPort, providers: ["idpy": idpy], accounts: accounts, routes: StepUpTests.sensitive(accounts))
        { origin in
            let browser = TestBrowser()
            _ = try await browser.navigate(origin + "/auth/idpy/start?returnTo=/", origin: origin)
            let plain = try await accounts.verifySession(try #require(browser.cookie("federate_session")))
            #expect(plain.acr == "urn:oasis:names:tc:SAML:2.0:ac:classes:unspecified")
            #expect(try await browser.send(origin + "/sensitive").status == 403)

            // A sign-in, not a reauthentication: this provider's NoAuthn answers prompt=login
            // with a login page, which the test cannot fill in.
            let landed = try await browser.navigate(
                origin + "/auth/idpy/start?acr_values=phr&max_age=0&returnTo=/sensitive", origin: origin)
            #expect(
                landed.status == 200 && String(decoding: landed.body, as: UTF8.self) == "phr",
                "\(browser.history.suffix(2).map { String($0.suffix(150)) })")
            let stepped = try await accounts.verifySession(try #require(browser.cookie("federate_session")))
            #expect(stepped.uid == plain.uid && stepped.acr == "phr")
        }
        await op.terminate()
    }
}
