import FederateTokens
import Foundation

/// A signed authorization request object (JAR, RFC 9101 §4): the authorization parameters
/// as claims, plus `iss` (the client), `aud` (the issuer), `iat`, `nbf`, `exp` and a fresh
/// `jti`, with header `typ` `oauth-authz-req+jwt` (§10.8).
enum RequestObject {
    /// The media type in the header's `typ`.
    static let type = "oauth-authz-req+jwt"

    /// Signs `parameters` for `clientID` at `issuer`. `max_age` becomes a JSON number (as
    /// OpenID Connect Core §6.1 writes it); every other parameter stays a string.
    static func sign(
        _ parameters: [(String, String)], clientID: String, issuer: String, signing: RequestObjectSigning, now: Date
    ) throws(FederateError) -> String {
        var claims: [String: JSONValue] = [:]
        for (name, value) in parameters {
            if name == "max_age", let seconds = Int64(value) {
                claims[name] = .integer(seconds)
            } else {
                claims[name] = .string(value)
            }
        }
        let issuedAt = SafeNumber.clampedInt64(now.timeIntervalSince1970)
        claims["client_id"] = .string(clientID)
        claims["iss"] = .string(clientID)
        claims["aud"] = .string(issuer)
        claims["iat"] = .integer(issuedAt)
        claims["nbf"] = .integer(issuedAt)
        claims["exp"] = .integer(issuedAt + signing.lifetime.wholeSeconds)
        claims["jti"] = .string(SecureRandom.token())
        return try signing.key.sign(claims: claims, algorithm: signing.algorithm, header: ["typ": .string(type)])
    }
}
