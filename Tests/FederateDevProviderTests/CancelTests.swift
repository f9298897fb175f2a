import Federate
import FederateDevProvider
import FederateTestSupport
import Foundation
import Testing

/// The sign-in page's Cancel: the dev provider sends the browser back to the registered
/// redirect URI with `error=access_denied` and the request's `state`, as a real provider does
/// when the person declines, and the relying party reads it as the provider's refusal.
@Suite("Dev provider: Cancel")
struct CancelTests {
    @Test func cancelAnswersAccessDeniedWithState() async throws {
        var configuration = DevProviderConfiguration.standard
        configuration.autoApproveSubject = nil  // show the sign-in page
        try await DevProviderTests.with(configuration) { provider in
            let client = try await DevProviderTests.client(provider)
            let built = try await client.authorizationRequest(providerID: "oidc.dev", redirectURI: DevProviderTests.redirectURI)
            let page = try await PatientTransport.shared.send(HTTPRequest(url: built.url))
            #expect(page.status == 200)
            let html = String(decoding: page.body, as: UTF8.self)
            #expect(html.contains(">Cancel</button>"))

            // The page's form, submitted with its Cancel button.
            var fields = HTMLForm.hiddenFields(html)
            fields["cancel"] = "1"
            let action = String(built.url.prefix { $0 != "?" })
            let body = FormURLEncoding.encode(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
            let answer = try await PatientTransport.shared.send(
                HTTPRequest(
                    method: "POST", url: action, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(body.utf8)))
            #expect(answer.status == 302)
            let location = try #require(answer.header("Location"))
            #expect(location.hasPrefix(DevProviderTests.redirectURI + "?"))
            let callback = try AuthorizationResponse(redirectURL: location)
            #expect(callback.parameters["error"] == "access_denied")
            #expect(callback.parameters["state"] == built.pending.state)
            #expect(callback.parameters["code"] == nil)

            let refused = await #expect(throws: FederateError.self) { try await client.finish(callback, pending: built.pending).tokens }
            #expect(refused?.providerError?.code == "access_denied")
        }
    }
}
