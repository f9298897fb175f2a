import Foundation
import FederateTestSupport
import Testing
import Federate
@testable import FederateTokens

/// Each token is parsed once by its verifier on every path (warm keys, cold keys, a refetch for
/// an unknown `kid`), a routed token is checked by its verifier's own rules, and a verification
/// with the keys at hand never leaves its caller's executor.
@Suite struct OneParseTests {
    static let clock = FederateClock.fixed(at: Date(timeIntervalSince1970: Fixtures.now))

    /// How many headers `verifier` looked up: one per token it parsed.
    static func parses(_ verifier: IDTokenVerifier) -> Int { verifier.plain.headers.readCount }

    @Test func warmKeysNeverLeaveTheCallersExecutor() async throws {
        let counter = ExecutorSwitchCounter()
        let verifier = IDTokenVerifier(policy: Fixtures.policy(), keys: Fixtures.keySet)
        let token = Fixtures.token()
        let accepted = try await counter.run { try await verifier.verify(token).subject }
        #expect(accepted.value == "user-1" && accepted.switches == 0)
        let expired = Fixtures.token(["exp": .integer(Int64(Fixtures.now) - 3600)])
        let refused = try await counter.run { () async -> FederateError.Code? in
            do throws(FederateError) {
                _ = try await verifier.verify(expired)
                return nil
            } catch {
                return error.code
            }
        }
        #expect(refused.value == .tokenExpired && refused.switches == 0)

        let bearer = IDTokenBearerVerifier(providerID: "oidc.test", verifier: verifier)
        let router = CallerTokenRouter(idTokens: bearer, accessTokens: AccessTokenTests.verifier)
        let caller = try await counter.run { try await router.verify(token).subject }
        #expect(caller.value == "user-1" && caller.switches == 0)
        let accessToken = AccessTokenTests.sign()
        let client = try await counter.run { try await router.verify(accessToken).clientID }
        #expect(client.value == "s6BhdRkqt3" && client.switches == 0)
    }

    @Test func coldKeysAndARefetchParseTheTokenOnce() async throws {
        try await TestIssuer.with { issuer in
            let keys = try RemoteKeySet(url: issuer.jwksURL, httpClient: AsyncHTTPClientTransport.shared)
            let verifier = IDTokenVerifier(policy: issuer.policy, keys: keys)
            // Cold keys: fetched while the one parse waits.
            _ = try await verifier.verify(try issuer.idToken())
            #expect(Self.parses(verifier) == 1 && issuer.jwksRequestCount == 1)
            // A key the cached set lacks: refetched, the same parse checked again.
            let rotated = try issuer.addRSAKey(keyID: "rotated")
            #expect(try await verifier.verify(try issuer.idToken(key: rotated)).keyID == "rotated")
            #expect(Self.parses(verifier) == 2 && issuer.jwksRequestCount == 2)
            // A kid no set has: refused once the refetch is refused, still one parse.
            await #expect(throws: FederateError.self) { try await verifier.verify(try issuer.idToken(header: ["kid": "unknown"])) }
            #expect(Self.parses(verifier) == 3)
        }
    }

    @Test func aRoutedTokenIsCheckedByItsVerifiersOwnRules() async throws {
        // Without the verified-token cache, which would answer the same token's later checks.
        let verifier = IDTokenVerifier(policy: Fixtures.policy(), keys: Fixtures.keySet, cache: .disabled)
        let router = CallerTokenRouter(idTokens: IDTokenBearerVerifier(providerID: "oidc.test", verifier: verifier))
        for _ in 0..<3 { _ = try await router.verify(Fixtures.token()) }
        #expect(router.headers.readCount == 3, "the router read each header")
        #expect(Self.parses(verifier) == 3, "the verifier parsed each token itself")
        // A header the rules refuse is refused by the verifier, with its own code.
        let critical = try Fixtures.rsa.sign(
            claims: Fixtures.claims(), algorithm: .rs256, header: ["typ": "JWT", "crit": ["exp"], "exp": 1])
        let refused = await #expect(throws: FederateError.self) { try await router.verify(critical) }
        #expect(refused?.code == .unsupportedCriticalHeader)
        // The verifier's own limits still hold for a routed token.
        var strict = Fixtures.policy()
        strict.limits = JWSLimits(maxTokenBytes: 200)
        let strictRouter = CallerTokenRouter(
            idTokens: IDTokenBearerVerifier(providerID: "oidc.test", verifier: IDTokenVerifier(policy: strict, keys: Fixtures.keySet)))
        let tooLarge = await #expect(throws: FederateError.self) { try await strictRouter.verify(Fixtures.token()) }
        #expect(tooLarge?.code == .tokenTooLarge)
    }
}
