/// A COSE signature algorithm (IANA's COSE Algorithms registry) a passkey may use.
///
/// Federate verifies ``es256`` (ECDSA P-256 with SHA-256), ``edDSA`` (Ed25519) and ``rs256``
/// (RSASSA-PKCS1-v1_5 with SHA-256, keys of at least 2048 bits); any other value is refused
/// with `webauthn_unsupported_algorithm`.
public struct COSEAlgorithm: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The registry's integer, e.g. -7.
    public let rawValue: Int64

    /// The algorithm with the registry's integer `rawValue`.
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// ES256: ECDSA over P-256 with SHA-256 (-7).
    public static let es256 = COSEAlgorithm(rawValue: -7)
    /// EdDSA with Ed25519 (-8).
    public static let edDSA = COSEAlgorithm(rawValue: -8)
    /// RS256: RSASSA-PKCS1-v1_5 with SHA-256 (-257).
    public static let rs256 = COSEAlgorithm(rawValue: -257)

    /// The algorithms Federate verifies, most preferred first.
    public static let supported: [COSEAlgorithm] = [.es256, .edDSA, .rs256]

    /// The name and the integer, e.g. `ES256 (-7)`.
    public var description: String {
        switch self {
        case .es256: "ES256 (-7)"
        case .edDSA: "EdDSA (-8)"
        case .rs256: "RS256 (-257)"
        default: "COSE algorithm \(rawValue)"
        }
    }
}
