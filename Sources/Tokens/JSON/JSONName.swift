/// The member names Federate reads by type: the registered claims of the token kinds it
/// verifies (RFC 7519, OpenID Connect Core, RFC 9068, RFC 9449, RFC 8417) and the JOSE header
/// parameters (RFC 7515).
///
/// The validation pass (``JSONValidator``) classifies each top-level member name once, on its
/// decoded bytes (`"iss"` and `"\u0069ss"` are the same member), so a typed read is a bit test
/// and a short scan, never a hash of a `String`.
enum JSONName: UInt8, Sendable, CaseIterable {
    /// Any other name: found by comparing its decoded bytes.
    case other = 0
    // RFC 7519
    case iss, sub, aud, exp, nbf, iat, jti
    // OpenID Connect Core
    case nonce, azp, authTime, acr, amr, atHash, cHash, sid
    // RFC 9068, RFC 7800, RFC 8417, provider claims the rules and typed readers use
    case scope, clientID, cnf, events, tid, hd
    case email, emailVerified, name, picture
    // RFC 9449 (DPoP proofs)
    case htm, htu, ath
    // Federate's session tokens: the provider sign-in a session came from
    case idp, idpSub, idpSid
    // RFC 7515 header parameters
    case alg, kid, typ, crit, jwk, jku, x5u, x5c

    /// The name as a token writes it.
    var text: String {
        switch self {
        case .other: return ""
        case .iss: return "iss"
        case .sub: return "sub"
        case .aud: return "aud"
        case .exp: return "exp"
        case .nbf: return "nbf"
        case .iat: return "iat"
        case .jti: return "jti"
        case .nonce: return "nonce"
        case .azp: return "azp"
        case .authTime: return "auth_time"
        case .acr: return "acr"
        case .amr: return "amr"
        case .atHash: return "at_hash"
        case .cHash: return "c_hash"
        case .sid: return "sid"
        case .scope: return "scope"
        case .clientID: return "client_id"
        case .cnf: return "cnf"
        case .events: return "events"
        case .tid: return "tid"
        case .hd: return "hd"
        case .email: return "email"
        case .emailVerified: return "email_verified"
        case .name: return "name"
        case .picture: return "picture"
        case .htm: return "htm"
        case .htu: return "htu"
        case .ath: return "ath"
        case .idp: return "idp"
        case .idpSub: return "idp_sub"
        case .idpSid: return "idp_sid"
        case .alg: return "alg"
        case .kid: return "kid"
        case .typ: return "typ"
        case .crit: return "crit"
        case .jwk: return "jwk"
        case .jku: return "jku"
        case .x5u: return "x5u"
        case .x5c: return "x5c"
        }
    }

    /// This name's bit in a presence mask.
    var bit: UInt64 { 1 << UInt64(rawValue) }

    /// The registered name `bytes` spell exactly, or ``other``.
    static func classify(_ bytes: UnsafeBufferPointer<UInt8>) -> JSONName {
        let count = bytes.count
        guard count >= 2, count <= 14, let base = bytes.baseAddress else { return .other }
        // The first (up to) eight bytes, little-endian: one integer comparison per candidate.
        var head: UInt64 = 0
        for index in 0..<min(count, 8) { head |= UInt64(base[index]) << (8 * UInt64(index)) }
        switch count {
        case 2:
            return head == 0x6468 ? .hd : .other
        case 3:
            switch head {
            case 0x737369: return .iss
            case 0x627573: return .sub
            case 0x647561: return .aud
            case 0x707865: return .exp
            case 0x66626E: return .nbf
            case 0x746169: return .iat
            case 0x69746A: return .jti
            case 0x707A61: return .azp
            case 0x726361: return .acr
            case 0x726D61: return .amr
            case 0x646973: return .sid
            case 0x666E63: return .cnf
            case 0x646974: return .tid
            case 0x6D7468: return .htm
            case 0x757468: return .htu
            case 0x687461: return .ath
            case 0x706469: return .idp
            case 0x676C61: return .alg
            case 0x64696B: return .kid
            case 0x707974: return .typ
            case 0x6B776A: return .jwk
            case 0x756B6A: return .jku
            case 0x753578: return .x5u
            case 0x633578: return .x5c
            default: return .other
            }
        case 4:
            switch head {
            case 0x656D616E: return .name
            case 0x74697263: return .crit
            default: return .other
            }
        case 5:
            switch head {
            case 0x65636E6F6E: return .nonce
            case 0x65706F6373: return .scope
            case 0x6C69616D65: return .email
            default: return .other
            }
        case 6:
            switch head {
            case 0x687361685F63: return .cHash
            case 0x73746E657665: return .events
            default: return .other
            }
        case 7:
            switch head {
            case 0x687361685F7461: return .atHash
            case 0x65727574636970: return .picture
            case 0x6275735F706469: return .idpSub
            case 0x6469735F706469: return .idpSid
            default: return .other
            }
        case 9:
            if spells(bytes, "auth_time") { return .authTime }
            return spells(bytes, "client_id") ? .clientID : .other
        case 14:
            return spells(bytes, "email_verified") ? .emailVerified : .other
        default:
            return .other
        }
    }

    /// Whether `bytes` are exactly `literal`'s.
    private static func spells(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count == count else { return false }
        let text = literal.utf8Start
        for index in 0..<count where bytes[index] != text[index] { return false }
        return true
    }

    /// The registered name `name` spells exactly (by its UTF-8 bytes), or ``other``.
    static func classify(_ name: String) -> JSONName {
        var name = name
        return name.withUTF8 { classify($0) }
    }
}
