import Synchronization

/// The protected headers a verifier decoded recently, by their exact base64url segment.
///
/// One issuer's tokens share a handful of headers (`alg`, `kid`, `typ`), so decoding and
/// parsing the same header for every token is work done again for nothing. The entry is a
/// pure function of the segment's bytes under one verifier's limits, so a hit gives exactly
/// what a fresh parse would. The key is the segment's bytes (``ByteKey``), never a `String`
/// (whose equality would let `U+212A` find the entry of `K`), and a segment that is not
/// canonical base64url is refused before any lookup: a verdict never depends on which
/// tokens came before. A header that fails to parse is never stored, and a parse under
/// other limits than the first one the cache saw (a verifier copy whose limits changed)
/// bypasses it, so a header is never served under looser limits than it was parsed with.
/// Bounded: when
/// full, it starts again empty, so a client sending ever-new headers costs only the parses
/// it would cost anyway.
final class JOSEHeaderCache: Sendable {
    /// The most headers remembered.
    static let capacity = 64

    private struct State {
        var limits: JWSLimits?
        var entries: [ByteKey: JOSEHeader] = [:]
    }

    private let state = Mutex(State())

    /// The header of `segment` (the base64url header segment) under `limits`, parsed by
    /// `parse` when absent.
    func header(
        for segment: UnsafeBufferPointer<UInt8>, limits: JWSLimits, parse: () throws(FederateError) -> JOSEHeader
    ) throws(FederateError) -> JOSEHeader {
        guard Base64URL.isCanonical(segment) else {
            throw FederateError(.malformedToken, "the header is not canonical base64url")
        }
        let key = ByteKey(segment)
        let (hit, usable) = state.withLock { state -> (JOSEHeader?, Bool) in
            if state.limits == nil { state.limits = limits }
            guard state.limits == limits else { return (nil, false) }
            return (state.entries[key], true)
        }
        if let hit { return hit }
        let parsed = try parse()
        guard usable else { return parsed }
        state.withLock { state in
            if state.entries.count >= Self.capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[key] = parsed
        }
        return parsed
    }
}
