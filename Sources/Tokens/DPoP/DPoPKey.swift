import Crypto
public import Foundation

/// The key a client proves possession of with DPoP (RFC 9449), and the proofs it signs.
///
/// One key per client: its public JWK goes in every proof's header, and its thumbprint
/// (``thumbprint``, RFC 7638) is what the authorization server binds tokens to (`cnf.jkt`)
/// and what `dpop_jkt` names in authorization requests (§10).
///
/// ```swift
/// let key = DPoPKey.generateES256()
/// let proof = try key.proof(method: "POST", uri: "https://server.example.com/token", issuedAt: clock.now)
/// ```
public struct DPoPKey: Sendable, CustomStringConvertible {
    /// The private key.
    package let signingKey: JWSSigningKey
    /// The algorithm proofs are signed with.
    package let algorithm: JWSAlgorithm
    /// The public key as the proofs' `jwk` header carries it: the required members only.
    package let publicJWK: [String: JSONValue]
    /// The JWK SHA-256 thumbprint (RFC 7638) of `publicJWK`: `cnf.jkt` and `dpop_jkt`.
    public let thumbprint: String

    /// Wraps an asymmetric key. ``FederateError/Code/invalidConfiguration`` for an HMAC secret
    /// or a key that cannot sign `algorithm`.
    public init(signingKey: JWSSigningKey, algorithm: JWSAlgorithm) throws(FederateError) {
        guard !algorithm.isSymmetric, signingKey.supports(algorithm), var jwk = signingKey.publicJWK() else {
            throw FederateError(.invalidConfiguration, "a DPoP key must be an asymmetric key that signs \(algorithm.rawValue)")
        }
        for member in ["kid", "use", "alg", "key_ops"] { jwk.removeValue(forKey: member) }
        self.signingKey = signingKey.withKeyID(nil)
        self.algorithm = algorithm
        self.publicJWK = jwk
        self.thumbprint = try JWKThumbprint.sha256(of: jwk)
    }

    /// A fresh P-256 key for ES256, the algorithm every DPoP server supports.
    public static func generateES256() -> DPoPKey {
        // A P-256 key always signs ES256: the initializer cannot fail for it.
        let key = JWSSigningKey(p256: P256.Signing.PrivateKey(), keyID: nil)
        return DPoPKey(validated: key, algorithm: .es256)
    }

    private init(validated key: JWSSigningKey, algorithm: JWSAlgorithm) {
        var jwk = key.publicJWK() ?? [:]
        for member in ["kid", "use", "alg", "key_ops"] { jwk.removeValue(forKey: member) }
        self.signingKey = key
        self.algorithm = algorithm
        self.publicJWK = jwk
        self.thumbprint = (try? JWKThumbprint.sha256(of: jwk)) ?? ""
    }

    /// Signs a proof for one request (RFC 9449 §4.2): `typ` `dpop+jwt`, this key's `jwk`;
    /// claims `jti` (fresh), `htm` `method`, `htu` `uri` without its query and fragment,
    /// `iat`, and `ath` when the request presents `accessToken`, `nonce` when the server gave one.
    public func proof(
        method: String, uri: String, issuedAt: Date, accessToken: String? = nil, nonce: String? = nil,
        jti: String? = nil
    ) throws(FederateError) -> String {
        let jti = jti ?? SecureRandom.token(byteCount: 16)
        var claims: [String: JSONValue] = [
            "jti": .string(jti), "htm": .string(method), "htu": .string(Self.withoutQueryAndFragment(uri)),
            "iat": .integer(SafeNumber.clampedInt64(issuedAt.timeIntervalSince1970)),
        ]
        if let accessToken { claims["ath"] = .string(AccessTokenHashRule.hash(of: accessToken)) }
        if let nonce { claims["nonce"] = .string(nonce) }
        return try signingKey.sign(claims: claims, algorithm: algorithm, header: ["typ": "dpop+jwt", "jwk": .object(publicJWK)])
    }

    /// `uri` up to its first `?` or `#`.
    static func withoutQueryAndFragment(_ uri: String) -> String {
        guard let end = uri.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return uri }
        return String(uri[..<end])
    }

    /// Redacted.
    public var description: String { "DPoPKey(\(algorithm.rawValue), jkt: \(thumbprint), redacted)" }
}
