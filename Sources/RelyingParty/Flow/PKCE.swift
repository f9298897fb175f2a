import FederateTokens
import Crypto

/// Proof Key for Code Exchange (RFC 7636), always with `S256`.
package struct PKCE: Sendable, Hashable {
    /// The verifier: 43–128 characters of `[A-Z a-z 0-9 - . _ ~]`. Secret until the code exchange.
    package let verifier: String
    /// `BASE64URL(SHA256(ASCII(verifier)))`.
    package var challenge: String { Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8)))) }
    /// Always `S256` (the `plain` method is never used).
    package var method: String { "S256" }

    /// A fresh verifier of 32 random bytes (43 characters, 256 bits).
    init() {
        self.verifier = SecureRandom.token(byteCount: 32)
    }

    /// Wraps an existing verifier; throws when it breaks RFC 7636 §4.1.
    init(verifier: String) throws(FederateError) {
        guard (43...128).contains(verifier.utf8.count),
            verifier.utf8.allSatisfy({ PKCE.unreserved($0) })
        else {
            throw FederateError(.invalidConfiguration, "a PKCE verifier is 43-128 characters of [A-Za-z0-9-._~]")
        }
        self.verifier = verifier
    }

    private static func unreserved(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
