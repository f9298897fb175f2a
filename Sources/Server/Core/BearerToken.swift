/// Reads `Authorization: Bearer TOKEN` (the scheme is case-insensitive, RFC 6750 §2.1).
enum BearerToken {
    /// The token of an `Authorization` header value, or `nil` when it is not a bearer token.
    ///
    /// Works on the UTF-8 bytes: no character count over the whole header (a grapheme walk of
    /// a kilobyte-long token on every request) and no lowercased copy of the scheme.
    static func from(_ header: String?) -> String? {
        guard let header else { return nil }
        let utf8 = header.utf8
        let scheme = "bearer ".utf8
        guard utf8.count > scheme.count else { return nil }
        var index = utf8.startIndex
        for expected in scheme {
            let byte = utf8[index]
            // ASCII letters compare case-insensitively (only 'B'/'b' fold to 'b'); the space exactly.
            let folded = expected == UInt8(ascii: " ") ? byte : byte | 0x20
            guard folded == expected else { return nil }
            index = utf8.index(after: index)
        }
        // The scheme is ASCII, so `index` starts a scalar: a valid String index.
        return String(header[index...])
    }
}
