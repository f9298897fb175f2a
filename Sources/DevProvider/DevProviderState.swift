import Federate
import Foundation
import Synchronization

/// An authorization waiting to be exchanged (codes are single use and live 60 seconds).
struct DevCodeGrant: Sendable {
    let clientID: String
    /// `nil` for a code handed to a native app (Apple's SDK): then no `redirect_uri` may be sent.
    let redirectURI: String?
    let user: DevUser
    let nonce: String?
    /// `nil` for a native app's code, which comes without PKCE.
    let codeChallenge: String?
    let scopes: [String]
    let authTime: Date
    let expiresAt: Date
    /// The RFC 8707 `resource` of the authorization request, if any.
    var resource: String? = nil
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
    /// The access token's audience (generic flavour), or the resource a refresh token was granted for.
    var resource: String? = nil
    /// The thumbprint of the DPoP key the token is bound to (RFC 9449), if any.
    var jkt: String? = nil
    /// The sign-in every token of a refresh chain descends from.
    var family: String? = nil
    /// A refresh token rotated out by its use: presenting it again is reuse.
    var spent = false
}

/// What the dev provider's token endpoint did with refresh tokens (``DevProvider/refreshStatistics``).
struct DevRefreshStatistics: Sendable, Hashable {
    /// Refresh grants asked for, answered or refused.
    var requests = 0
    /// Refresh grants answered with new tokens.
    var refreshes = 0
    /// Refresh tokens presented again after they were rotated out.
    var reusedRefreshTokens = 0
    /// Token families revoked because of such a reuse (``DevFault/revokeFamilyOnReuse``).
    var familiesRevoked = 0
}

/// An RP-initiated logout the provider accepted: whose session it ended, for which client, with which `state`.
public struct DevLogout: Sendable, Hashable {
    /// The subject of the `id_token_hint`.
    public let subject: String
    /// The client (`client_id`, or the hint's audience).
    public let clientID: String?
    /// The `state` sent.
    public let state: String?
}

/// The dev provider's mutable state: signing keys, codes, tokens and what users consented
/// to. One lock per concern; nothing done under a lock is slow.
final class DevProviderState: Sendable {
    struct Keys {
        var current: DevSigningKeys
        /// Retired keys still published during the overlap window, with their retirement time.
        var retired: [(keys: DevSigningKeys, until: Date)]
    }

    let keys: Mutex<Keys>
    // Codes, tokens, request URIs, device codes and assertion IDs come back from clients: each
    // map keys on their exact bytes (`ExactString`), so a look-alike never finds a real entry.
    let codes = Mutex<[ExactString: DevCodeGrant]>([:])
    /// The provider's own sign-in sessions, like a real provider's SSO cookie: the subject and
    /// when that user last authenticated. A silent approval reports this time as `auth_time`.
    let ssoSessions = Mutex<[String: Date]>([:])
    /// Each of those sessions' ID: the `sid` of the ID tokens issued within it (generic
    /// flavour), which back-channel logout tokens name.
    let ssoSessionIDs = Mutex<[String: String]>([:])
    /// How each of those sessions' user authenticated (step-up: a request for a stronger `acr` shows the sign-in page).
    let ssoMethods = Mutex<[String: DevAuthenticationMethod]>([:])

    /// Starts a new provider session for `subject` at `date`.
    func startSSOSession(_ subject: String, at date: Date) {
        ssoSessions.withLock { $0[subject] = date }
        ssoSessionIDs.withLock { $0[subject] = DevRandom.token() }
    }
    let tokens = Mutex<[ExactString: DevTokenGrant]>([:])
    let refreshStatistics = Mutex(DevRefreshStatistics())
    /// DPoP: used proofs, nonces, codes bound to keys.
    let dpop = DevDPoPState()
    let issuer = Mutex<String>("")
    /// The server's root URL, known once the port is bound.
    let baseURL = Mutex<String>("")
    /// `client_id` + `jti` of every `private_key_jwt` assertion seen (each is single use).
    let usedAssertionIDs = Mutex<Set<ExactString>>([])
    /// Scopes each user granted each client (`client_id` + `sub`), for `include_granted_scopes`
    /// and for Apple's "first authorization" (`user` JSON).
    let grants = Mutex<[String: Set<String>]>([:])
    /// Pushed authorization requests by `request_uri` (RFC 9126).
    let pushedRequests = Mutex<[ExactString: DevPushedRequest]>([:])
    /// RP-initiated logouts received with a valid `id_token_hint`, in order.
    let logouts = Mutex<[DevLogout]>([])
    /// GitHub flavour: logins renamed since the configuration, by subject.
    let gitHubLogins = Mutex<[String: String]>([:])
    /// Device authorizations by `device_code` (RFC 8628).
    let deviceGrants = Mutex<[ExactString: DevDeviceGrant]>([:])

    /// The provider's time (``DevProviderConfiguration/clock``).
    let clock: FederateClock

    init(clock: FederateClock) throws {
        self.clock = clock
        keys = Mutex(Keys(current: try DevSigningKeys(generation: 1, now: clock.now), retired: []))
    }

    /// Publishes new keys now; the old ones stay published for `overlap`.
    func rotateKeys(overlap: Duration) throws {
        let now = clock.now
        let generation = keys.withLock { $0.current.generation } + 1
        let fresh = try DevSigningKeys(generation: generation, now: now)
        keys.withLock { keys in
            guard fresh.generation > keys.current.generation else { return }
            keys.retired.append((keys.current, now.adding(overlap)))
            keys.current = fresh
        }
    }

    /// Every published key generation: the current one and retired ones inside their overlap.
    func publishedKeys() -> [DevSigningKeys] {
        let now = clock.now
        return keys.withLock { keys in
            keys.retired.removeAll { $0.until <= now }
            return [keys.current] + keys.retired.map(\.keys)
        }
    }

    /// The JWKS: RSA and EC keys of every published generation (RSA only for Google-like flavours).
    func jwks(includeEC: Bool = true) -> [UInt8] {
        let entries = publishedKeys().flatMap { generation in
            let keys: [(JWSSigningKey, String)] = [(generation.rsa, "RS256")] + (includeEC ? [(generation.ec, "ES256")] : [])
            return keys.compactMap { key, algorithm in
                key.publicJWK().map { jwk -> JSONValue in
                    var jwk = jwk
                    jwk["use"] = "sig"
                    jwk["alg"] = .string(algorithm)
                    return .object(jwk)
                }
            }
        }
        return JSONSerializer.bytes(["keys": .array(entries)])
    }

    /// The x509 certificate map `{kid: PEM}` of the published RSA keys.
    func certificateMap() -> [UInt8] {
        var map: [String: JSONValue] = [:]
        for generation in publishedKeys() {
            if let kid = generation.rsa.keyID { map[kid] = .string(generation.rsaCertificatePEM) }
        }
        return JSONSerializer.bytes(.object(map))
    }

    func takeCode(_ code: String) -> DevCodeGrant? {
        let now = clock.now
        return codes.withLock { codes in
            guard let grant = codes.removeValue(forKey: ExactString(code)), grant.expiresAt > now else { return nil }
            return grant
        }
    }

    /// Records `scopes` as granted by `user` to `clientID`; returns what was granted before.
    func recordGrant(clientID: String, subject: String, scopes: [String]) -> Set<String>? {
        grants.withLock { grants in
            let key = clientID + " " + subject
            let before = grants[key]
            grants[key, default: []].formUnion(scopes)
            return before
        }
    }
}
