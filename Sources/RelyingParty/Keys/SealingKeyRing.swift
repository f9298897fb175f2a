public import Crypto
public import FederateTokens
package import Foundation

/// The AES-256-GCM keys that Federate seals values with: pending authorizations and the
/// server's other cookies (``PendingAuthorizationSealer``), and provider tokens at rest
/// (`ProviderTokenVault`). One type, one set of rules for every sealed value.
///
/// The first key seals; every key opens, so keys rotate without a pause: put the new key
/// first, keep the old ones until what they sealed is gone or re-sealed, then remove them.
///
/// ```swift
/// // FEDERATE_SEALING_KEYS="k2:<base64>,k1:<base64>" (openssl rand -base64 32 makes a key)
/// let keys = try SealingKeyRing(parsing: environment["FEDERATE_SEALING_KEYS"] ?? "")
/// ```
public struct SealingKeyRing: Sendable {
    /// One 256-bit key and its identifier.
    public struct Key: Sendable {
        /// A short identifier stored beside each value it sealed (1-32 of `A-Z a-z 0-9 _ -`).
        package let id: String
        let key: SymmetricKey

        /// A 256-bit key. Throws `invalid_configuration` for another size or a bad identifier.
        public init(id: String, key: SymmetricKey) throws(FederateError) {
            guard key.bitCount == 256 else { throw FederateError(.invalidConfiguration, "a sealing key must be 256 bits") }
            guard (1...32).contains(id.utf8.count), id.utf8.allSatisfy(Self.isIdentifierByte) else {
                throw FederateError(.invalidConfiguration, "a sealing key id is 1-32 characters of [A-Za-z0-9_-]")
            }
            self.id = id
            self.key = key
        }

        /// A 256-bit key from its standard base64 text (32 bytes, 44 characters), as kept in a
        /// secret store and loaded on every instance: `openssl rand -base64 32` makes one.
        /// Throws `invalid_configuration` for anything else.
        public init(id: String, base64: String) throws(FederateError) {
            guard let bytes = Data(base64Encoded: base64), bytes.count == 32 else {
                throw FederateError(.invalidConfiguration, "a sealing key is 32 bytes in standard base64 (openssl rand -base64 32)")
            }
            try self.init(id: id, key: SymmetricKey(data: bytes))
        }

        /// A new random 256-bit key. What it seals opens only in this process: fine for one
        /// instance in development; several instances, or restarts, load one key with
        /// ``init(id:base64:)``.
        public static func generate(id: String) throws(FederateError) -> Key {
            try Key(id: id, key: SymmetricKey(size: .bits256))
        }

        static func isIdentifierByte(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
                || (0x61...0x7A).contains(byte)
        }
    }

    /// The keys; the first seals.
    package let keys: [Key]

    /// A ring of `keys`, the first sealing. Throws `invalid_configuration` when it is empty or
    /// two keys share an identifier.
    public init(_ keys: [Key]) throws(FederateError) {
        guard !keys.isEmpty else { throw FederateError(.invalidConfiguration, "at least one sealing key is required") }
        guard Set(keys.map { ExactString($0.id) }).count == keys.count else {
            throw FederateError(.invalidConfiguration, "two sealing keys have the same id")
        }
        self.keys = keys
    }

    /// The ring from `id:base64` entries separated by commas, the first sealing: the form
    /// an environment variable holds. Throws `invalid_configuration` for anything else.
    public init(parsing text: String) throws(FederateError) {
        var keys: [Key] = []
        for entry in text.split(separator: ",") {
            let parts = entry.trimmingCharacters(in: .whitespaces).split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { throw FederateError(.invalidConfiguration, "sealing keys are id:base64, separated by commas") }
            keys.append(try Key(id: String(parts[0]), base64: String(parts[1])))
        }
        try self.init(keys)
    }

    /// The identifier of the key that seals.
    package var currentKeyID: String { keys[0].id }

    /// `plaintext` sealed with the current key, authenticating `associatedData(keyID)`: the
    /// key's ID and the combined nonce, ciphertext and tag; `nil` only if the cipher fails.
    package func seal(_ plaintext: [UInt8], associatedData: (String) -> [UInt8]) -> (keyID: String, combined: [UInt8])? {
        let key = keys[0]
        guard let box = try? AES.GCM.seal(plaintext, using: key.key, authenticating: associatedData(key.id)), let combined = box.combined
        else { return nil }
        return (key.id, Array(combined))
    }

    /// Whether the ring has the key `keyID` (compared byte for byte).
    package func hasKey(_ keyID: some Collection<UInt8>) -> Bool {
        keys.contains { $0.id.utf8.elementsEqual(keyID) }
    }

    /// The plaintext of `combined`, sealed with key `keyID` authenticating `associatedData`;
    /// `nil` when the ring has no such key or the value does not authenticate.
    package func open(_ combined: [UInt8], keyID: some Collection<UInt8>, associatedData: [UInt8]) -> Data? {
        guard let key = keys.first(where: { $0.id.utf8.elementsEqual(keyID) }),
            let box = try? AES.GCM.SealedBox(combined: combined)
        else { return nil }
        return try? AES.GCM.open(box, using: key.key, authenticating: associatedData)
    }
}
