/// A JWS signature algorithm Federate implements (RFC 7518 §3, RFC 8037).
///
/// `none` is deliberately not a case: there is no way to ask Federate to accept an
/// unsigned token.
public enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable, Comparable {
    /// RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7518 §3.3).
    case rs256 = "RS256"
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    case rs384 = "RS384"
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    case rs512 = "RS512"
    /// RSASSA-PSS with SHA-256 and MGF1 with SHA-256 (RFC 7518 §3.5).
    case ps256 = "PS256"
    /// RSASSA-PSS with SHA-384.
    case ps384 = "PS384"
    /// RSASSA-PSS with SHA-512.
    case ps512 = "PS512"
    /// ECDSA on P-256 with SHA-256 (RFC 7518 §3.4).
    case es256 = "ES256"
    /// ECDSA on P-384 with SHA-384.
    case es384 = "ES384"
    /// ECDSA on P-521 with SHA-512.
    case es512 = "ES512"
    /// EdDSA with Ed25519 (RFC 8037).
    case edDSA = "EdDSA"
    /// HMAC with SHA-256 (RFC 7518 §3.2): only with a secret you configure.
    case hs256 = "HS256"
    /// HMAC with SHA-384.
    case hs384 = "HS384"
    /// HMAC with SHA-512.
    case hs512 = "HS512"

    /// Every asymmetric algorithm: what a key set may be used with.
    public static let asymmetric: Set<JWSAlgorithm> = Set(allCases.filter { !$0.isSymmetric })

    /// Whether this is an HMAC algorithm (usable only with an explicitly configured secret).
    package var isSymmetric: Bool {
        switch self {
        case .hs256, .hs384, .hs512: return true
        default: return false
        }
    }

    /// The hash used by the signature, which is also the hash of `at_hash`/`c_hash`
    /// (OpenID Connect Core §3.1.3.6). EdDSA with Ed25519 uses SHA-512.
    package var hash: HashAlgorithm {
        switch self {
        case .rs256, .ps256, .es256, .hs256: return .sha256
        case .rs384, .ps384, .es384, .hs384: return .sha384
        case .rs512, .ps512, .es512, .hs512, .edDSA: return .sha512
        }
    }

    public static func < (lhs: JWSAlgorithm, rhs: JWSAlgorithm) -> Bool { lhs.rawValue < rhs.rawValue }

    /// This algorithm's bit in an ``AlgorithmMask``.
    var bit: UInt16 {
        switch self {
        case .rs256: return 1 << 0
        case .rs384: return 1 << 1
        case .rs512: return 1 << 2
        case .ps256: return 1 << 3
        case .ps384: return 1 << 4
        case .ps512: return 1 << 5
        case .es256: return 1 << 6
        case .es384: return 1 << 7
        case .es512: return 1 << 8
        case .edDSA: return 1 << 9
        case .hs256: return 1 << 10
        case .hs384: return 1 << 11
        case .hs512: return 1 << 12
        }
    }
}

/// A set of ``JWSAlgorithm``s as bits: a verification asks it on every token, where a
/// `Set<JWSAlgorithm>` hashes the algorithm's name.
struct AlgorithmMask: Sendable, Hashable {
    private let bits: UInt16

    init(_ algorithms: some Sequence<JWSAlgorithm>) {
        bits = algorithms.reduce(0) { $0 | $1.bit }
    }

    func contains(_ algorithm: JWSAlgorithm) -> Bool { bits & algorithm.bit != 0 }
}

/// The SHA-2 hash functions JOSE uses.
package enum HashAlgorithm: Sendable, Hashable {
    /// SHA-256.
    case sha256
    /// SHA-384.
    case sha384
    /// SHA-512.
    case sha512

    /// Output length in bytes.
    package var byteCount: Int {
        switch self {
        case .sha256: return 32
        case .sha384: return 48
        case .sha512: return 64
        }
    }
}
