public import FederateTokens
import Foundation

/// How the client authenticates at the token, revocation and introspection endpoints.
public enum ClientAuthentication: Sendable, CustomStringConvertible {
    /// HTTP Basic with the form-encoded client ID and secret (RFC 6749 §2.3.1).
    case clientSecretBasic(secret: String)
    /// `client_id` and `client_secret` in the form body.
    case clientSecretPost(secret: String)
    /// A signed JWT assertion (RFC 7523, OpenID Connect Core §9) with a private key (RS256 or ES256).
    case privateKeyJWT(key: JWSSigningKey, algorithm: JWSAlgorithm)
    /// A JWT assertion signed with HS256 keyed by the client secret (RFC 7523, OpenID Connect
    /// Core §9 `client_secret_jwt`): the secret itself never leaves the client.
    case clientSecretJWT(secret: String)
    /// A public client: only `client_id` is sent (PKCE protects the code).
    case none

    /// The `token_endpoint_auth_method` name.
    var methodName: String {
        switch self {
        case .clientSecretBasic: return "client_secret_basic"
        case .clientSecretPost: return "client_secret_post"
        case .privateKeyJWT: return "private_key_jwt"
        case .clientSecretJWT: return "client_secret_jwt"
        case .none: return "none"
        }
    }

    /// The client secret, for the three secret-based methods; it is also the key for
    /// HS256/384/512 ID tokens (OpenID Connect Core §10.1).
    package var clientSecret: String? {
        switch self {
        case .clientSecretBasic(let secret), .clientSecretPost(let secret), .clientSecretJWT(let secret): return secret
        case .privateKeyJWT, .none: return nil
        }
    }

    /// Redacted.
    public var description: String { "ClientAuthentication(\(methodName), secrets redacted)" }

    /// Chooses a method from what the provider advertises (`token_endpoint_auth_methods_supported`,
    /// default `client_secret_basic`) and what the caller has: a private key wins, then the
    /// secret with Basic when supported, else Post, else `client_secret_jwt`; no secret and no
    /// key means `none`.
    public static func negotiate(
        metadata: ProviderMetadata, secret: String?, privateKey: (key: JWSSigningKey, algorithm: JWSAlgorithm)? = nil
    ) throws(FederateError) -> ClientAuthentication {
        let supported = metadata.tokenEndpointAuthMethodsSupported ?? ["client_secret_basic"]
        if let privateKey {
            guard supported.contains("private_key_jwt") else {
                throw FederateError(.invalidConfiguration, "the provider does not advertise private_key_jwt")
            }
            return .privateKeyJWT(key: privateKey.key, algorithm: privateKey.algorithm)
        }
        if let secret {
            if supported.contains("client_secret_basic") { return .clientSecretBasic(secret: secret) }
            if supported.contains("client_secret_post") { return .clientSecretPost(secret: secret) }
            if supported.contains("client_secret_jwt") { return .clientSecretJWT(secret: secret) }
            throw FederateError(
                .invalidConfiguration, "the provider supports none of client_secret_basic, client_secret_post and client_secret_jwt")
        }
        return .none
    }

    /// Adds authentication to a form request for `endpoint`.
    func apply(
        clientID: String, endpoint: String, form: inout [(String, String)], headers: inout [(name: String, value: String)], now: Date
    ) throws(FederateError) {
        switch self {
        case .clientSecretBasic(let secret):
            let credentials = FormURLEncoding.escape(clientID) + ":" + FormURLEncoding.escape(secret)
            headers.append(("Authorization", "Basic " + Data(credentials.utf8).base64EncodedString()))
        case .clientSecretPost(let secret):
            form.append(("client_id", clientID))
            form.append(("client_secret", secret))
        case .privateKeyJWT(let key, let algorithm):
            form.append(("client_id", clientID))
            form.append(("client_assertion_type", Self.assertionType))
            form.append(
                ("client_assertion", try Self.assertion(clientID: clientID, audience: endpoint, key: key, algorithm: algorithm, now: now)))
        case .clientSecretJWT(let secret):
            // HS256 needs a key at least as long as its hash (RFC 7518 §3.2); a provider that
            // checks this refuses a shorter one, so say so here, before anything is sent.
            guard secret.utf8.count >= 32 else {
                throw FederateError(
                    .invalidConfiguration, "client_secret_jwt needs a client secret of at least 32 bytes for HS256 (RFC 7518 §3.2)")
            }
            let key = JWSSigningKey(hmac: HMACSecret(utf8: secret))
            form.append(("client_id", clientID))
            form.append(("client_assertion_type", Self.assertionType))
            form.append(
                ("client_assertion", try Self.assertion(clientID: clientID, audience: endpoint, key: key, algorithm: .hs256, now: now)))
        case .none:
            form.append(("client_id", clientID))
        }
    }

    /// `client_assertion_type` of both assertion methods (RFC 7523 §2.2).
    static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    /// An RFC 7523 client assertion: `iss` = `sub` = the client, `aud` the endpoint called, a
    /// fresh `jti`, one minute long. One rule for `private_key_jwt` and `client_secret_jwt`.
    static func assertion(
        clientID: String, audience: String, key: JWSSigningKey, algorithm: JWSAlgorithm, now: Date
    ) throws(FederateError) -> String {
        let issuedAt = SafeNumber.clampedInt64(now.timeIntervalSince1970)
        do {
            return try key.sign(
                claims: [
                    "iss": .string(clientID), "sub": .string(clientID), "aud": .string(audience),
                    "jti": .string(SecureRandom.token()), "iat": .integer(issuedAt), "exp": .integer(issuedAt + 60),
                ], algorithm: algorithm)
        } catch {
            throw .wrapping(error, as: .invalidConfiguration, "the client assertion could not be signed with this key")
        }
    }
}
