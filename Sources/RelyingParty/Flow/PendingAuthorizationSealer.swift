public import FederateTokens
public import Foundation

/// Seals a ``PendingAuthorization`` with AES-256-GCM so a server can keep it in a cookie
/// and any of its instances can finish the flow.
///
/// Format: `v1.<key id>.<base64url(nonce || ciphertext || tag)>`; the version and key id
/// are authenticated as associated data. The first key seals; every key opens, so keys can
/// be rotated: add the new key first, keep the old one until cookies sealed with it expire.
public struct PendingAuthorizationSealer: Sendable {
    /// The keys; the first seals.
    package let keys: SealingKeyRing
    /// The largest sealed value accepted by ``open(_:now:)``.
    static let maxSealedBytes = 8 * 1024

    /// Creates a sealer with the ring `keys`.
    public init(keys: SealingKeyRing) {
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
        guard let (keyID, combined) = keys.seal(JSONSerializer.bytes(value), associatedData: { Array("\(purpose).\($0)".utf8) }) else {
            throw FederateError(.invalidPendingAuthorization, "sealing failed")
        }
        return "\(purpose).\(keyID)." + Base64URL.encode(combined)
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
        guard keys.hasKey(parts[1].utf8) else {
            throw FederateError(.invalidPendingAuthorization, "sealed with an unknown key")
        }
        guard let combined = Base64URL.decode(parts[2]), combined.count > 28 else {
            throw FederateError(.invalidPendingAuthorization, "malformed sealed value")
        }
        guard let plaintext = keys.open(combined, keyID: parts[1].utf8, associatedData: Array("\(purpose).\(parts[1])".utf8)) else {
            throw FederateError(.invalidPendingAuthorization, "the sealed value does not authenticate")
        }
        do {
            return try JSONParser(limits: .init(maxBytes: Self.maxSealedBytes, maxDepth: 4)).parseObject(plaintext)
        } catch {
            throw FederateError(.invalidPendingAuthorization, "the sealed content is malformed")
        }
    }
}
