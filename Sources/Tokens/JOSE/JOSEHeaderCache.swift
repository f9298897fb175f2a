import Synchronization

/// The protected headers a verifier decoded recently, by their exact base64url segment.
///
/// One issuer's tokens share a handful of headers (`alg`, `kid`, `typ`), so decoding and
/// parsing the same header for every token is work done again for nothing. The entry is a
/// pure function of the segment's bytes under one verifier's limits, so a hit gives exactly
/// what a fresh parse would; a header that fails to parse is never stored. Bounded: when
/// full, it starts again empty, so a client sending ever-new headers costs only the parses
/// it would cost anyway.
final class JOSEHeaderCache: Sendable {
    /// The most headers remembered.
    static let capacity = 64

    private let entries = Mutex<[String: JOSEHeader]>([:])

    /// The header of `segment` (the base64url header segment), parsed by `parse` when absent.
    func header(
        for segment: UnsafeBufferPointer<UInt8>, parse: () throws(FederateError) -> JOSEHeader
    ) throws(FederateError) -> JOSEHeader {
        // A String key: it hashes its bytes in bulk, where an array of bytes hashes one at a time.
        let key = String(decoding: segment, as: UTF8.self)
        if let hit = entries.withLock({ $0[key] }) { return hit }
        let parsed = try parse()
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = parsed
        }
        return parsed
    }
}
