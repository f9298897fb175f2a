#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Synchronization

/// The protected headers of the tokens a verifier accepted recently, by the exact bytes of
/// their base64url segment.
///
/// One issuer's tokens share a handful of headers (`alg`, `kid`, `typ`), so decoding and
/// validating the same header for every token is work done again for nothing. A header is a
/// pure function of its segment's bytes, compared byte for byte (never as a `String`, whose
/// equality would let `U+212A` find the entry of `K`), so a hit gives exactly what a fresh
/// parse would; a segment that is not canonical base64url is never looked up (the parse
/// refuses it), so a verdict never depends on which tokens came before. Only headers of
/// tokens whose signature verified are remembered (``remember(_:_:)``), so a client sending
/// made-up headers cannot push the issuer's out. A hit is still checked against the reading
/// verifier's limits: its nesting limit (`JOSEHeader.members`' depth), its size being the
/// token's own. Bounded: the oldest entry makes room for a new one.
final class JOSEHeaderCache: Sendable {
    /// The most headers remembered.
    static let capacity = 16

    private struct Entry {
        let segment: [UInt8]
        let header: JOSEHeader
    }

    private struct State {
        var entries: [Entry] = []
        /// The entry the next new header replaces, once full.
        var next = 0
        var reads = 0
    }

    private let state = Mutex(State())

    /// How many headers were looked up: one per token parsed (for tests).
    var readCount: Int { state.withLock { $0.reads } }

    /// The remembered header of `segment` (the base64url header segment), if any; `nil`
    /// without a lookup when `segment` is not canonical base64url.
    func header(for segment: UnsafeBufferPointer<UInt8>) -> JOSEHeader? {
        guard Base64URL.isCanonical(segment) else { return nil }
        return state.withLock { state in
            state.reads += 1
            return Self.index(of: segment, in: state.entries).map { state.entries[$0].header }
        }
    }

    /// Remembers `header` as the header of `segment`.
    func remember(_ segment: UnsafeBufferPointer<UInt8>, _ header: JOSEHeader) {
        state.withLock { state in
            guard Self.index(of: segment, in: state.entries) == nil else { return }
            let entry = Entry(segment: Array(segment), header: header)
            if state.entries.count < Self.capacity {
                state.entries.append(entry)
            } else {
                state.entries[state.next] = entry
                state.next = (state.next + 1) % Self.capacity
            }
        }
    }

    private static func index(of segment: UnsafeBufferPointer<UInt8>, in entries: [Entry]) -> Int? {
        guard let wanted = segment.baseAddress else { return nil }
        for index in entries.indices where entries[index].segment.count == segment.count {
            let same = entries[index].segment.withUnsafeBufferPointer { stored in
                stored.baseAddress.map { memcmp($0, wanted, segment.count) == 0 } ?? false
            }
            if same { return index }
        }
        return nil
    }
}
