/// Reads `Authorization: Bearer TOKEN` (the scheme is case-insensitive, RFC 6750 §2.1).
enum BearerToken {
    /// The token of an `Authorization` header value, or `nil` when it is not a bearer token.
    static func from(_ header: String?) -> String? {
        guard let header, header.count > 7, header.prefix(7).lowercased() == "bearer " else { return nil }
        return String(header.dropFirst(7))
    }
}
