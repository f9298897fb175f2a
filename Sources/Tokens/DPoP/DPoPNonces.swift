import Crypto
package import Foundation

/// Server-issued DPoP nonces (RFC 9449 §8, §9) that every instance of a server accepts
/// without sharing state: a nonce is a time slot and an HMAC of it under a secret the
/// instances share. The current slot's nonce and the previous one's are accepted, so a
/// nonce lives between one and two `lifetime`s.
public struct DPoPNonces: Sendable {
    private let secret: SymmetricKey
    /// How long one nonce is issued for.
    package let lifetime: Duration
    private let lifetimeSeconds: Double

    /// Nonces under `secret` (at least 32 bytes), each issued for `lifetime` (at least a second).
    /// `invalid_configuration` for a short secret or lifetime.
    public init(secret: [UInt8], lifetime: Duration = .seconds(300)) throws(FederateError) {
        guard secret.count >= 32 else { throw FederateError(.invalidConfiguration, "a DPoP nonce secret has at least 32 bytes") }
        guard lifetime >= .seconds(1) else { throw FederateError(.invalidConfiguration, "a DPoP nonce lives at least a second") }
        self.secret = SymmetricKey(data: secret)
        self.lifetime = lifetime
        self.lifetimeSeconds = lifetime.inSeconds
    }

    /// The nonce to issue at `now` (the `DPoP-Nonce` header).
    package func current(at now: Date) -> String {
        nonce(slot: slot(at: now))
    }

    /// The nonces accepted at `now`: the current one and the previous one.
    package func accepted(at now: Date) -> [String] {
        let slot = slot(at: now)
        return [nonce(slot: slot), nonce(slot: slot &- 1)]
    }

    private func slot(at now: Date) -> Int64 {
        SafeNumber.clampedInt64((now.timeIntervalSince1970 / lifetimeSeconds).rounded(.down))
    }

    private func nonce(slot: Int64) -> String {
        let message = withUnsafeBytes(of: slot.bigEndian) { Array($0) }
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: secret)
        return Base64URL.encode(message) + "." + Base64URL.encode(Array(mac).prefix(16))
    }
}
