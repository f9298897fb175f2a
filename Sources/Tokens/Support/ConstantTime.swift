/// Constant-time comparisons for secrets (state, nonce, MACs).
package enum ConstantTime {
    /// Compares two byte sequences in time that depends only on their lengths.
    package static func equals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }

    /// Compares the UTF-8 bytes of two strings in time that depends only on their lengths.
    package static func equals(_ a: String, _ b: String) -> Bool {
        equals(Array(a.utf8), Array(b.utf8))
    }
}
