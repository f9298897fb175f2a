import CoreMetrics
import Synchronization

/// The tokens one verifier accepted recently, by their exact bytes (``TokenKey``: the SHA-256
/// of the signature, the signing input kept and compared), each with the key set its signature
/// was checked with; sized and switched by a ``VerifiedTokenCacheConfiguration``.
///
/// Segmented LRU: a new token enters the probationary segment; presented again while there, it
/// moves to the protected segment (at most four fifths of the entries), whose least recently
/// used entry goes back to probation when it is full. Room is made by evicting the least
/// recently used probationary entry first, so a flood of tokens each presented once only ever
/// evicts its own kind, and the tokens in repeated use stay.
///
/// What it returns is only a candidate: the verifier checks that the key set is still the one
/// remembered and runs its claim rules again at the current time (`JWTVerifier`). Only
/// accepted tokens are ever inserted. One lock, held for a dictionary lookup and a few index
/// writes.
final class VerifiedTokenCache: Sendable {
    /// A remembered verdict.
    struct Entry: Sendable {
        /// The verified token.
        let token: VerifiedJWT
        /// The identity of the key set its signature verified with (`JSONWebKeySet.identity`).
        let keySet: UInt64
    }

    /// What the cache counted since it was made (for tests; `/metrics` has the same counts).
    struct Statistics: Sendable, Equatable {
        var hits = 0
        var misses = 0
        var evictions = 0
        var entries = 0
        var protectedEntries = 0
        var bytes = 0
    }

    let configuration: VerifiedTokenCacheConfiguration
    private let metrics: VerifiedTokenCacheMetrics?
    private let state: Mutex<Segments>
    private let hits = Atomic<Int>(0)
    private let misses = Atomic<Int>(0)

    /// A cache sized by `configuration` (which must be enabled), counting into `metrics`.
    init(configuration: VerifiedTokenCacheConfiguration, metrics: VerifiedTokenCacheMetrics?) {
        self.configuration = configuration
        self.metrics = metrics
        self.state = Mutex(Segments(configuration: configuration))
    }

    /// Whether a token of `length` bytes may be remembered (a longer one is not even looked up).
    func admits(length: Int) -> Bool { length <= configuration.maximumTokenBytes }

    /// What an entry of a token `length` bytes long counts against
    /// ``VerifiedTokenCacheConfiguration/maximumBytes``: its signing input (kept), its parsed
    /// header and claims (never longer than the token), and the entry's own bookkeeping.
    /// How many of `entries` the protected part holds: four fifths, rounded down, computed so
    /// that no configured count overflows (`Int.max` entries).
    static func protectedCapacity(entries: Int) -> Int { entries / 5 * 4 + entries % 5 * 4 / 5 }

    static func cost(length: Int) -> Int { 2 * length + VerifiedTokenCacheConfiguration.entryOverheadBytes }

    /// The entry of exactly `token` (whose key is `key`), if any, marked as used (promoted to
    /// the protected segment when it was on probation). The caller counts the outcome
    /// (``countHit()``, ``countMiss()``) once it has checked the entry's key set.
    func entry(for token: String, key: TokenKey) -> Entry? {
        key.withSigningInput(of: token) { input in state.withLock { $0.lookUp(key.digest, input) } }
    }

    /// Counts a token answered from the cache.
    func countHit() {
        hits.add(1, ordering: .relaxed)
        metrics?.hits.increment()
    }

    /// Counts a token verified in full.
    func countMiss() {
        misses.add(1, ordering: .relaxed)
        metrics?.misses.increment()
    }

    /// Remembers `entry` for `token` (whose key is `key`).
    func insert(_ entry: Entry, for token: String, key: TokenKey) {
        let input = key.withSigningInput(of: token) { Array($0) }
        let cost = Self.cost(length: token.utf8.count)
        let evicted = state.withLock { $0.insert(entry, for: key.digest, signingInput: input, cost: cost) }
        if evicted > 0 { metrics?.evictions.increment(by: Int64(evicted)) }
    }

    /// Forgets `token`: a cached token the rules now refuse (expired), or whose key set changed.
    func remove(_ token: String, key: TokenKey) {
        key.withSigningInput(of: token) { input in state.withLock { $0.remove(key.digest, input) } }
    }

    /// The counts so far.
    var statistics: Statistics {
        var statistics = state.withLock { $0.statistics }
        statistics.hits = hits.load(ordering: .relaxed)
        statistics.misses = misses.load(ordering: .relaxed)
        return statistics
    }
}

/// The two segments, as doubly linked lists threaded through one array of nodes.
private struct Segments {
    struct Node {
        var digest: TokenDigest
        /// The token's signing input, compared byte for byte on every lookup.
        var signingInput: [UInt8]
        var entry: VerifiedTokenCache.Entry?
        var cost: Int
        var protected: Bool
        var previous: Int
        var next: Int
    }

    /// A list's two ends (`-1`: empty); `head` is the most recently used.
    struct List {
        var head = -1
        var tail = -1
        var count = 0
    }

    let maximumEntries: Int
    let maximumBytes: Int
    let protectedCapacity: Int
    var index: [TokenDigest: Int] = [:]
    var nodes: [Node] = []
    var free: [Int] = []
    var probation = List()
    var protected = List()
    /// What the entries cost together (``VerifiedTokenCache/cost(length:)``).
    var bytes = 0
    /// How many entries were evicted so far.
    var evictions = 0

    /// The counts of the segments (hits and misses are the cache's own).
    var statistics: VerifiedTokenCache.Statistics {
        VerifiedTokenCache.Statistics(
            evictions: evictions, entries: probation.count + protected.count, protectedEntries: protected.count, bytes: bytes)
    }
    /// The digests of the tokens evicted from probation most recently (as many as entries).
    var ghosts: GhostDigests

    init(configuration: VerifiedTokenCacheConfiguration) {
        maximumEntries = configuration.maximumEntries
        maximumBytes = configuration.maximumBytes
        protectedCapacity = VerifiedTokenCache.protectedCapacity(entries: configuration.maximumEntries)
        ghosts = GhostDigests(capacity: configuration.maximumEntries)
    }

    /// The node of the token with this signature digest and exactly this signing input.
    private func slot(_ digest: TokenDigest, _ signingInput: UnsafeRawBufferPointer) -> Int? {
        guard let slot = index[digest], TokenKey.equal(nodes[slot].signingInput, signingInput) else { return nil }
        return slot
    }

    mutating func lookUp(_ digest: TokenDigest, _ signingInput: UnsafeRawBufferPointer) -> VerifiedTokenCache.Entry? {
        guard let slot = slot(digest, signingInput), let entry = nodes[slot].entry else { return nil }
        if nodes[slot].protected {
            moveToFront(slot, protected: true)
        } else if protectedCapacity > 0 {
            unlink(slot)
            pushFront(slot, protected: true)
            demoteIfOver()
        } else {
            moveToFront(slot, protected: false)
        }
        return entry
    }

    /// Inserts or replaces; returns how many entries were evicted to make room.
    mutating func insert(_ entry: VerifiedTokenCache.Entry, for digest: TokenDigest, signingInput: [UInt8], cost: Int) -> Int {
        guard cost <= maximumBytes else { return 0 }
        if let slot = index[digest] {
            // Another accepted token with the same signature segment over other bytes (it does
            // not happen with sound keys, but costs nothing to handle): the older entry gives up
            // its place to the token just verified.
            guard nodes[slot].signingInput == signingInput else {
                index.removeValue(forKey: digest)
                release(slot)
                return insert(entry, for: digest, signingInput: signingInput, cost: cost)
            }
            bytes += cost - nodes[slot].cost
            nodes[slot].entry = entry
            nodes[slot].cost = cost
            return evictWhileOver()
        }
        let node = Node(
            digest: digest, signingInput: signingInput, entry: entry, cost: cost, protected: false, previous: -1, next: -1)
        let slot: Int
        if let reused = free.popLast() {
            nodes[reused] = node
            slot = reused
        } else {
            nodes.append(node)
            slot = nodes.count - 1
        }
        index[digest] = slot
        bytes += cost
        // A token evicted from probation before its second use, now back: it is in repeated use
        // after all (its reuse was further apart than probation is long), so it goes to the
        // protected segment at once.
        if protectedCapacity > 0, ghosts.remove(digest) {
            pushFront(slot, protected: true)
            demoteIfOver()
        } else {
            pushFront(slot, protected: false)
        }
        return evictWhileOver()
    }

    /// When the protected segment is over its size, its least recently used entry gets another
    /// chance in probation.
    private mutating func demoteIfOver() {
        guard protected.count > protectedCapacity else { return }
        let demoted = protected.tail
        unlink(demoted)
        pushFront(demoted, protected: false)
    }

    mutating func remove(_ digest: TokenDigest, _ signingInput: UnsafeRawBufferPointer) {
        guard let slot = slot(digest, signingInput) else { return }
        index.removeValue(forKey: digest)
        release(slot)
    }

    private mutating func evictWhileOver() -> Int {
        var evicted = 0
        while probation.count + protected.count > maximumEntries || bytes > maximumBytes {
            let victim = probation.tail >= 0 ? probation.tail : protected.tail
            guard victim >= 0 else { break }
            if !nodes[victim].protected { ghosts.insert(nodes[victim].digest) }
            index.removeValue(forKey: nodes[victim].digest)
            release(victim)
            evicted += 1
        }
        evictions += evicted
        return evicted
    }

    private mutating func release(_ slot: Int) {
        unlink(slot)
        nodes[slot].protected = false
        bytes -= nodes[slot].cost
        nodes[slot].entry = nil
        nodes[slot].signingInput = []
        nodes[slot].cost = 0
        free.append(slot)
    }

    private mutating func moveToFront(_ slot: Int, protected inProtected: Bool) {
        if inProtected {
            guard protected.head != slot else { return }
            Self.unlink(slot, &nodes, &protected)
            Self.pushFront(slot, &nodes, &protected)
        } else {
            guard probation.head != slot else { return }
            Self.unlink(slot, &nodes, &probation)
            Self.pushFront(slot, &nodes, &probation)
        }
    }

    private mutating func pushFront(_ slot: Int, protected inProtected: Bool) {
        nodes[slot].protected = inProtected
        if inProtected { Self.pushFront(slot, &nodes, &protected) } else { Self.pushFront(slot, &nodes, &probation) }
    }

    private mutating func unlink(_ slot: Int) {
        if nodes[slot].protected { Self.unlink(slot, &nodes, &protected) } else { Self.unlink(slot, &nodes, &probation) }
    }

    private static func pushFront(_ slot: Int, _ nodes: inout [Node], _ list: inout List) {
        nodes[slot].previous = -1
        nodes[slot].next = list.head
        if list.head >= 0 { nodes[list.head].previous = slot } else { list.tail = slot }
        list.head = slot
        list.count += 1
    }

    private static func unlink(_ slot: Int, _ nodes: inout [Node], _ list: inout List) {
        let previous = nodes[slot].previous
        let next = nodes[slot].next
        if previous >= 0 { nodes[previous].next = next } else { list.head = next }
        if next >= 0 { nodes[next].previous = previous } else { list.tail = previous }
        nodes[slot].previous = -1
        nodes[slot].next = -1
        list.count -= 1
    }
}

/// The digests of recently evicted tokens, the oldest forgotten first: 2Q's "A1out" list, which
/// lets a token whose uses are further apart than probation is long still reach the protected
/// segment on its next use. Digests only, no verdicts: a ghost is never a hit.
struct GhostDigests {
    private var ring: [TokenDigest] = []
    private var next = 0
    private var members: Set<TokenDigest> = []
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Remembers `digest`, forgetting the oldest when full.
    mutating func insert(_ digest: TokenDigest) {
        guard capacity > 0, members.insert(digest).inserted else { return }
        if ring.count < capacity {
            ring.append(digest)
        } else {
            members.remove(ring[next])
            ring[next] = digest
            next = (next + 1) % capacity
        }
    }

    /// Forgets `digest`; whether it was remembered. (Its place in the ring is reused in turn.)
    mutating func remove(_ digest: TokenDigest) -> Bool {
        members.remove(digest) != nil
    }
}
