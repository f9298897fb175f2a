import Synchronization

/// The public keys of recent DPoP proofs, by their exact protected header.
///
/// A client signs every proof with one key, so its proofs' headers (`typ`, `alg`, `jwk`) are
/// the same bytes request after request. Importing that key (its point checked on the curve)
/// and hashing its thumbprint cost more than the rest of a proof's checks; this cache does
/// both once per header. The entry is a pure function of the header bytes, so a hit gives
/// exactly what a fresh import would, and a hostile client churning headers costs only the
/// imports it would cost anyway. The key is the header's bytes (``ByteKey``), never a
/// `String`, and a header that is not canonical base64url is refused before any lookup, so a
/// look-alike header never finds its twin's key. Bounded: when full, it starts again empty.
final class DPoPKeyCache: Sendable {
    /// A header's key and its RFC 7638 thumbprint.
    struct Entry: Sendable {
        let key: JSONWebKey
        let thumbprint: String

        var pair: (JSONWebKey, String) { (key, thumbprint) }
    }

    /// The most headers remembered (a few hundred bytes each, with their keys).
    static let capacity = 1024

    private let entries = Mutex<[ByteKey: Entry]>([:])

    /// The entry for `header` (the base64url header segment), imported by `load` when absent.
    func entry(for header: ArraySlice<UInt8>, load: () throws(FederateError) -> Entry) throws(FederateError) -> Entry {
        guard Base64URL.isCanonical(header) else {
            throw FederateError(.malformedToken, "the proof's header is not canonical base64url")
        }
        let header = ByteKey(header)
        if let hit = entries.withLock({ $0[header] }) { return hit }
        let loaded = try load()
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[header] = loaded
        }
        return loaded
    }
}
