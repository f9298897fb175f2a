import Federate
import FederateHummingbird
import FederateTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

/// The middleware's way without suspension: with the keys at hand a `Bearer` token is verified
/// synchronously (no executor hop per async layer), and every other case (cold keys, an
/// unknown `kid`, a presentation that confirms asynchronously) finishes the async way, with
/// the same answers and without verifying the token twice.
@Suite("Bearer middleware without suspending")
struct MiddlewareWithoutSuspendingTests {
    /// How often the middleware asked each way.
    final class Counts: Sendable {
        let atOnce = Mutex(0)
        let async = Mutex(0)
        var both: (atOnce: Int, async: Int) { (atOnce.withLock { $0 }, async.withLock { $0 }) }
    }

    /// Forwards to `inner`, counting the calls.
    struct CountingVerifier: CallerTokenVerifier {
        let inner: any CallerTokenVerifier
        let counts: Counts

        func verifyCaller(_ token: String) async throws(FederateError) -> CallerIdentity {
            counts.async.withLock { $0 += 1 }
            return try await inner.verifyCaller(token)
        }

        func verifyCallerWithoutSuspending(_ token: String) throws(FederateError) -> CallerIdentity? {
            counts.atOnce.withLock { $0 += 1 }
            return try inner.verifyCallerWithoutSuspending(token)
        }
    }

    /// A `Bearer` presentation that can only confirm asynchronously, and refuses a subject.
    struct AsyncPresentation: TokenPresentation {
        var scheme: String { "Bearer" }
        var challengeParameters: [(name: String, value: String)] { [] }

        func confirm(_ caller: CallerIdentity, token: String, request: ServerRequest) async throws(FederateError) -> CallerIdentity {
            await Task.yield()
            if caller.subject == "mallory" { throw FederateError(.tokenBindingMismatch, "not on this request") }
            return caller
        }
    }

    static func get(_ client: some TestClientProtocol, _ token: String) async throws -> (Int, String) {
        var headers = HTTPFields()
        headers[.authorization] = "Bearer " + token
        return try await client.execute(uri: "/api/whoami", method: .get, headers: headers) { response in
            (Int(response.status.code), String(buffer: response.body))
        }
    }

    static func application(_ verifier: any CallerTokenVerifier, presentations: [any TokenPresentation] = [BearerPresentation()]) -> some ApplicationProtocol {
        let router = Router(context: FederateContext.self)
        router.group("api").add(middleware: BearerAuthenticationMiddleware(verifier: verifier, presentations: presentations))
            .get("whoami") { _, context in context.federate.caller?.subject ?? "-" }
        return Application(router: router)
    }

    @Test func warmKeysAnswerWithoutSuspending() async throws {
        try await TestIssuer.with { issuer in
            let counts = Counts()
            let idTokens = IDTokenBearerVerifier(providerID: "oidc.test", verifier: IDTokenVerifier(policy: issuer.policy, keys: try issuer.localKeySet()))
            try await Self.application(CountingVerifier(inner: idTokens, counts: counts)).test(.router) { http in
                for _ in 0..<3 {
                    let (status, body) = try await Self.get(http, try issuer.idToken())
                    #expect(status == 200 && body == "user-42")
                }
                #expect(counts.both == (3, 0))
                // Refused at once, with the code the async way gives.
                let (status, body) = try await Self.get(http, try issuer.idToken(claims: ["aud": "someone-else"]))
                #expect(status == 401 && body.contains("\"audience_mismatch\""), "\(body)")
                #expect(counts.both == (4, 0))
                // A kid the set lacks: no answer at once, so the async way (which may refetch) decides.
                let (unknownStatus, unknownBody) = try await Self.get(http, try issuer.idToken(header: ["kid": "unknown"]))
                #expect(unknownStatus == 401 && unknownBody.contains("\"unknown_key\""), "\(unknownBody)")
                #expect(counts.both == (5, 1))
            }
        }
    }

    @Test func coldKeysTakeTheAsyncWayOnceThenNot() async throws {
        try await TestIssuer.with { issuer in
            let counts = Counts()
            let keys = try RemoteKeySet(url: issuer.jwksURL, httpClient: AsyncHTTPClientTransport.shared)
            let idTokens = IDTokenBearerVerifier(providerID: "oidc.test", verifier: IDTokenVerifier(policy: issuer.policy, keys: keys))
            try await Self.application(CountingVerifier(inner: idTokens, counts: counts)).test(.router) { http in
                let token = try issuer.idToken()
                var (status, body) = try await Self.get(http, token)
                #expect(status == 200 && body == "user-42")
                #expect(counts.both == (1, 1), "nothing cached yet: the async way fetched the keys")
                (status, body) = try await Self.get(http, token)
                #expect(status == 200 && body == "user-42")
                #expect(counts.both == (2, 1), "cached now: answered at once")
                #expect(issuer.jwksRequestCount == 1)
            }
        }
    }

    @Test func aVerifierWithoutTheWayAtOnceStillAnswers() async throws {
        try await TestIssuer.with { issuer in
            let counts = Counts()
            let verifier = IDTokenVerifier(policy: issuer.policy, keys: try issuer.localKeySet())
            // A closure-built verifier has no synchronous way: the default answers nil.
            let idTokens = IDTokenBearerVerifier(providerID: "oidc.test") { (token, expectations) throws(FederateError) in
                try await verifier.verify(token, expecting: expectations)
            }
            try await Self.application(CountingVerifier(inner: idTokens, counts: counts)).test(.router) { http in
                var (status, body) = try await Self.get(http, try issuer.idToken())
                #expect(status == 200 && body == "user-42")
                (status, body) = try await Self.get(http, try issuer.idToken(claims: ["aud": "someone-else"]))
                #expect(status == 401 && body.contains("\"audience_mismatch\""))
                #expect(counts.both == (2, 2))
            }
        }
    }

    @Test func anAsyncConfirmationDoesNotVerifyTwice() async throws {
        try await TestIssuer.with { issuer in
            let counts = Counts()
            let idTokens = IDTokenBearerVerifier(providerID: "oidc.test", verifier: IDTokenVerifier(policy: issuer.policy, keys: try issuer.localKeySet()))
            let application = Self.application(CountingVerifier(inner: idTokens, counts: counts), presentations: [AsyncPresentation()])
            try await application.test(.router) { http in
                var (status, body) = try await Self.get(http, try issuer.idToken())
                #expect(status == 200 && body == "user-42")
                (status, body) = try await Self.get(http, try issuer.idToken(claims: ["sub": "mallory"]))
                #expect(status == 401 && body.contains("\"token_binding_mismatch\""), "\(body)")
                #expect(counts.both == (2, 0), "verified at once, confirmed the async way: each token verified once")
            }
        }
    }
}
