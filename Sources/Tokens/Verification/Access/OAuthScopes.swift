/// A set of OAuth scopes: what an access token allows (RFC 6749 §3.3), in the order the
/// token listed them, without duplicates.
///
/// Scopes from a token or an introspection response are read with `init(parsing:)`, which
/// accepts only RFC 6749's grammar: scope tokens of printable ASCII other than `"` and `\`,
/// separated by single spaces. A tab, a newline, a doubled or trailing space, a non-ASCII
/// letter (a look-alike `ｒead`, a combining accent) or more than `maximumCount` scopes
/// refuse the whole string, so no two parsers can read one scope string differently.
/// Scopes compare byte for byte, case-sensitively.
///
/// A route's required scopes are written as a literal: `["orders:read", "orders:write"]`.
public struct OAuthScopes: Sendable, Equatable, Sequence, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// The most scopes a token may carry (a larger list is refused, not truncated).
    package static let maximumCount = 256

    /// The scopes, in order, each once.
    public let values: [String]

    /// No scope.
    package static let none = OAuthScopes(trusted: [])

    /// Scopes written by the application (a route's requirement), taken as they are.
    public init(arrayLiteral scopes: String...) {
        self.init(trusted: scopes)
    }

    /// Scopes written by the application, taken as they are.
    public init(_ scopes: some Sequence<String>) {
        self.init(trusted: Array(scopes))
    }

    /// A token carries a handful of scopes and a route requires fewer, so a linear scan
    /// beats building a hash set per token.
    private init(trusted scopes: [String]) {
        var unique: [String] = []
        unique.reserveCapacity(scopes.count)
        for scope in scopes where !unique.contains(scope) { unique.append(scope) }
        values = unique
    }

    /// Parses a `scope` value from a token or an introspection response: the empty string is
    /// no scope; anything outside RFC 6749 §3.3's grammar is ``FederateError/Code/invalidClaim``.
    package init(parsing text: String) throws(FederateError) {
        let count = try Self.validate(text)
        let split = { (bytes: UnsafeBufferPointer<UInt8>) -> [String] in
            var scopes: [String] = []
            scopes.reserveCapacity(count)
            var start = 0
            // Valid: scope tokens separated by single spaces, so every space ends one.
            for index in bytes.indices where bytes[index] == 0x20 {
                scopes.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
                start = index + 1
            }
            if start < bytes.count { scopes.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self)) }
            return scopes
        }
        self.init(trusted: text.utf8.withContiguousStorageIfAvailable(split) ?? Array(text.utf8).withUnsafeBufferPointer(split))
    }

    /// Checks that `text` is in RFC 6749 §3.3's grammar with at most `maximumCount` scopes,
    /// without building them (the access-token rule checks; ``AccessToken`` builds once), and
    /// returns how many scope tokens it lists (0 for the empty string).
    package static func validate(_ text: String) throws(FederateError) -> Int {
        try count(text.utf8.withContiguousStorageIfAvailable(Shape.init) ?? Shape(Array(text.utf8)))
    }

    /// The number of scope tokens `shape` found, or the error for the grammar it broke.
    static func count(_ shape: Shape) throws(FederateError) -> Int {
        switch shape {
        case .valid(let count):
            return count
        case .emptyScopeToken:
            throw FederateError(.invalidClaim, "'scope' has an empty scope token (a leading, trailing or doubled space)")
        case .characterOutsideGrammar:
            throw FederateError(
                .invalidClaim, "'scope' holds a character outside RFC 6749 §3.3 (printable ASCII but '\"' and '\\', single spaces between)")
        case .tooMany:
            throw FederateError(.invalidClaim, "'scope' lists more than \(maximumCount) scopes")
        }
    }

    /// What one pass over a `scope` string's bytes found.
    enum Shape {
        case valid(Int)
        case emptyScopeToken
        case characterOutsideGrammar
        case tooMany

        init(_ bytes: some Collection<UInt8>) {
            var count = 0
            var previousWasSpace = true
            for byte in bytes {
                if byte == 0x20 {
                    guard !previousWasSpace else {
                        self = .emptyScopeToken
                        return
                    }
                    previousWasSpace = true
                } else {
                    guard OAuthScopes.isScopeCharacter(byte) else {
                        self = .characterOutsideGrammar
                        return
                    }
                    if previousWasSpace { count += 1 }
                    previousWasSpace = false
                }
            }
            if previousWasSpace && count > 0 {
                self = .emptyScopeToken
            } else {
                self = count > OAuthScopes.maximumCount ? .tooMany : .valid(count)
            }
        }
    }

    /// `%x21 / %x23-5B / %x5D-7E` (RFC 6749 §3.3 scope-token).
    private static func isScopeCharacter(_ byte: UInt8) -> Bool {
        byte >= 0x21 && byte <= 0x7E && byte != 0x22 && byte != 0x5C
    }

    /// Whether `scope` is one of these, byte for byte.
    public func contains(_ scope: String) -> Bool { values.contains(scope) }

    /// Whether every scope of `required` is here.
    func isSuperset(of required: OAuthScopes) -> Bool { required.values.allSatisfy(values.contains) }

    /// The scopes of `required` missing here, in its order.
    package func missing(from required: OAuthScopes) -> [String] { required.values.filter { !values.contains($0) } }

    /// Whether there is no scope.
    package var isEmpty: Bool { values.isEmpty }

    public func makeIterator() -> IndexingIterator<[String]> { values.makeIterator() }

    /// The space-delimited form, as `scope` carries it.
    public var description: String { values.joined(separator: " ") }

    /// Equal when they hold the same scopes, in any order.
    public static func == (lhs: Self, rhs: Self) -> Bool { Set(lhs.values) == Set(rhs.values) }
}
