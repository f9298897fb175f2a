import Federate
@testable import FederateDevProvider
import FederateOIDC
import FederateTestSupport
import Foundation
import Testing

extension AccountsTests {
    /// Provider tokens kept by the account layer: sealed at rest, refreshed once however many
    /// callers and instances ask, a refresh token reused never, `invalid_grant` remembered,
    /// revoked and erased with their identity, re-encrypted under a new key — on every store,
    /// against the dev provider rotating refresh tokens and revoking a whole family on reuse.
    @Suite("Accounts: kept provider tokens (every store)")
    struct ProviderTokenTests {
        static let keys = try! SealingKeyRing([.init(id: "k1", base64: Data(repeating: 1, count: 32).base64EncodedString())])

        /// The dev provider on the test's clock (access tokens for two minutes; refresh tokens
        /// rotate; a reused one revokes its family), and an `OIDCProvider` for it.
        struct Dev {
            let server: DevProvider
            let provider: OIDCProvider

            static func start(clock: TestClock) async throws -> Dev {
                var configuration = DevProviderConfiguration.standard
                configuration.clock = clock.clock
                configuration.tokenLifetime = .seconds(120)
                configuration.clients = [
                    DevClient(
                        id: "dev-client", secret: "dev-secret", redirectURIs: DevProviderConfiguration.loopbackRedirects,
                        faults: [.revokeFamilyOnReuse])
                ]
                let server = try await DevProvider.start(configuration: configuration)
                let provider = try OIDCProvider(
                    id: "oidc.dev", issuer: server.issuer, clientID: "dev-client", clientSecret: "dev-secret",
                    cache: ProviderCache(httpClient: PatientTransport.shared, clock: clock.clock))
                return Dev(server: server, provider: provider)
            }

            /// A real code flow as `user`: the credential with the provider's tokens.
            func credential(_ user: String = "alice") async throws -> Credential {
                let client = try await provider.client()
                let built = try await client.authorizationRequest(
                    providerID: "oidc.dev", redirectURI: "http://127.0.0.1:9/callback", loginHint: user)
                let redirect = try await PatientTransport.shared.send(HTTPRequest(url: built.url))
                let callback = try AuthorizationResponse(redirectURL: try #require(redirect.header("Location")))
                return Credential(
                    providerID: "oidc.dev", signIn: try await client.finish(callback, pending: built.pending), rawNonce: built.pending.nonce
                )
            }

            /// Whether the provider's UserInfo accepts `accessToken` now.
            func accepts(_ accessToken: String) async throws -> Bool {
                let response = try await PatientTransport.shared.send(
                    HTTPRequest(
                        url: server.baseURL + "/userinfo", headers: [("Authorization", "Bearer " + accessToken)]))
                return response.status == 200
            }
        }

        static func withDev<T>(_ body: (Dev, TestClock) async throws -> T) async throws -> T {
            let clock = TestClock()
            let dev = try await Dev.start(clock: clock)
            do {
                let result = try await body(dev, clock)
                try await dev.server.stop()
                return result
            } catch {
                try? await dev.server.stop()
                throw error
            }
        }

        static func service(
            _ store: any AccountStorage, _ dev: Dev, clock: TestClock, keys: SealingKeyRing = keys
        ) throws -> AccountService {
            AccountService(store: store, clock: clock.clock, providerTokens: try ProviderTokenVault(keys: keys, providers: [dev.provider]))
        }

        @Test(arguments: StoreKind.allCases)
        func keptTokensAreSealedAndRefreshedOncePerExpiryAcrossInstances(kind: StoreKind) async throws {
            try await Self.withDev { dev, clock in
                try await kind.withStorePair { one, two in
                    let first = try Self.service(one, dev, clock: clock), second = try Self.service(two, dev, clock: clock)
                    let credential = try await dev.credential()
                    let signedIn = try await first.signIn(with: credential)
                    let uid = signedIn.user.uid
                    // Sealed: no token in the store's clear columns, none in the sealed bytes.
                    let record = try #require(try await one.keptTokens(uid: uid, providerID: "oidc.dev"))
                    let sealedText = String(decoding: record.sealed, as: UTF8.self)
                    for token in [credential.tokens.accessToken, credential.tokens.refreshToken].compactMap({ $0 }) {
                        #expect(!sealedText.contains(token))
                    }
                    #expect(try await one.user(uid: uid)?.identity(providerID: "oidc.dev")?.plaintextTokens.isEmpty == true)
                    #expect(record.version == 1 && record.keyID == "k1" && record.accessTokenExpiresAt != nil)

                    // Fresh: returned from the store, nothing sent to the provider.
                    #expect(try await second.accessToken(for: uid, providerID: "oidc.dev") == credential.tokens.accessToken)
                    #expect(dev.server.refreshStatistics.requests == 0)

                    // Three expiries; each time 40 callers spread over both instances at once.
                    var previous = try #require(credential.tokens.accessToken)
                    for expiry in 1...3 {
                        clock.advance(by: .seconds(70))
                        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                            for caller in 0..<40 {
                                let accounts = caller.isMultiple(of: 2) ? first : second
                                group.addTask { try await accounts.accessToken(for: uid, providerID: "oidc.dev") }
                            }
                            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
                        }
                        #expect(tokens.count == 1, "every caller got the one new token: \(tokens.count)")
                        let fresh = try #require(tokens.first)
                        #expect(fresh != previous)
                        #expect(try await dev.accepts(fresh))
                        let statistics = dev.server.refreshStatistics
                        #expect(statistics.requests == expiry && statistics.refreshes == expiry, "\(statistics)")
                        #expect(statistics.reusedRefreshTokens == 0 && statistics.familiesRevoked == 0)
                        #expect(try await two.keptTokens(uid: uid, providerID: "oidc.dev")?.version == Int64(expiry + 1))
                        previous = fresh
                    }
                }
            }
        }

        /// A refresh whose new ID token names another subject than the linked identity's
        /// (OpenID Connect Core §12.2) gives no access token: the tokens are not this
        /// identity's, and only a sign-in helps.
        @Test(arguments: StoreKind.allCases)
        func aRefreshForAnotherSubjectAsksForASignIn(kind: StoreKind) async throws {
            try await Self.withDev { dev, clock in
                try await kind.withStore { store in
                    let accounts = try Self.service(store, dev, clock: clock)
                    // alice's tokens, kept for an identity that names someone else.
                    let alice = try await dev.credential()
                    let someoneElse = Credential(providerID: "oidc.dev", subject: "someone-else", tokens: alice.tokens)
                    let uid = try await accounts.signIn(with: someoneElse).user.uid
                    #expect(try await accounts.accessToken(for: uid, providerID: "oidc.dev") == alice.tokens.accessToken)
                    clock.advance(by: .seconds(70))
                    let error = await expectError(.providerSignInRequired) {
                        try await accounts.accessToken(for: uid, providerID: "oidc.dev")
                    }
                    #expect((error?.cause as? FederateError)?.code == .refreshedIDTokenMismatch, "\(String(describing: error))")
                    #expect(dev.server.refreshStatistics.requests == 1)
                    #expect(try await store.keptTokens(uid: uid, providerID: "oidc.dev")?.needsSignIn == true)

                    // The provider's own subject, alice's, refreshes.
                    let aliceUID = try await accounts.signIn(with: try await dev.credential()).user.uid
                    clock.advance(by: .seconds(70))
                    #expect(try await dev.accepts(try await accounts.accessToken(for: aliceUID, providerID: "oidc.dev")))
                }
            }
        }

        @Test(arguments: StoreKind.allCases)
        func invalidGrantAsksForASignInAndNothingMore(kind: StoreKind) async throws {
            try await Self.withDev { dev, clock in
                try await kind.withStore { store in
                    let accounts = try Self.service(store, dev, clock: clock)
                    let credential = try await dev.credential()
                    let uid = try await accounts.signIn(with: credential).user.uid
                    // The provider forgets the grant (a user revoked the app there).
                    try await dev.provider.revoke(credential.tokens)
                    clock.advance(by: .seconds(70))
                    await expectError(.providerSignInRequired) { try await accounts.accessToken(for: uid, providerID: "oidc.dev") }
                    #expect(dev.server.refreshStatistics.requests == 1)
                    #expect(try await store.keptTokens(uid: uid, providerID: "oidc.dev")?.needsSignIn == true)
                    await expectError(.providerSignInRequired) { try await accounts.accessToken(for: uid, providerID: "oidc.dev") }
                    #expect(dev.server.refreshStatistics.requests == 1, "a dead refresh token is not tried again")
                    // Signing in again gives new tokens, and they work.
                    let again = try await dev.credential()
                    _ = try await accounts.signIn(with: again)
                    #expect(try await accounts.accessToken(for: uid, providerID: "oidc.dev") == again.tokens.accessToken)
                    // Errors for what is not there.
                    let other = try await accounts.signIn(with: TestCredential.make("google.com", "no-dev")).user.uid
                    await expectError(.noSuchProvider) { try await accounts.accessToken(for: other, providerID: "oidc.dev") }
                    await expectError(.invalidConfiguration) { try await accounts.accessToken(for: uid, providerID: "google.com") }
                    await expectError(.userNotFound) { try await accounts.accessToken(for: "nobody", providerID: "oidc.dev") }
                    let plain = AccountService(store: store, clock: clock.clock)
                    await expectError(.invalidConfiguration) { try await plain.accessToken(for: uid, providerID: "oidc.dev") }
                }
            }
        }

        @Test(arguments: StoreKind.allCases)
        func unlinkAndDeletionRevokeAndEraseKeptTokens(kind: StoreKind) async throws {
            try await Self.withDev { dev, clock in
                try await kind.withStore { store in
                    let accounts = try Self.service(store, dev, clock: clock)
                    let credential = try await dev.credential()
                    let signedIn = try await accounts.signIn(with: credential)
                    let uid = signedIn.user.uid
                    _ = try await accounts.link(uid, with: TestCredential.make("google.com", "alice-g"))
                    let session = try #require(signedIn.session)
                    try await accounts.unlink(session, providerID: "oidc.dev")
                    #expect(try await store.keptTokens(uid: uid, providerID: "oidc.dev") == nil)
                    #expect(
                        try await dev.accepts(try #require(credential.tokens.accessToken)) == false, "revoked at the provider (RFC 7009)")
                    await expectError(.invalidGrant) {
                        try await dev.provider.client().refresh(try #require(credential.tokens.refreshToken))
                    }

                    // Linked again, then the account deleted: the same.
                    let relinked = try await dev.credential()
                    _ = try await accounts.link(uid, with: relinked)
                    #expect(try await store.keptTokens(uid: uid, providerID: "oidc.dev") != nil)
                    let revocable = try await accounts.deleteUser(uid: uid)
                    #expect(revocable.map(\.providerID) == ["google.com"], "kept tokens are revoked here, not handed back")
                    #expect(try await dev.accepts(try #require(relinked.tokens.accessToken)) == false)
                    #expect(try await store.keptTokens(notSealedWith: "none", limit: 100).isEmpty)
                }
            }
        }

        @Test(arguments: StoreKind.allCases)
        func keysRotateAndTokensAreReencrypted(kind: StoreKind) async throws {
            try await Self.withDev { dev, clock in
                try await kind.withStore { store in
                    let old = try Self.service(store, dev, clock: clock)
                    var uids: [String] = []
                    for user in ["alice", "bob"] { uids.append(try await old.signIn(with: try await dev.credential(user)).user.uid) }
                    let k2 = try SealingKeyRing.Key(id: "k2", base64: Data(repeating: 2, count: 32).base64EncodedString())
                    let rotated = try Self.service(store, dev, clock: clock, keys: try SealingKeyRing([k2] + Self.keys.keys))
                    #expect(try await rotated.reencryptProviderTokens(batchSize: 1) == 1)
                    #expect(try await rotated.reencryptProviderTokens() == 1)
                    #expect(try await rotated.reencryptProviderTokens() == 0)
                    let newOnly = try Self.service(store, dev, clock: clock, keys: try SealingKeyRing([k2]))
                    for uid in uids { _ = try await newOnly.accessToken(for: uid, providerID: "oidc.dev") }
                    #expect(
                        try await store.keptTokens(uid: uids[0], providerID: "oidc.dev")?.version == 1, "re-encryption keeps the version")
                    await expectError(.invalidConfiguration) { try await old.accessToken(for: uids[0], providerID: "oidc.dev") }
                    // A sealed value moved onto another identity's row does not open.
                    let alice = try #require(try await store.keptTokens(uid: uids[0], providerID: "oidc.dev"))
                    let bob = try #require(try await store.keptTokens(uid: uids[1], providerID: "oidc.dev"))
                    var swapped = bob
                    swapped.sealed = alice.sealed
                    #expect(try await store.replaceKeptTokens(swapped, expectedVersion: bob.version))
                    await expectError(.accountStoreFailed) { try await newOnly.accessToken(for: uids[1], providerID: "oidc.dev") }
                }
            }
        }

        /// The store's compare-and-swap, on two instances: one lease at a time, the outcome
        /// written only by its holder, a dead record never leased.
        @Test(arguments: StoreKind.allCases)
        func oneLeaseAtATimeOnTwoInstances(kind: StoreKind) async throws {
            try await kind.withStorePair { one, two in
                let now = Date(timeIntervalSince1970: 1_800_000_000)
                let credential = TestCredential.make("oidc.dev", "leased")
                try await one.createUser(
                    User(
                        uid: "leaser", email: nil, emailVerified: false, displayName: nil, photoURL: nil, createdAt: now, lastSignInAt: now,
                        identities: [ProviderIdentity(credential: credential, linkedAt: now)]))
                // The store never opens a record: any bytes do here.
                let sealed = SealedProviderTokens(
                    providerID: "oidc.dev", subject: "leased", keyID: "k1", sealed: [1, 2, 3], accessTokenExpiresAt: now, version: 0,
                    updatedAt: now)
                #expect(try await one.replaceKeptTokens(sealed, expectedVersion: nil))
                #expect(try await two.replaceKeptTokens(sealed, expectedVersion: nil) == false, "one row per identity")
                for round in 0..<6 {
                    let version = Int64(round + 1)
                    let claims = await withTaskGroup(of: String?.self) { group in
                        for caller in 0..<16 {
                            group.addTask {
                                let lease = RefreshLease(id: "lease-\(round)-\(caller)", until: now.addingTimeInterval(30))
                                let store = caller.isMultiple(of: 2) ? one : two
                                return
                                    (try? await store.claimTokenRefresh(
                                        providerID: "oidc.dev", subject: "leased", version: version, lease: lease, now: now)) == true
                                    ? lease.id : nil
                            }
                        }
                        return await group.reduce(into: [String]()) { if let id = $1 { $0.append(id) } }
                    }
                    #expect(claims.count == 1, "\(claims)")
                    var next = sealed
                    next.version = version
                    #expect(try await two.finishTokenRefresh(next, leaseID: "someone-else") == false)
                    #expect(try await one.finishTokenRefresh(next, leaseID: try #require(claims.first)))
                    #expect(try await two.finishTokenRefresh(next, leaseID: try #require(claims.first)) == false, "written once")
                }
                // A lease that ended may be taken over; a release with needsSignIn ends all leasing.
                let record = try #require(try await one.keptTokens(uid: "leaser", providerID: "oidc.dev"))
                #expect(
                    try await one.claimTokenRefresh(
                        providerID: "oidc.dev", subject: "leased", version: record.version,
                        lease: RefreshLease(id: "crashed", until: now.addingTimeInterval(30)), now: now))
                #expect(
                    try await two.claimTokenRefresh(
                        providerID: "oidc.dev", subject: "leased", version: record.version,
                        lease: RefreshLease(id: "early", until: now.addingTimeInterval(60)), now: now.addingTimeInterval(10)) == false)
                #expect(
                    try await two.claimTokenRefresh(
                        providerID: "oidc.dev", subject: "leased", version: record.version,
                        lease: RefreshLease(id: "taker", until: now.addingTimeInterval(90)), now: now.addingTimeInterval(31)))
                try await two.releaseTokenRefresh(providerID: "oidc.dev", subject: "leased", leaseID: "crashed", needsSignIn: true)
                #expect(try await one.keptTokens(uid: "leaser", providerID: "oidc.dev")?.needsSignIn == false, "not the holder: nothing")
                try await two.releaseTokenRefresh(providerID: "oidc.dev", subject: "leased", leaseID: "taker", needsSignIn: true)
                let dead = try #require(try await one.keptTokens(uid: "leaser", providerID: "oidc.dev"))
                #expect(dead.needsSignIn && dead.lease == nil)
                #expect(
                    try await one.claimTokenRefresh(
                        providerID: "oidc.dev", subject: "leased", version: dead.version,
                        lease: RefreshLease(id: "after", until: now.addingTimeInterval(200)), now: now.addingTimeInterval(100)) == false)
                // Unlinking erases the record with the identity, and hands it back.
                _ = try await one.addIdentity(
                    ProviderIdentity(credential: TestCredential.make("google.com", "other"), linkedAt: now), toUser: "leaser")
                let erased = try await two.removeIdentity(providerID: "oidc.dev", fromUser: "leaser")
                #expect(erased?.subject == "leased")
                #expect(try await one.keptTokens(uid: "leaser", providerID: "oidc.dev") == nil)
            }
        }
    }
}
