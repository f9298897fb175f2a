public import FederateTokens
public import Crypto
public import Foundation

/// Seals a ``PendingAuthorization`` with AES-256-GCM so a server can keep it in a cookie
/// and any of its instances can finish the flow.
///
/// Format: `v1.<key id>.<base64url(nonce || ciphertext || tag)>`; the version and key id
/// are authenticated as associated data. The first key seals; every key opens, so keys can
/// be rotated: add the new key first, keep the old one until cookies sealed with it expire.
public struct PendingAuthorizationSealer: Sendable {
    /// A sealing key and its identifier.
    public struct Key: Sendable {
        /// A short identifier written into sealed values (letters, digits, `-`, `_`).
        package let id: String
        let key: SymmetricKey

        /// Creates a key; it must be 256 bits.
        public init(id: String, key: SymmetricKey) throws(FederateError) {
            guard key.bitCount == 256 else { throw FederateError(.invalidConfiguration, "a sealing key must be 256 bits") }
            guard !id.isEmpty, id.utf8.count <= 32,
                id.utf8.allSatisfy({
                    $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || ($0 >= 0x30 && $0 <= 0x39)
                        || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A)
                })
            else {
                throw FederateError(.invalidConfiguration, "a sealing key id is 1-32 characters of [A-Za-z0-9_-]")
            }
            self.id = id
            self.key = key
        }

        /// A 256-bit key from its standard base64 text (32 bytes, 44 characters), as kept in a
        /// secret store and loaded on every instance: `openssl rand -base64 32` makes one.
        /// Throws `invalid_configuration` for anything else.
        package init(id: String, base64: String) throws(FederateError) {
            guard let bytes = Data(base64Encoded: base64), bytes.count == 32 else {
                throw FederateError(.invalidConfiguration, "a sealing key is 32 bytes in standard base64 (openssl rand -base64 32)")
            }
            try self.init(id: id, key: SymmetricKey(data: bytes))
        }

        /// A new random 256-bit key. Cookies it sealed open only in this process: fine for one
        /// instance in development; several instances, or restarts that keep sign-ins in
        /// progress, load one key with `init(id:base64:)`.
        public static func generate(id: String) throws(FederateError) -> Key {
            try Key(id: id, key: SymmetricKey(size: .bits256))
        }
    }

    /// The keys; the first seals.
    package let keys: [Key]
    /// The largest sealed value accepted by ``open(_:now:)``.
    package static let maxSealedBytes = 8 * 1024

    /// Creates a sealer. At least one key is required.
    public init(keys: [Key]) throws(FederateError) {
        guard !keys.isEmpty else { throw FederateError(.invalidConfiguration, "at least one sealing key is required") }
        self.keys = keys
    }

    /// Seals a pending authorization.
    public func seal(_ pending: PendingAuthorization) throws(FederateError) -> String {
        try seal(pending.json, purpose: "v1")
    }

    /// Opens a sealed value. Throws `FederateError/Code/invalidPendingAuthorization` for
    /// anything tampered, unknown, malformed or expired.
    public func open(_ sealed: String, now: Date) throws(FederateError) -> PendingAuthorization {
        let pending = try PendingAuthorization(json: try open(sealed, purpose: "v1"))
        guard !pending.isExpired(at: now) else {
            throw FederateError(.invalidPendingAuthorization, "the authorization expired; start again")
        }
        return pending
    }

    /// Seals `value` with the first key for one `purpose` (letters and digits): the format is
    /// `<purpose>.<key id>.<base64url(nonce || ciphertext || tag)>`, the purpose and key id
    /// authenticated, so a value sealed for one purpose never opens for another. The server
    /// routes keep their other cookies (the sign-out state, the logout hint) this way.
    package func seal(_ value: JSONValue, purpose: String) throws(FederateError) -> String {
        let key = keys[0]
        let header = "\(purpose).\(key.id)"
        guard let box = try? AES.GCM.seal(JSONSerializer.bytes(value), using: key.key, authenticating: Array(header.utf8)),
            let combined = box.combined
        else { throw FederateError(.invalidPendingAuthorization, "sealing failed") }
        return header + "." + Base64URL.encode(Array(combined))
    }

    /// Opens a value sealed for `purpose` (an object). Throws `invalid_pending_authorization`
    /// for anything tampered, sealed for another purpose, unknown or malformed.
    package func open(_ sealed: String, purpose: String) throws(FederateError) -> [String: JSONValue] {
        guard sealed.utf8.count <= Self.maxSealedBytes else {
            throw FederateError(.invalidPendingAuthorization, "the sealed value is too large")
        }
        let parts = sealed.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].utf8.elementsEqual(purpose.utf8) else {
            throw FederateError(.invalidPendingAuthorization, "not a sealed value of this kind")
        }
        guard let key = keys.first(where: { $0.id.utf8.elementsEqual(parts[1].utf8) }) else {
            throw FederateError(.invalidPendingAuthorization, "sealed with an unknown key")
        }
        guard let combined = Base64URL.decode(parts[2]), combined.count > 28 else {
            throw FederateError(.invalidPendingAuthorization, "malformed sealed value")
        }
        let plaintext: Data
        do {
            plaintext = try AES.GCM.open(
                try AES.GCM.SealedBox(combined: combined), using: key.key, authenticating: Array("\(purpose).\(key.id)".utf8))
        } catch {
            throw FederateError(.invalidPendingAuthorization, "the sealed value does not authenticate")
        }
        do {
            return try JSONParser(limits: .init(maxBytes: Self.maxSealedBytes, maxDepth: 4)).parseObject(plaintext)
        } catch {
            throw FederateError(.invalidPendingAuthorization, "the sealed content is malformed")
        }
    }
}
