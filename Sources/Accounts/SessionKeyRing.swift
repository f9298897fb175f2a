import FederateTokens
import Crypto
import Foundation
import Synchronization

/// The session-signing keys of one ``AccountService``: read from the store, cached, rotated.
/// As a `KeySetProvider` it gives the keys session tokens verify with.
final class SessionKeyRing: KeySetProvider {
    struct Keys: Sendable {
        let signing: JWSSigningKey
        let signingCreatedAt: Date
        let verification: JSONWebKeySet
        let fetchedAt: Date
        /// Each key's AES-256 key for merge tickets (`MergeTickets`), by `kid`, derived
        /// from the private key with HKDF-SHA256: every instance on the store derives the same.
        let ticketKeys: [ExactString: SymmetricKey]
    }

    private let store: any SessionKeyStore
    private let configuration: AccountServiceConfiguration
    private let clock: FederateClock
    private let cache = Mutex<Keys?>(nil)
    /// When a token's unknown `kid` last made the ring reread the store.
    private let lastForcedReread = Mutex<Date?>(nil)

    init(store: any SessionKeyStore, configuration: AccountServiceConfiguration, clock: FederateClock) {
        self.store = store
        self.configuration = configuration
        self.clock = clock
    }

    /// The key to sign with at `now`; creates (rotates) one when the newest is too old.
    func signingKey(now: Date) async throws(FederateError) -> JWSSigningKey {
        if let keys = cache.withLock({ $0 }), isFresh(keys, now: now), !needsRotation(keys.signingCreatedAt, now: now) {
            return keys.signing
        }
        var keys = try await load(now: now)
        if keys == nil || keys.map({ needsRotation($0.signingCreatedAt, now: now) }) == true {
            try await rotate(now: now)
            keys = try await load(now: now)
        }
        guard let keys else { throw FederateError(.accountStoreFailed, "the store kept no session-signing key") }
        return keys.signing
    }

    /// The verification keys: the cache while fresh (at once, on the caller's executor), else
    /// reread from the store.
    nonisolated(nonsending) func keySet() async throws(FederateError) -> JSONWebKeySet {
        let now = clock.now
        if let verification = cachedKeySet(now: now) { return verification }
        return try await load(now: now)?.verification ?? .empty
    }

    /// The cached verification keys while they are fresh at `now`, else `nil`.
    func cachedKeySet(now: Date) -> JSONWebKeySet? {
        cache.withLock { keys in keys.flatMap { isFresh($0, now: now) ? $0.verification : nil } }
    }

    /// A token names a key the cache lacks: another instance rotated, or the `kid` is made
    /// up. Rereads the store at most once per `forcedRereadInterval`, so tokens with made-up
    /// key IDs cannot turn every session check into a store read; in between, a set that a
    /// concurrent reread brought is used, else `nil` (the token fails with `unknown_key`).
    nonisolated(nonsending) func refreshedKeySet(after stale: JSONWebKeySet) async throws(FederateError) -> JSONWebKeySet? {
        let now = clock.now
        let mayReread = lastForcedReread.withLock { last in
            if let last, now >= last, now.timeIntervalSince(last) < Self.forcedRereadInterval { return false }
            last = now
            return true
        }
        guard mayReread else { return cachedKeySet(now: now).flatMap { $0.identity == stale.identity ? nil : $0 } }
        return try await load(now: now)?.verification
    }

    /// At most one reread of the store per this many seconds for a token whose key the cache lacks.
    static let forcedRereadInterval: TimeInterval = 1

    /// Adds a new signing key now and removes keys no token can need any more.
    func rotate(now: Date) async throws(FederateError) {
        let key = P256.Signing.PrivateKey()
        // The newest key signs: make sure the new one is strictly newer than any before it.
        let newest = try await store.sessionKeys().map(\.createdAt).max()
        let createdAt = newest.map { max(now, $0.addingTimeInterval(0.001)) } ?? now
        let record = SessionKeyRecord(
            keyID: SecureRandom.token(byteCount: 12), privateKey: Array(key.rawRepresentation), createdAt: createdAt)
        try await store.addSessionKey(record)
        let records = try await store.sessionKeys().sorted { $0.createdAt < $1.createdAt }
        // A key retired when its successor appeared; its tokens expire a lifetime later.
        let grace = configuration.sessionLifetime + configuration.keyCacheDuration + configuration.clockTolerance
        for (old, successor) in zip(records, records.dropFirst()) where successor.createdAt.adding(grace) < now {
            try await store.removeSessionKey(keyID: old.keyID)
        }
        cache.withLock { $0 = nil }
    }

    /// The key that seals merge tickets now, and its `kid`.
    func ticketSealingKey(now: Date) async throws(FederateError) -> (keyID: String, key: SymmetricKey) {
        let signing = try await signingKey(now: now)
        guard let keyID = signing.keyID, let key = try await ticketKey(keyID: keyID, now: now) else {
            throw FederateError(.accountStoreFailed, "the session-signing key has no ticket key")
        }
        return (keyID, key)
    }

    /// The merge-ticket key derived from session key `keyID`, rereading the store when the
    /// cache lacks it (another instance rotated); `nil` when no key has that `kid`.
    func ticketKey(keyID: String, now: Date) async throws(FederateError) -> SymmetricKey? {
        if let key = cache.withLock({ $0?.ticketKeys[ExactString(keyID)] }) { return key }
        return try await load(now: now)?.ticketKeys[ExactString(keyID)]
    }

    /// The merge-ticket key of a session key: HKDF-SHA256 of its private scalar.
    static func ticketKey(privateKey: [UInt8]) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: privateKey), salt: Array("federate".utf8), info: Array("federate merge ticket v1".utf8),
            outputByteCount: 32)
    }

    private func load(now: Date) async throws(FederateError) -> Keys? {
        let records = try await store.sessionKeys().sorted { $0.createdAt < $1.createdAt }
        guard let newest = records.last else {
            cache.withLock { $0 = nil }
            return nil
        }
        var jwks: [JSONWebKey] = []
        var signing: JWSSigningKey?
        var ticketKeys: [ExactString: SymmetricKey] = [:]
        for record in records {
            guard let privateKey = try? P256.Signing.PrivateKey(rawRepresentation: record.privateKey) else { continue }
            ticketKeys[ExactString(record.keyID)] = Self.ticketKey(privateKey: record.privateKey)
            let key = JWSSigningKey(p256: privateKey, keyID: record.keyID)
            if let jwk = key.publicJWK(algorithm: .es256), let parsed = try? JSONWebKey(jwk: jwk) { jwks.append(parsed) }
            if record.keyID == newest.keyID { signing = key }
        }
        guard let signing else { throw FederateError(.accountStoreFailed, "the newest session-signing key is unreadable") }
        let keys = Keys(
            signing: signing, signingCreatedAt: newest.createdAt, verification: try JSONWebKeySet(keys: jwks), fetchedAt: now,
            ticketKeys: ticketKeys)
        cache.withLock { $0 = keys }
        return keys
    }

    private func isFresh(_ keys: Keys, now: Date) -> Bool {
        now >= keys.fetchedAt && now.timeIntervalSince(keys.fetchedAt) < configuration.keyCacheDuration.inSeconds
    }

    private func needsRotation(_ createdAt: Date, now: Date) -> Bool {
        now.timeIntervalSince(createdAt) >= configuration.keyRotationInterval.inSeconds
    }
}
