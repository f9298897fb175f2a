import Crypto

/// A DPoP proof sent with an access token carries `ath`, the base64url of the SHA-256 of that
/// token's ASCII bytes (RFC 9449 §4.2, §4.3 check 12), compared in constant time.
///
/// Absent: ``FederateError/Code/missingClaim``. Another hash:
/// ``FederateError/Code/invalidDPoPProof``.
struct AccessTokenHashRule: ClaimRule {
    /// The expected `ath`.
    let expected: String

    /// The rule for a request presenting `accessToken`.
    init(accessToken: String) {
        self.expected = Self.hash(of: accessToken)
    }

    /// `ath` for `accessToken`: base64url(SHA-256(ASCII(token))).
    static func hash(of accessToken: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Array(accessToken.utf8))))
    }

    func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        guard let matches = try token.string(.ath, satisfies: { ConstantTime.equals($0, expected.utf8) }) else {
            throw FederateError(.missingClaim, "required claim 'ath' is missing")
        }
        guard matches else {
            throw FederateError(.invalidDPoPProof, "the proof's 'ath' is not the hash of the access token presented")
        }
    }
}
