import Federate
import FederateDevProvider
import FederateTestSupport
import Foundation
import InMemoryTracing
import MetricsTestKit
import Testing
import Tracing

/// The metrics and spans a sign-in against the dev provider emits, and those of a refused
/// token, through an injected `TestMetrics` and `InMemoryTracer` (never the process-wide
/// systems: tests run in parallel in one process).
@Suite("Observability: metrics and spans of a sign-in and of a refused token")
struct ObservabilityTests {
    /// Everything the flow emits goes to `metrics` and `tracer`.
    struct Recorder {
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        var observability: Observability { Observability(metrics: metrics, tracer: tracer) }

        func counter(_ label: String, _ dimensions: [(String, String)]) -> Int64 {
            metrics.counterTotal(label: label, dimensions: dimensions)
        }

        func span(_ name: String) throws -> FinishedInMemorySpan {
            try #require(tracer.finishedSpans.first { $0.operationName == name }, "no span \(name)")
        }

        /// Every attribute value of every finished span, as text.
        var attributeValues: [String] {
            tracer.finishedSpans.flatMap { span in
                var values: [String] = []
                span.attributes.forEach { key, value in values.append("\(key)=\(value)") }
                return values
            }
        }
    }

    @Test func aSignInEmitsItsMetricsAndSpansWithoutSecrets() async throws {
        let server = try await DevProvider.start()
        let recorder = Recorder()
        let observability = recorder.observability
        do {
            let http = AsyncHTTPClientTransport.shared
            let metadata = try await DiscoveryClient(httpClient: http).metadata(for: server.issuer)
            let client = try OpenIDClient(
                metadata: metadata, clientID: "dev-client", authentication: .clientSecretBasic(secret: "dev-secret"), httpClient: http,
                observability: observability)
            let accounts = AccountService(store: InMemoryAccountStore(), observability: observability)

            let built = try await client.authorizationRequest(providerID: "oidc.dev", redirectURI: "http://127.0.0.1:9/callback")
            let redirect = try await http.send(HTTPRequest(url: built.url))
            let location = try #require(redirect.header("Location"))
            let callback = try AuthorizationResponse(redirectURL: location)
            let finished = try await client.finish(callback, pending: built.pending)
            let tokens = finished.tokens
            let result = try await accounts.signIn(
                with: Credential(providerID: "oidc.dev", signIn: finished, rawNonce: built.pending.nonce))
            let sessionToken = try #require(result.sessionToken)
            _ = try await accounts.verifySession(sessionToken)

            // Metrics: one accepted ID token, one key-set fetch, one sign-in, one session check.
            #expect(recorder.counter("federate_verifications_total", [("kind", "id_token"), ("outcome", "ok")]) == 1)
            #expect(try recorder.metrics.expectTimer("federate_verification_duration_seconds", [("kind", "id_token")]).values.count == 1)
            #expect(recorder.counter("federate_key_set_fetches_total", [("url", metadata.jwksURI), ("outcome", "ok")]) == 1)
            #expect(
                recorder.counter(
                    "federate_account_operations_total", [("operation", "sign_in"), ("provider", "oidc.dev"), ("outcome", "ok")]) == 1)
            #expect(
                try recorder.metrics.expectTimer("federate_account_operation_duration_seconds", [("operation", "sign_in")]).values.count
                    == 1)
            #expect(recorder.counter("federate_verifications_total", [("kind", "session"), ("outcome", "ok")]) == 1)

            // Spans: the flow's steps, nested where they run inside one another.
            let start = try recorder.span("federate.authorization.start")
            #expect(start.attributes["federate.provider"]?.toSpanAttribute() == .string("oidc.dev"))
            let callbackSpan = try recorder.span("federate.callback")
            let exchange = try recorder.span("federate.token_exchange")
            let verification = try recorder.span("federate.id_token.verify")
            #expect(exchange.parentSpanID == callbackSpan.spanID)
            #expect(verification.parentSpanID == callbackSpan.spanID)
            #expect(exchange.attributes["federate.grant_type"]?.toSpanAttribute() == .string("authorization_code"))
            #expect(verification.attributes["federate.outcome"]?.toSpanAttribute() == .string("ok"))
            let signIn = try recorder.span("federate.account.sign_in")
            #expect(signIn.attributes["federate.provider"]?.toSpanAttribute() == .string("oidc.dev"))
            for name in ["federate.store.record_sign_in_or_create_user", "federate.store.session_keys"] {
                #expect(try recorder.span(name).parentSpanID == signIn.spanID, "\(name)")
            }
            #expect(try recorder.span("federate.session.verify").status == nil)

            // No secret in any attribute: tokens, code, nonce, state, the client secret, the email.
            let code = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "code" }?.value)
            let secrets =
                [
                    tokens.accessToken, try #require(tokens.idToken), code, built.pending.nonce, built.pending.state,
                    built.pending.codeVerifier,
                    "dev-secret", "alice@example.com", sessionToken, result.user.uid,
                ] + (tokens.refreshToken.map { [$0] } ?? [])
            let values = recorder.attributeValues
            #expect(!values.isEmpty)
            for secret in secrets {
                #expect(!values.contains { $0.contains(secret) }, "an attribute holds a secret")
            }
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }

    @Test func aRefusedTokenIsCountedByItsCodeAndItsSpanFails() async throws {
        let server = try await DevProvider.start()
        let recorder = Recorder()
        let clock = TestClock()
        do {
            let http = AsyncHTTPClientTransport.shared
            let metadata = try await DiscoveryClient(httpClient: http).metadata(for: server.issuer)
            let client = try OpenIDClient(
                metadata: metadata, clientID: "dev-client", authentication: .clientSecretBasic(secret: "dev-secret"), httpClient: http,
                clock: clock.clock, observability: recorder.observability)
            let built = try await client.authorizationRequest(providerID: "oidc.dev", redirectURI: "http://127.0.0.1:9/callback")
            let redirect = try await http.send(HTTPRequest(url: built.url))
            let tokens = try await client.finish(
                try AuthorizationResponse(redirectURL: try #require(redirect.header("Location"))), pending: built.pending
            ).tokens
            let idToken = try #require(tokens.idToken)

            // A day later the same token is expired; a mangled one is malformed.
            clock.advance(by: .seconds(86_400))
            await #expect(throws: FederateError.self) { try await client.idTokenVerifier.verify(idToken) }
            await #expect(throws: FederateError.self) { try await client.idTokenVerifier.verify("not.a.token") }

            #expect(recorder.counter("federate_verifications_total", [("kind", "id_token"), ("outcome", "ok")]) == 1)
            #expect(recorder.counter("federate_verifications_total", [("kind", "id_token"), ("outcome", "token_expired")]) == 1)
            #expect(recorder.counter("federate_verifications_total", [("kind", "id_token"), ("outcome", "malformed_token")]) == 1)
            #expect(try recorder.metrics.expectTimer("federate_verification_duration_seconds", [("kind", "id_token")]).values.count == 3)
            let refused = recorder.tracer.finishedSpans.filter {
                $0.operationName == "federate.id_token.verify" && $0.status?.code == .error
            }
            #expect(refused.count == 2)
            let outcomes = refused.compactMap { $0.attributes["federate.outcome"]?.toSpanAttribute() }
            #expect(outcomes.contains(.string("token_expired")))
            #expect(!recorder.attributeValues.contains { $0.contains(idToken) })
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }

    @Test func anAccountRefusalIsCountedByProviderAndCode() async throws {
        let recorder = Recorder()
        let accounts = AccountService(store: InMemoryAccountStore(), observability: recorder.observability)
        await #expect(throws: FederateError.self) {
            try await accounts.signIn(with: Credential(providerID: "oidc.dev", subject: ""))
        }
        await #expect(throws: FederateError.self) { try await accounts.verifySession("not.a.session") }
        #expect(
            recorder.counter(
                "federate_account_operations_total",
                [("operation", "sign_in"), ("provider", "oidc.dev"), ("outcome", "invalid_credential")]) == 1)
        #expect(recorder.counter("federate_verifications_total", [("kind", "session"), ("outcome", "malformed_token")]) == 1)
        #expect(try recorder.span("federate.account.sign_in").status?.code == .error)
    }
}
