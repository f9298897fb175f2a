/// A strict, bounded JSON parser (RFC 8259) for untrusted input.
///
/// Compared with `JSONSerialization`/`JSONDecoder` it:
/// - rejects duplicate object member names (RFC 7515 §5.2 allows a JWS parser to; a
///   security library should), compared decoded (`"a"` and `"\u0061"` are one name) and, for
///   names beyond ASCII, as Unicode canonical equivalents;
/// - enforces a nesting limit and a size limit before and while parsing;
/// - rejects invalid UTF-8, unpaired surrogate escapes, control characters in strings,
///   leading zeros, trailing content and non-finite numbers.
///
/// These are the rules of the one validation pass every JSON text Federate reads goes
/// through; a token's header and payload are validated the same way but never built into
/// values unless asked for (``JSONMembers``).
package struct JSONParser: Sendable {
    /// Limits applied while parsing.
    public struct Limits: Sendable, Hashable {
        /// The largest accepted input, in bytes.
        package var maxBytes: Int
        /// The deepest accepted nesting of arrays and objects (the top level counts as 1).
        package var maxDepth: Int

        /// Creates limits.
        package init(maxBytes: Int, maxDepth: Int) {
            self.maxBytes = maxBytes
            self.maxDepth = maxDepth
        }

        /// Defaults for documents fetched over HTTP: 1 MiB, depth 32.
        public static let document = Limits(maxBytes: 1 << 20, maxDepth: 32)
    }

    /// The limits in force.
    package var limits: Limits

    /// Creates a parser with the given limits.
    package init(limits: Limits = .document) {
        self.limits = limits
    }

    /// Parses a complete JSON text. Throws ``JSONParser/Error``.
    package func parse(_ bytes: some Collection<UInt8>) throws(JSONParser.Error) -> JSONValue {
        guard bytes.count <= limits.maxBytes else { throw .tooLarge }
        let attempt: Result<JSONValue, JSONParser.Error>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONParser.Error) in try parse(buffer: buffer) }
        }
        if let attempt { return try attempt.get() }
        return try Array(bytes).withUnsafeBufferPointer { (buffer) throws(JSONParser.Error) in try parse(buffer: buffer) }
    }

    /// Parses a JSON text that must be an object, returning its members.
    package func parseObject(_ bytes: some Collection<UInt8>) throws(JSONParser.Error) -> [String: JSONValue] {
        guard case .object(let members) = try parse(bytes) else { throw .notAnObject }
        return members
    }

    private func parse(buffer: UnsafeBufferPointer<UInt8>) throws(JSONParser.Error) -> JSONValue {
        _ = try JSONValidator.validate(buffer, limits: limits)
        guard let base = buffer.baseAddress else { throw .syntax(offset: 0) }
        var position = 0
        return JSONText(base: base, count: buffer.count).value(at: &position)
    }
}

extension JSONParser {
    /// Why a JSON text was refused.
    package enum Error: Swift.Error, Sendable, Hashable {
        /// Larger than `Limits.maxBytes`.
        case tooLarge
        /// Nested deeper than `Limits.maxDepth`.
        case tooDeep
        /// A syntax error at this byte offset.
        case syntax(offset: Int)
        /// An object has the same member name twice.
        case duplicateKey(String)
        /// Not valid UTF-8, or an escape that does not form a valid scalar.
        case invalidUnicode(offset: Int)
        /// The top-level value is not an object where one was required.
        case notAnObject
    }
}
