import Federate
import Foundation
import Synchronization

/// An authorization waiting to be exchanged (codes are single use and live 60 seconds).
struct DevCodeGrant: Sendable {
    let clientID: String
    let redirectURI: String
    let user: DevUser
    let nonce: String?
    let codeChallenge: String
    let scopes: [String]
    let authTime: Date
    let expiresAt: Date
}

/// A token the dev provider issued, with what it stands for.
struct DevTokenGrant: Sendable {
    let clientID: String
    let user: DevUser
    let scopes: [String]
    let authTime: Date
    let expiresAt: Date?
    /// The refresh token issued alongside an access token (revoking one revokes the other).
    let sibling: String?
}

/// The dev provider's mutable state: signing keys, codes and tokens. One lock; nothing here is slow.
final class DevProviderState: Sendable {
    struct Keys {
        var rsa: JWSSigningKey
        var ec: JWSSigningKey
        /// Retired keys still published during the overlap window, with their retirement time.
        var retired: [(key: JWSSigningKey, until: Date)]
        var generation: Int
    }

    let keys: Mutex<Keys>
    let codes = Mutex<[String: DevCodeGrant]>([:])
    let tokens = Mutex<[String: DevTokenGrant]>([:])
    let issuer = Mutex<String>("")

    init() throws {
        keys = Mutex(Keys(
            rsa: try JWSSigningKey.generateRSA(keyID: "dev-rsa-1"), ec: Self.newEC(generation: 1), retired: [], generation: 1))
    }

    static func newEC(generation: Int) -> JWSSigningKey {
        DevECKey.make(keyID: "dev-ec-\(generation)")
    }

    /// Publishes new keys now; the old ones stay in the JWKS for `overlap`.
    func rotateKeys(overlap: TimeInterval, now: Date = Date()) throws {
        let rsa = try JWSSigningKey.generateRSA(keyID: "dev-rsa-\(keys.withLock { $0.generation } + 1)")
        keys.withLock { keys in
            keys.generation += 1
            keys.retired.append((keys.rsa, now.addingTimeInterval(overlap)))
            keys.retired.append((keys.ec, now.addingTimeInterval(overlap)))
            keys.rsa = rsa
            keys.ec = Self.newEC(generation: keys.generation)
        }
    }

    /// The JWKS: current keys and retired ones still inside their overlap.
    func jwks(now: Date = Date()) -> [UInt8] {
        let published = keys.withLock { keys -> [JWSSigningKey] in
            keys.retired.removeAll { $0.until <= now }
            return [keys.rsa, keys.ec] + keys.retired.map(\.key)
        }
        let entries = published.compactMap { key in key.publicJWK().map { jwk -> JSONValue in
            var jwk = jwk
            jwk["use"] = "sig"
            return .object(jwk)
        } }
        return JSONSerializer.bytes(["keys": .array(entries)])
    }

    func takeCode(_ code: String, now: Date = Date()) -> DevCodeGrant? {
        codes.withLock { codes in
            guard let grant = codes.removeValue(forKey: code), grant.expiresAt > now else { return nil }
            return grant
        }
    }
}
