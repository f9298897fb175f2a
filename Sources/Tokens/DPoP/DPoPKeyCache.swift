#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Synchronization

/// The public keys of recent DPoP proofs, by the exact bytes of their protected header.
///
/// A client signs every proof with one key, so its proofs' headers (`typ`, `alg`, `jwk`) are
/// the same bytes request after request. Importing that key (its point checked on the curve)
/// and hashing its thumbprint cost more than the rest of a proof's checks; this cache does
/// both once per header. The entry is a pure function of the header bytes, compared byte for
/// byte (never as a `String`, whose equality is canonical equivalence), and a header that is
/// not canonical base64url is refused before any lookup, so a look-alike header never finds
/// its twin's key and a hit gives exactly what a fresh import would; a hostile client
/// churning headers costs only the imports it would cost anyway. Bounded: when full, it
/// starts again empty.
final class DPoPKeyCache: Sendable {
    /// A header's key and its RFC 7638 thumbprint.
    struct Entry: Sendable {
        let key: JSONWebKey
        let thumbprint: String

        var pair: (JSONWebKey, String) { (key, thumbprint) }
    }

    /// The most headers remembered (a few hundred bytes each, with their keys).
    static let capacity = 1024

    private struct Stored {
        let header: [UInt8]
        let entry: Entry
    }

    private struct State {
        /// The entries by a hash of their header's bytes; a hit is confirmed byte for byte.
        var buckets: [Int: [Stored]] = [:]
        var count = 0
    }

    private let state = Mutex(State())

    /// The entry for `header` (the base64url header segment), imported by `load` when absent.
    func entry(for header: UnsafeBufferPointer<UInt8>, load: () throws(FederateError) -> Entry) throws(FederateError) -> Entry {
        guard Base64URL.isCanonical(header) else {
            throw FederateError(.malformedToken, "the proof's header is not canonical base64url")
        }
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(header))
        let hash = hasher.finalize()
        let hit = state.withLock { state in state.buckets[hash]?.first { Self.same($0.header, header) }?.entry }
        if let hit { return hit }
        let loaded = try load()
        state.withLock { state in
            if state.count >= Self.capacity {
                state.buckets.removeAll(keepingCapacity: true)
                state.count = 0
            }
            guard state.buckets[hash]?.contains(where: { Self.same($0.header, header) }) != true else { return }
            state.buckets[hash, default: []].append(Stored(header: Array(header), entry: loaded))
            state.count += 1
        }
        return loaded
    }

    private static func same(_ stored: [UInt8], _ header: UnsafeBufferPointer<UInt8>) -> Bool {
        guard stored.count == header.count else { return false }
        return stored.withUnsafeBufferPointer { stored in
            guard let left = stored.baseAddress, let right = header.baseAddress else { return true }
            return memcmp(left, right, header.count) == 0
        }
    }
}
