import Federate
import FederateTestSupport
import Foundation
import Testing
@testable import FederateRelyingParty

/// ``RemoteKeySet`` against a real HTTP server on the loopback interface (``TestIssuer``):
/// rotation, the forced-refetch rate limit, single flight, `Cache-Control`, stale keys.
@Suite("RemoteKeySet")
struct RemoteKeySetTests {
    // MARK: - Key rotation

    /// A token signed with a key published after the first fetch (new `kid`) causes exactly
    /// one refetch, and is accepted.
    @Test func newKeyIDCausesOneRefetchAndIsAccepted() async throws {
        try await TestIssuer.with { issuer in
            let keys = try RemoteKeySet(url: issuer.jwksURL, httpClient: PatientTransport.shared)
            let verifier = IDTokenVerifier(policy: issuer.policy, keys: keys)

            let first = try await verifier.verify(try issuer.idToken())
            #expect(first.keyID == "rsa-1")
            #expect(issuer.jwksRequestCount == 1)

            let newKey = try issuer.addRSAKey(keyID: "rsa-2")
            let rotated = try await verifier.verify(try issuer.idToken(key: newKey))
            #expect(rotated.keyID == "rsa-2")
            #expect(issuer.jwksRequestCount == 2)
            #expect(keys.fetchCount == 2)

            // The refreshed set is now cached: old and new keys verify without another fetch.
            _ = try await verifier.verify(try issuer.idToken(key: newKey))
            _ = try await verifier.verify(try issuer.idToken())
            #expect(issuer.jwksRequestCount == 2)
        }
    }

    /// A rotation that retires the old key and changes the key type: the new ES256 key is
    /// picked up with one refetch; tokens of the retired key then fail without further fetches.
    @Test func rotationToNewKeyTypeRetiresOldKey() async throws {
        try await TestIssuer.with { issuer in
            let keys = try RemoteKeySet(url: issuer.jwksURL, httpClient: PatientTransport.shared)
            let verifier = IDTokenVerifier(policy: issuer.policy, keys: keys)
            let oldToken = try issuer.idToken()
            _ = try await verifier.verify(oldToken)

            let ecKey = JWSSigningKey(p256: .init(), keyID: "ec-1")
            issuer.rotate(to: ecKey)
            let token = try await verifier.verify(try issuer.idToken(key: ecKey))
            #expect(token.algorithm == .es256)
            #expect(token.keyID == "ec-1")
            #expect(issuer.jwksRequestCount == 2)

            let error = await #expect(throws: FederateError.self) { try await verifier.verify(oldToken) }
            #expect(error?.code == .unknownKey)
            #expect(issuer.jwksRequestCount == 2)
        }
    }

    // MARK: - Forced-refetch rate limit

    /// A burst of 50 tokens with random unknown `kid`s, one after another, then the same 50
    /// concurrently: all fail with `unknownKey`, and together they cause one forced refetch
    /// (the default `forcedRefreshInterval` is 30 s).
    @Test func unknownKeyIDBurstCausesAtMostOneForcedRefetch() async throws {
        try await TestIssuer.with { issuer in
            let keys = try RemoteKeySet(url: issuer.jwksURL, httpClient: PatientTransport.shared)
            let verifier = IDTokenVerifier(policy: issuer.policy, keys: keys)
            _ = try await verifier.verify(try issuer.idToken())
            #expect(issuer.jwksRequestCount == 1)

            let tokens = try (0..<50).map { _ in
                try issuer.idToken(header: ["typ": "JWT", "kid": .string("unknown-\(UUID().uuidString)")])
            }
            var sequential: [FederateError.Code?] = []
            for token in tokens {
                sequential.append(await refusalCode { try await verifier.verify(token) })
            }
            #expect(sequential.allSatisfy { $0 == .unknownKey })
            // The initial fetch plus one forced refetch (the first unknown kid may refetch).
            #expect(issuer.jwksRequestCount == 2)

            let concurrent = await withTaskGroup(of: FederateError.Code?.self) { group in
                for token in tokens {
                    group.addTask { await refusalCode { try await verifier.verify(token) } }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(concurrent.count == 50)
            #expect(concurrent.allSatisfy { $0 == .unknownKey })
            #expect(issuer.jwksRequestCount == 2)
            #expect(keys.fetchCount == 2)
        }
    }

    /// The limit is per interval: once `forcedRefreshInterval` has passed, an unknown `kid`
    /// may refetch again (once).
    @Test func forcedRefetchIsAllowedAgainAfterInterval() async throws {
        try await TestIssuer.with { issuer in
            let time = TestClock()
            let policy = CachePolicy(forcedRefreshInterval: .seconds(5))
            let keys = try RemoteKeySet(url: issuer.jwksURL, httpClient: PatientTransport.shared, cachePolicy: policy, clock: time.clock)
            let verifier = IDTokenVerifier(policy: issuer.policy, keys: keys)
            _ = try await verifier.verify(try issuer.idToken())

            let unknown = try issuer.idToken(header: ["kid": "unknown"])
            for _ in 0..<5 {
                #expect(await refusalCode { try await verifier.verify(unknown) } == .unknownKey)
            }
            #expect(issuer.jwksRequestCount == 2)

            time.advance(by: .milliseconds(4900))
            #expect(await refusalCode { try await verifier.verify(unknown) } == .unknownKey)
            #expect(issuer.jwksRequestCount == 2)  // still within the interval
            time.advance(by: .milliseconds(200))
            for _ in 0..<5 {
                #expect(await refusalCode { try await verifier.verify(unknown) } == .unknownKey)
            }
            #expect(issuer.jwksRequestCount == 3)
        }
    }

    // MARK: - Single flight

    /// 1,000 concurrent verifications on a cold cache, with a JWKS response delayed by 200 ms so
    /// they overlap: one fetch, and all succeed.
    @Test func concurrentVerificationsOnColdCacheShareOneFetch() async throws {
        try await TestIssuer.with { issuer in
            let ecKey = issuer.addP256Key(keyID: "ec-1")
            issuer.jwksDelay = .milliseconds(200)
            let keys = try RemoteKeySet(url: issuer.jwksURL, httpClient: PatientTransport.shared)
            let verifier = IDTokenVerifier(policy: issuer.policy, keys: keys)
            let rsaToken = try issuer.idToken()
            let ecToken = try issuer.idToken(key: ecKey)

            let subjects = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<1000 {
                    let token = index.isMultiple(of: 2) ? rsaToken : ecToken
                    group.addTask { try await verifier.verify(token).subject }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(subjects.count == 1000)
            #expect(subjects.allSatisfy { $0 == "user-42" })
            #expect(issuer.jwksRequestCount == 1)
            #expect(keys.fetchCount == 1)
        }
    }

    // MARK: - Cache-Control

    /// `max-age=1` (with no floor) expires the set after a second: the next verification refetches.
    /// The default lifetime is an hour here, so ignoring `max-age` would fail this test.
    @Test func shortMaxAgeCausesRefetchAfterExpiry() async throws {
        try await TestIssuer.with { issuer in
            issuer.jwksCacheControl = "public, max-age=1"
            let time = TestClock()
            let policy = CachePolicy(minimumLifetime: .zero, defaultLifetime: .seconds(3600))
            let verifier = IDTokenVerifier(
                policy: issuer.policy,
                keys: try RemoteKeySet(url: issuer.jwksURL, httpClient: PatientTransport.shared, cachePolicy: policy, clock: time.clock))
            let token = try issuer.idToken()

            _ = try await verifier.verify(token)
            #expect(issuer.jwksRequestCount == 1)
            time.advance(by: .milliseconds(900))
            _ = try await verifier.verify(token)
            #expect(issuer.jwksRequestCount == 1)  // not yet expired

            time.advance(by: .milliseconds(300))
            _ = try await verifier.verify(token)
            #expect(issuer.jwksRequestCount == 2)
        }
    }

    /// `max-age=3600` keeps the set: no refetch 3,500 s later. The default lifetime is 100 ms
    /// here, so ignoring `max-age` would fail this test.
    @Test func longMaxAgeKeepsKeysCached() async throws {
        try await TestIssuer.with { issuer in
            issuer.jwksCacheControl = "public, max-age=3600"
            let time = TestClock()
            let policy = CachePolicy(minimumLifetime: .zero, defaultLifetime: .milliseconds(100))
            let verifier = IDTokenVerifier(
                policy: issuer.policy,
                keys: try RemoteKeySet(url: issuer.jwksURL, httpClient: PatientTransport.shared, cachePolicy: policy, clock: time.clock))
            let token = try issuer.idToken()

            _ = try await verifier.verify(token)
            time.advance(by: .seconds(3500))
            _ = try await verifier.verify(token)
            #expect(issuer.jwksRequestCount == 1)
        }
    }

    /// `max-age` is clamped to `maximumLifetime`.
    @Test func maxAgeIsClampedToMaximumLifetime() async throws {
        try await TestIssuer.with { issuer in
            issuer.jwksCacheControl = "max-age=3600"
            let time = TestClock()
            let policy = CachePolicy(minimumLifetime: .zero, maximumLifetime: .milliseconds(300))
            let verifier = IDTokenVerifier(
                policy: issuer.policy,
                keys: try RemoteKeySet(url: issuer.jwksURL, httpClient: PatientTransport.shared, cachePolicy: policy, clock: time.clock))
            let token = try issuer.idToken()

            _ = try await verifier.verify(token)
            time.advance(by: .milliseconds(301))
            _ = try await verifier.verify(token)
            #expect(issuer.jwksRequestCount == 2)
        }
    }

    // MARK: - Stale keys

    /// Lifetime 1 s, staleness 4 s, on a clock the test moves. After expiry the endpoint answers 500: known keys keep
    /// verifying from the stale copy (and, within `retryDelayAfterFailure`, without asking
    /// again); past the staleness window verification fails with `keyFetchFailed`; once the
    /// endpoint recovers, verification works again.
    @Test func staleKeysServeWhileEndpointFailsUntilMaximumStaleness() async throws {
        try await TestIssuer.with { issuer in
            let policy = CachePolicy(
                minimumLifetime: .zero,
                defaultLifetime: .seconds(1),
                maximumStaleness: .seconds(4),
                retryDelayAfterFailure: .seconds(30)
            )
            let time = TestClock()
            let keys = try RemoteKeySet(url: issuer.jwksURL, httpClient: PatientTransport.shared, cachePolicy: policy, clock: time.clock)
            let verifier = IDTokenVerifier(policy: issuer.policy, keys: keys)
            let token = try issuer.idToken()

            _ = try await verifier.verify(token)  // the copy expires at +1 s, and is stale until +5 s
            #expect(issuer.jwksRequestCount == 1)
            issuer.jwksFails = true

            time.advance(by: .milliseconds(1500))
            let stale = try await verifier.verify(token)
            #expect(stale.keyID == "rsa-1")
            #expect(issuer.jwksRequestCount == 2)  // it did try to refresh, and got a 500

            // Within retryDelayAfterFailure: served stale without another request.
            _ = try await verifier.verify(token)
            #expect(issuer.jwksRequestCount == 2)

            time.advance(by: .milliseconds(3900))  // +5.4 s
            let error = await #expect(throws: FederateError.self) { try await verifier.verify(token) }
            #expect(error?.code == .keyFetchFailed)
            #expect(issuer.jwksRequestCount == 3)

            issuer.jwksFails = false
            _ = try await verifier.verify(token)
            #expect(issuer.jwksRequestCount == 4)
        }
    }

    /// With nothing cached, a failing endpoint means `keyFetchFailed`.
    @Test func coldCacheWithFailingEndpointFails() async throws {
        try await TestIssuer.with { issuer in
            issuer.jwksFails = true
            let verifier = IDTokenVerifier(
                policy: issuer.policy, keys: try RemoteKeySet(url: issuer.jwksURL, httpClient: PatientTransport.shared))
            let error = await #expect(throws: FederateError.self) { try await verifier.verify(try issuer.idToken()) }
            #expect(error?.code == .keyFetchFailed)
            #expect(issuer.jwksRequestCount == 1)
        }
    }

    // MARK: - Endpoint security

    @Test(arguments: [
        "http://example.com/jwks",
        "http://localhost.example.com/jwks",
        "http://127.0.0.1.example.com/jwks",
    ])
    func plainHTTPNonLoopbackURLIsRefused(url: String) throws {
        let error = #expect(throws: FederateError.self) { try RemoteKeySet(url: url, httpClient: PatientTransport.shared) }
        #expect(error?.code == .insecureEndpoint)
    }

    /// A private address that is not on loopback is refused for what it is, over http or https
    /// (the private-network rule, Docs/Security.md), unless the key set's destination allows it.
    @Test(arguments: [
        "http://192.168.1.10:8080/jwks", "https://192.168.1.10/jwks", "https://[fd00::1]/jwks", "https://169.254.169.254/jwks",
    ])
    func privateNonLoopbackURLIsRefused(url: String) throws {
        let error = #expect(throws: FederateError.self) { try RemoteKeySet(url: url, httpClient: PatientTransport.shared) }
        #expect(error?.code == .privateAddressRefused)
        let allowed = DestinationPolicy.publicAddresses(
            except: try PrivateNetworkAllowList(["192.168.0.0/16", "fd00::/8", "169.254.169.254"]))
        if url.hasPrefix("https://") {
            #expect(throws: Never.self) { try RemoteKeySet(url: url, destination: allowed, httpClient: PatientTransport.shared) }
        }
    }

    @Test(arguments: [
        "https://example.com/jwks",
        "http://127.0.0.1:8080/jwks",
        "http://localhost/jwks",
        "http://[::1]:8080/jwks",
    ])
    func httpsAndLoopbackURLsAreAccepted(url: String) throws {
        let keys = try RemoteKeySet(url: url, httpClient: PatientTransport.shared)
        #expect(keys.url == url)
        #expect(keys.fetchCount == 0)
    }
}
