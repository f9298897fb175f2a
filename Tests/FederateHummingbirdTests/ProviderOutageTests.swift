import Federate
import FederateHummingbird
import FederateOIDC
import FederateTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// A provider that cannot be reached is an outage, not a bad token: a bearer route answers 503
/// with `Retry-After` and no `invalid_token` challenge.
@Suite("Provider outage on a bearer route")
struct ProviderOutageTests {
    @Test func anUnreachableProviderIs503NotInvalidToken() async throws {
        let closed = try FreePort.loopback()
        let provider = try OIDCProvider(
            id: "oidc.down", issuer: "http://127.0.0.1:\(closed)", clientID: "rp", clientSecret: "s",
            cache: ProviderCache(httpClient: PatientTransport.shared))
        let router = Router(context: FederateContext.self)
        router.group("api").add(middleware: BearerAuthenticationMiddleware<FederateContext>(verifier: provider.bearerVerifier()))
            .get("whoami") { _, context in context.federate.caller?.subject ?? "" }
        // A well-formed RS256 token with a `kid`: judging it needs the provider's keys.
        let header = Base64URL.encode(Array(#"{"alg":"RS256","kid":"k1","typ":"JWT"}"#.utf8))
        let payload = Base64URL.encode(Array(#"{"iss":"http://127.0.0.1","sub":"a","aud":"rp","exp":4000000000,"iat":1}"#.utf8))
        let token = header + "." + payload + "." + Base64URL.encode(Array(repeating: 7, count: 256))
        try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/api/whoami", method: .get, headers: [.authorization: "Bearer " + token]) { response in
                #expect(response.status == .serviceUnavailable, "\(response.status) \(String(buffer: response.body))")
                #expect(response.headers[.retryAfter] == "5")
                #expect(response.headers[.wwwAuthenticate] == nil)
                let code = try JSONParser().parseObject(Array(buffer: response.body))["error"]?.stringValue
                #expect(code == "discovery_failed" || code == "key_fetch_failed", "\(String(describing: code))")
            }
        }
    }
}
