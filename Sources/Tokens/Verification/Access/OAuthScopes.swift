/// A set of OAuth scopes: what an access token allows (RFC 6749 §3.3), in the order the
/// token listed them, without duplicates.
///
/// Scopes from a token or an introspection response are read with ``init(parsing:)``, which
/// accepts only RFC 6749's grammar: scope tokens of printable ASCII other than `"` and `\`,
/// separated by single spaces. A tab, a newline, a doubled or trailing space, a non-ASCII
/// letter (a look-alike `ｒead`, a combining accent) or more than ``maximumCount`` scopes
/// refuse the whole string, so no two parsers can read one scope string differently.
/// Scopes compare byte for byte, case-sensitively.
///
/// A route's required scopes are written as a literal: `["orders:read", "orders:write"]`.
public struct OAuthScopes: Sendable, Hashable, Sequence, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// The most scopes a token may carry (a larger list is refused, not truncated).
    public static let maximumCount = 256

    /// The scopes, in order, each once.
    public let values: [String]
    private let members: Set<String>

    /// No scope.
    public static let none = OAuthScopes(trusted: [])

    /// Scopes written by the application (a route's requirement), taken as they are.
    public init(arrayLiteral scopes: String...) {
        self.init(trusted: scopes)
    }

    /// Scopes written by the application, taken as they are.
    public init(_ scopes: some Sequence<String>) {
        self.init(trusted: Array(scopes))
    }

    private init(trusted scopes: [String]) {
        var seen = Set<String>()
        values = scopes.filter { seen.insert($0).inserted }
        members = seen
    }

    /// Parses a `scope` value from a token or an introspection response: the empty string is
    /// no scope; anything outside RFC 6749 §3.3's grammar is ``FederateError/Code/invalidClaim``.
    public init(parsing text: String) throws(FederateError) {
        guard !text.isEmpty else {
            self.init(trusted: [])
            return
        }
        var scopes: [String] = []
        // At most maximumCount + 1 pieces: a longer list leaves spaces in its last piece, refused below.
        for piece in text.utf8.split(separator: 0x20, maxSplits: Self.maximumCount, omittingEmptySubsequences: false) {
            guard !piece.isEmpty else {
                throw FederateError(.invalidClaim, "'scope' has an empty scope token (a leading, trailing or doubled space)")
            }
            guard scopes.count < Self.maximumCount else {
                throw FederateError(.invalidClaim, "'scope' lists more than \(Self.maximumCount) scopes")
            }
            guard piece.allSatisfy(Self.isScopeCharacter) else {
                throw FederateError(
                    .invalidClaim, "'scope' holds a character outside RFC 6749 §3.3 (printable ASCII but '\"' and '\\', single spaces between)")
            }
            scopes.append(String(Substring(piece)))
        }
        self.init(trusted: scopes)
    }

    /// `%x21 / %x23-5B / %x5D-7E` (RFC 6749 §3.3 scope-token).
    private static func isScopeCharacter(_ byte: UInt8) -> Bool {
        byte == 0x21 || (0x23...0x5B).contains(byte) || (0x5D...0x7E).contains(byte)
    }

    /// Whether `scope` is one of these, byte for byte.
    public func contains(_ scope: String) -> Bool { members.contains(scope) }

    /// Whether every scope of `required` is here.
    public func isSuperset(of required: OAuthScopes) -> Bool { required.values.allSatisfy(members.contains) }

    /// The scopes of `required` missing here, in its order.
    public func missing(from required: OAuthScopes) -> [String] { required.values.filter { !members.contains($0) } }

    /// Whether there is no scope.
    public var isEmpty: Bool { values.isEmpty }

    public func makeIterator() -> IndexingIterator<[String]> { values.makeIterator() }

    /// The space-delimited form, as `scope` carries it.
    public var description: String { values.joined(separator: " ") }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.members == rhs.members }

    public func hash(into hasher: inout Hasher) { hasher.combine(members) }
}
