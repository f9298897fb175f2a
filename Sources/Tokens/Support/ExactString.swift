#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A string compared and hashed as its exact UTF-8 bytes.
///
/// Swift's `String` equality is Unicode canonical equivalence: `"\u{212A}-client"` (KELVIN
/// SIGN) equals `"K-client"`, and `"a\u{037E}"` (GREEK QUESTION MARK) equals `"a;"`. For
/// identifiers — issuers, audiences, `azp`, `kid`, client IDs, `state`, `nonce`, `sub`,
/// provider IDs, store keys — that is a look-alike accepted as the real thing. Federate
/// compares identifiers through this type (or `String.exactlyEquals(_:)`) only.
package struct ExactString: Sendable, Hashable, CustomStringConvertible {
    /// The string.
    package let value: String

    /// Wraps `value`.
    package init(_ value: String) { self.value = value }

    package static func == (lhs: ExactString, rhs: ExactString) -> Bool { lhs.value.exactlyEquals(rhs.value) }

    package func hash(into hasher: inout Hasher) {
        var copy = value
        copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    package var description: String { value }
}

extension String {
    /// Whether the two strings have exactly the same UTF-8 bytes (not mere canonical
    /// equivalence, which `==` tests).
    package func exactlyEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        var lhs = self, rhs = other
        // Contiguous UTF-8 (native strings already are): a memcmp, not a generic byte loop.
        return lhs.withUTF8 { a in
            rhs.withUTF8 { b in
                guard let left = a.baseAddress, let right = b.baseAddress else { return a.count == b.count }
                return memcmp(left, right, a.count) == 0
            }
        }
    }
}

/// A set of identifiers with exact-byte membership (see `ExactString`).
///
/// Written like a `Set<String>`: `["https://accounts.google.com", "accounts.google.com"]`.
public struct IdentifierSet: Sendable, Hashable, ExpressibleByArrayLiteral, CustomStringConvertible {
    private var members: Set<ExactString>

    /// A set of `identifiers`.
    public init(_ identifiers: some Sequence<String>) {
        members = Set(identifiers.lazy.map(ExactString.init))
    }

    public init(arrayLiteral elements: String...) {
        self.init(elements)
    }

    /// Whether `identifier` is in the set, byte for byte.
    public func contains(_ identifier: String) -> Bool {
        // A verifier's issuers and audiences are one or two: comparing bytes beats hashing them.
        guard members.count > 4 else { return members.contains { $0.value.exactlyEquals(identifier) } }
        return members.contains(ExactString(identifier))
    }

    /// Whether `bytes` are one of the identifiers, byte for byte (a claim read in place).
    func contains(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard members.count > 4 else {
            for member in members where member.value.utf8.count == bytes.count {
                let same = member.value.utf8.withContiguousStorageIfAvailable { stored in
                    guard let left = stored.baseAddress, let right = bytes.baseAddress else { return true }  // both empty
                    return memcmp(left, right, bytes.count) == 0
                }
                if same ?? member.value.utf8.elementsEqual(bytes) { return true }
            }
            return false
        }
        return members.contains(ExactString(String(decoding: bytes, as: UTF8.self)))
    }

    /// Adds `identifier`.
    package mutating func insert(_ identifier: String) {
        members.insert(ExactString(identifier))
    }

    /// Adds every identifier of `other`.
    package mutating func formUnion(_ other: some Sequence<String>) {
        for identifier in other { insert(identifier) }
    }

    /// Whether the set is empty.
    package var isEmpty: Bool { members.isEmpty }

    /// The number of identifiers.
    package var count: Int { members.count }

    /// The identifiers, sorted by their bytes (a stable order for messages and documents).
    package var sorted: [String] { members.map(\.value).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } }

    public var description: String { sorted.description }
}
