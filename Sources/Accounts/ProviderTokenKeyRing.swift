package import Crypto
public import FederateTokens
import Foundation

/// The AES-256-GCM keys that kept provider tokens are encrypted with at rest
/// (``ProviderTokenVault``). The first key seals; every key opens, so keys rotate without a
/// pause: put the new key first and keep the old ones, run
/// ``AccountService/reencryptProviderTokens(batchSize:)`` until it answers 0, then remove them.
///
/// Each sealed value is bound to its identity (provider ID and subject) and to the key's ID
/// as associated data: a value copied onto another identity's row does not open.
public struct ProviderTokenKeyRing: Sendable {
    /// One key and its identifier.
    package struct Key: Sendable {
        /// A short identifier stored beside each value it sealed (1-32 of `A-Z a-z 0-9 _ -`).
        package let id: String
        let key: SymmetricKey

        /// A 256-bit key. Throws `invalid_configuration` for another size or a bad identifier.
        package init(id: String, key: SymmetricKey) throws(FederateError) {
            guard key.bitCount == 256 else { throw FederateError(.invalidConfiguration, "a provider-token key must be 256 bits") }
            guard (1...32).contains(id.utf8.count), id.utf8.allSatisfy(Self.isIdentifierByte) else {
                throw FederateError(.invalidConfiguration, "a provider-token key id is 1-32 characters of [A-Za-z0-9_-]")
            }
            self.id = id
            self.key = key
        }

        /// A 256-bit key from standard base64 (32 bytes: `openssl rand -base64 32`).
        package init(id: String, base64: String) throws(FederateError) {
            guard let bytes = Data(base64Encoded: base64), bytes.count == 32 else {
                throw FederateError(.invalidConfiguration, "a provider-token key is 32 bytes in standard base64 (openssl rand -base64 32)")
            }
            try self.init(id: id, key: SymmetricKey(data: bytes))
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
    package init(_ keys: [Key]) throws(FederateError) {
        guard !keys.isEmpty else { throw FederateError(.invalidConfiguration, "at least one provider-token key is required") }
        guard Set(keys.map { ExactString($0.id) }).count == keys.count else {
            throw FederateError(.invalidConfiguration, "two provider-token keys have the same id")
        }
        self.keys = keys
    }

    /// The ring from `id:base64` entries separated by commas, the first sealing — the form
    /// `federate serve` reads from an environment variable.
    public init(parsing text: String) throws(FederateError) {
        var keys: [Key] = []
        for entry in text.split(separator: ",") {
            let parts = entry.trimmingCharacters(in: .whitespaces).split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else {
                throw FederateError(.invalidConfiguration, "provider-token keys are id:base64, separated by commas")
            }
            keys.append(try Key(id: String(parts[0]), base64: String(parts[1])))
        }
        try self.init(keys)
    }

    /// The identifier of the key that seals.
    package var currentKeyID: String { keys[0].id }

    /// `tokens` sealed for the identity (`providerID`, `subject`) with the current key.
    func seal(_ tokens: ProviderTokens, providerID: String, subject: String) throws(FederateError) -> (keyID: String, sealed: [UInt8]) {
        let key = keys[0]
        var members: [String: JSONValue] = [:]
        if let access = tokens.accessToken { members["a"] = .string(access) }
        if let refresh = tokens.refreshToken { members["r"] = .string(refresh) }
        let plaintext = JSONSerializer.bytes(.object(members))
        guard
            let box = try? AES.GCM.seal(
                plaintext, using: key.key, authenticating: Self.associatedData(keyID: key.id, providerID: providerID, subject: subject)),
            let combined = box.combined
        else { throw FederateError(.accountStoreFailed, "sealing provider tokens failed") }
        return (key.id, Array(combined))
    }

    /// The tokens of a sealed record; `invalid_configuration` when its key is not in the ring
    /// (it was removed before ``AccountService/reencryptProviderTokens(batchSize:)`` finished),
    /// `account_store_failed` when it does not authenticate.
    func open(_ record: SealedProviderTokens) throws(FederateError) -> ProviderTokens {
        guard let key = keys.first(where: { $0.id.exactlyEquals(record.keyID) }) else {
            throw FederateError(
                .invalidConfiguration,
                "kept provider tokens are sealed with key '\(record.keyID)', which the key ring no longer has: add it back and re-encrypt")
        }
        let plaintext: Data
        do {
            plaintext = try AES.GCM.open(
                try AES.GCM.SealedBox(combined: record.sealed), using: key.key,
                authenticating: Self.associatedData(keyID: key.id, providerID: record.providerID, subject: record.subject))
        } catch {
            throw FederateError(.accountStoreFailed, "kept provider tokens do not authenticate (altered, or moved from another identity)")
        }
        guard let members = try? JSONParser(limits: .init(maxBytes: 64 * 1024, maxDepth: 2)).parseObject(plaintext) else {
            throw FederateError(.accountStoreFailed, "kept provider tokens are malformed")
        }
        return ProviderTokens(
            accessToken: members["a"]?.stringValue, refreshToken: members["r"]?.stringValue,
            accessTokenExpiresAt: record.accessTokenExpiresAt)
    }

    /// What a sealed value is bound to: the format, the key and the identity, lengths spelled
    /// out so that no two identities share it.
    private static func associatedData(keyID: String, providerID: String, subject: String) -> [UInt8] {
        Array("federate-provider-tokens.v1:\(keyID):\(providerID.utf8.count):\(providerID)\(subject)".utf8)
    }
}
