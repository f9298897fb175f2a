import Federate
import Foundation

/// How the generic flavour's access tokens look.
public enum DevAccessTokenFormat: String, Sendable, CaseIterable {
    /// RFC 9068 JWTs (`typ` `at+jwt`), signed with the provider's RS256 key: an API verifies
    /// them itself, or introspects them.
    case jwt
    /// Random strings: an API must introspect them (RFC 7662).
    case opaque
}

/// RFC 8707 resource indicators as the dev provider checks them.
enum DevAccessTokens {
    /// An absolute URI without a fragment (RFC 8707 §2), of reasonable length.
    static func isResource(_ value: String) -> Bool {
        guard !value.isEmpty, value.utf8.count <= 2048, !value.contains("#"),
            value.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }),
            let components = URLComponents(string: value), let scheme = components.scheme, !scheme.isEmpty
        else { return false }
        return true
    }
}

extension DevTokenMinter {
    /// An access token for `user` and `client`: in the generic flavour with JWT access tokens,
    /// or whenever the token is bound to a DPoP key (`jkt`, RFC 9449 §6.1), an RFC 9068 token
    /// (`typ` `at+jwt`; `iss`, `sub`, `aud` the resource, `client_id`, `iat`, `exp`, `jti`,
    /// `scope`, `auth_time`, and `cnf.jkt` when bound), else a random string.
    func accessToken(
        for user: DevUser, client: DevClient, scopes: [String], resource: String, authTime: Date, jkt: String? = nil
    ) throws -> String {
        guard jkt != nil || (flavor == .generic && configuration.accessTokenFormat == .jwt) else { return DevRandom.token() }
        let issuedAt = SafeNumber.clampedInt64(state.clock.now.timeIntervalSince1970)
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string(user.subject), "aud": .string(resource), "client_id": .string(client.id),
            "iat": .integer(issuedAt), "exp": .integer(issuedAt &+ configuration.tokenLifetime.wholeSeconds),
            "jti": .string(DevRandom.token()),
            "scope": .string(scopes.joined(separator: " ")), "auth_time": .integer(SafeNumber.clampedInt64(authTime.timeIntervalSince1970)),
        ]
        if let jkt { claims["cnf"] = TokenConfirmation.binding(to: jkt) }
        let key = state.keys.withLock { $0.current.rsa }
        return try key.sign(claims: claims, algorithm: .rs256, header: ["typ": "at+jwt"])
    }
}

extension DevProviderConfiguration {
    /// The `aud` of the generic flavour's access tokens when neither the request (RFC 8707
    /// `resource`) nor `accessTokenResource` names one: `urn:federate:dev-api`.
    static let defaultAccessTokenResource = "urn:federate:dev-api"
}
