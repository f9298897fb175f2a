import Federate
import FederateHummingbird
import FederateTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
@testable import FederateServer

/// The middleware verifies each token once, through the one async `verify`, on the
/// request's executor: with warm keys and a `Bearer` token it never leaves that executor (no
/// hop per async layer), and every other case (cold keys, an unknown `kid`, a presentation
/// that confirms asynchronously) suspends where it must, with the same answers.
@Suite("Bearer middleware on the request's executor")
struct MiddlewareExecutorTests {
    /// Forwards to `inner`, counting the calls.
    final class CountingVerifier: TokenVerifier {
        let inner: any TokenVerifier
        private let calls = Mutex(0)

        init(inner: any TokenVerifier) {
            self.inner = inner
        }

        nonisolated(nonsending) func verify(_ token: String) async throws(FederateError) -> VerifiedToken {
            calls.withLock { $0 += 1 }
            return try await inner.verify(token)
        }

        var count: Int { calls.withLock { $0 } }
    }

    /// A verifier of the user's own, not one Federate knows: called through the protocol.
    struct OwnVerifier: TokenVerifier {
        let verifier: IDTokenVerifier

        nonisolated(nonsending) func verify(_ token: String) async throws(FederateError) -> VerifiedToken {
            VerifiedToken(idToken: try await verifier.verify(token), providerID: "oidc.test")
        }
    }

    /// A `Bearer` presentation that confirms after a suspension, and refuses a subject.
    struct AsyncPresentation: TokenPresentation, PresentationScheme {
        var scheme: String { "Bearer" }
        var challengeParameters: [(name: String, value: String)] { [] }

        func confirm(_ caller: VerifiedToken, token: String, request: ServerRequest) async throws(FederateError) -> VerifiedToken {
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

    static func application(
        _ verifier: any TokenVerifier, presentations: [any TokenPresentation] = [BearerPresentation()]
    ) -> some ApplicationProtocol {
        let router = Router(context: FederateContext.self)
        router.group("api").add(middleware: BearerAuthenticationMiddleware(verifier: verifier, presentations: presentations))
            .get("whoami") { _, context in context.federate.caller?.subject ?? "-" }
        return Application(router: router)
    }

    static func request(bearer token: String) -> Request {
        var fields = HTTPFields()
        fields[.authorization] = "Bearer " + token
        return Request(
            head: HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: "/api/whoami", headerFields: fields),
            body: RequestBody(buffer: ByteBuffer()))
    }

    /// What authenticating `token` gave, and how often the work left the request's executor.
    static func authenticate(
        _ middleware: BearerAuthenticationMiddleware<FederateContext>, _ token: String, on counter: ExecutorSwitchCounter
    ) async throws -> (outcome: Result<String, BearerChallenge>, switches: Int) {
        let request = request(bearer: token)
        let (outcome, switches) = try await counter.run { () async -> Result<String, BearerChallenge> in
            do throws(BearerChallenge) {
                return .success(try await middleware.authenticate(request).subject ?? "-")
            } catch {
                return .failure(error)
            }
        }
        return (outcome, switches)
    }

    @Test func warmKeysAnswerOnTheRequestsExecutor() async throws {
        try await TestIssuer.with { issuer in
            let keys = try RemoteKeySet(url: issuer.jwksURL, httpClient: AsyncHTTPClientTransport.shared)
            let idTokens = IDTokenBearerVerifier(providerID: "oidc.test", verifier: IDTokenVerifier(policy: issuer.policy, keys: keys))
            let middleware = BearerAuthenticationMiddleware<FederateContext>(verifier: idTokens)
            let counter = ExecutorSwitchCounter()
            // Cold keys: the fetch suspends.
            let cold = try await Self.authenticate(middleware, try issuer.idToken(), on: counter)
            #expect(try cold.outcome.get() == "user-42")
            #expect(cold.switches > 0, "the keys were fetched: the verification suspended")
            // Warm keys: accepted, and refused, without leaving the executor.
            let warm = try await Self.authenticate(middleware, try issuer.idToken(), on: counter)
            #expect(try warm.outcome.get() == "user-42")
            #expect(warm.switches == 0)
            let refused = try await Self.authenticate(middleware, try issuer.idToken(claims: ["aud": "someone-else"]), on: counter)
            guard case .failure(let challenge) = refused.outcome else {
                Issue.record("accepted another audience")
                return
            }
            #expect(challenge.error.code == .audienceMismatch)
            #expect(refused.switches == 0)
            #expect(issuer.jwksRequestCount == 1)
        }
    }

    /// The framework-neutral authenticator, which FederateVapor's middleware calls too: through
    /// a `CallerTokenRouter`, warm keys and a `Bearer` token never leave the caller's executor.
    @Test func theAuthenticatorAnswersOnTheCallersExecutor() async throws {
        try await TestIssuer.with { issuer in
            let keys = try RemoteKeySet(url: issuer.jwksURL, httpClient: AsyncHTTPClientTransport.shared)
            let idTokens = IDTokenBearerVerifier(providerID: "oidc.test", verifier: IDTokenVerifier(policy: issuer.policy, keys: keys))
            let authenticator = CallerAuthenticator(verifier: CallerTokenRouter(idTokens: idTokens))
            let counter = ExecutorSwitchCounter()
            func authenticate(_ token: String) async throws -> (subject: String?, switches: Int) {
                var fields = HTTPFields()
                fields[.authorization] = "Bearer " + token
                let request = ServerRequest(method: .get, path: "/api/whoami", headers: fields)
                let (subject, switches) = try await counter.run { () async throws -> String? in
                    try await authenticator.authenticate(request).caller.subject
                }
                return (subject, switches)
            }
            let cold = try await authenticate(try issuer.idToken())
            #expect(cold.subject == "user-42" && cold.switches > 0, "the keys were fetched: the verification suspended")
            let warm = try await authenticate(try issuer.idToken())
            #expect(warm.subject == "user-42")
            #expect(warm.switches == 0)
        }
    }

    @Test func eachTokenIsVerifiedOnceWhateverTheWay() async throws {
        try await TestIssuer.with { issuer in
            let keys = try RemoteKeySet(url: issuer.jwksURL, httpClient: AsyncHTTPClientTransport.shared)
            let verifier = IDTokenVerifier(policy: issuer.policy, keys: keys)
            let counting = CountingVerifier(inner: IDTokenBearerVerifier(providerID: "oidc.test", verifier: verifier))
            try await Self.application(counting).test(.router) { http in
                // Cold keys, then warm, then a kid the cached set lacks (a refetch): one call each.
                var (status, body) = try await Self.get(http, try issuer.idToken())
                #expect(status == 200 && body == "user-42")
                (status, body) = try await Self.get(http, try issuer.idToken())
                #expect(status == 200 && body == "user-42")
                let rotated = try issuer.addRSAKey(keyID: "rotated")
                (status, body) = try await Self.get(http, try issuer.idToken(key: rotated))
                #expect(status == 200 && body == "user-42")
                (status, body) = try await Self.get(http, try issuer.idToken(header: ["kid": "unknown"]))
                #expect(status == 401 && body.contains("\"unknown_key\""), "\(body)")
                #expect(counting.count == 4)
                #expect(issuer.jwksRequestCount == 2, "one fetch, one refetch for the rotated key")
            }
        }
    }

    @Test func aVerifierOfYourOwnAnswersTheSame() async throws {
        try await TestIssuer.with { issuer in
            let verifier = IDTokenVerifier(policy: issuer.policy, keys: try issuer.localKeySet())
            let idTokens = OwnVerifier(verifier: verifier)
            let counting = CountingVerifier(inner: idTokens)
            try await Self.application(counting).test(.router) { http in
                var (status, body) = try await Self.get(http, try issuer.idToken())
                #expect(status == 200 && body == "user-42")
                (status, body) = try await Self.get(http, try issuer.idToken(claims: ["aud": "someone-else"]))
                #expect(status == 401 && body.contains("\"audience_mismatch\""))
                #expect(counting.count == 2)
            }
            // A verifier of your own runs on the caller's executor too.
            let middleware = BearerAuthenticationMiddleware<FederateContext>(verifier: idTokens)
            let warm = try await Self.authenticate(middleware, try issuer.idToken(), on: ExecutorSwitchCounter())
            #expect(try warm.outcome.get() == "user-42" && warm.switches == 0)
        }
    }

    @Test func anAsyncConfirmationDoesNotVerifyTwice() async throws {
        try await TestIssuer.with { issuer in
            let idTokens = IDTokenBearerVerifier(
                providerID: "oidc.test", verifier: IDTokenVerifier(policy: issuer.policy, keys: try issuer.localKeySet()))
            let counting = CountingVerifier(inner: idTokens)
            let application = Self.application(counting, presentations: [AsyncPresentation()])
            try await application.test(.router) { http in
                var (status, body) = try await Self.get(http, try issuer.idToken())
                #expect(status == 200 && body == "user-42")
                (status, body) = try await Self.get(http, try issuer.idToken(claims: ["sub": "mallory"]))
                #expect(status == 401 && body.contains("\"token_binding_mismatch\""), "\(body)")
                #expect(counting.count == 2, "verified once, confirmed after a suspension: each token verified once")
            }
        }
    }
}
