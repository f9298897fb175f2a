import Federate
import Foundation

/// Signs the dev provider's ID tokens, applying a client's faults.
struct DevTokenMinter {
    let issuer: String
    let state: DevProviderState
    let lifetime: TimeInterval

    func idToken(
        for user: DevUser, client: DevClient, nonce: String?, accessToken: String?, authTime: Date, scopes: [String], now: Date = Date()
    ) throws -> String {
        let faults = client.faults
        let issuedAt = Int64(now.timeIntervalSince1970) + (faults.contains(.futureToken) ? 3600 : 0)
        let expiresAt = faults.contains(.expiredToken) ? Int64(now.timeIntervalSince1970) - 3600 : issuedAt + Int64(lifetime)
        var claims: [String: JSONValue] = [
            "iss": .string(faults.contains(.wrongIssuer) ? issuer + "/other" : issuer),
            "sub": .string(user.subject),
            "aud": .string(faults.contains(.wrongAudience) ? client.id + "-other" : client.id),
            "iat": .integer(issuedAt), "exp": .integer(expiresAt), "auth_time": .integer(Int64(authTime.timeIntervalSince1970)),
        ]
        if faults.contains(.missingSubject) { claims.removeValue(forKey: "sub") }
        if let nonce { claims["nonce"] = .string(faults.contains(.wrongNonce) ? nonce + "-other" : nonce) }
        if let accessToken { claims["at_hash"] = .string(TokenHash.compute(accessToken, algorithm: .rs256)) }
        if scopes.contains("email") {
            claims["email"] = .string(user.email)
            claims["email_verified"] = .bool(user.emailVerified)
        }
        if scopes.contains("profile") { claims["name"] = .string(user.name) }

        let key = state.keys.withLock { $0.rsa }
        var header: [String: JSONValue] = ["typ": "JWT"]
        if faults.contains(.unknownKeyID) { header["kid"] = "dev-unpublished" }
        var token = try key.sign(claims: claims, algorithm: .rs256, header: header)
        if faults.contains(.badSignature) { token = Self.corruptSignature(token) }
        return token
    }

    /// Flips bits in the middle of the signature, keeping it canonical base64url.
    static func corruptSignature(_ token: String) -> String {
        guard let dot = token.lastIndex(of: ".") else { return token }
        var signature = Array(token[token.index(after: dot)...])
        let middle = signature.count / 2
        signature[middle] = signature[middle] == "A" ? "B" : "A"
        return String(token[...dot]) + String(signature)
    }
}
