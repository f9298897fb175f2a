import ArgumentParser
import Federate
import FederateOIDC
import Foundation
import Logging

/// The options that name an OpenID provider and this client, shared by `login` and `token`.
struct ClientOptions: ParsableArguments {
    /// How the client authenticates at the token and revocation endpoints.
    enum AuthMethod: String, ExpressibleByArgument, CaseIterable {
        case clientSecretBasic = "client_secret_basic"
        case clientSecretPost = "client_secret_post"
        case privateKeyJWT = "private_key_jwt"
        case clientSecretJWT = "client_secret_jwt"
        case none
    }

    @Option(help: "The issuer URL, exactly as in its tokens' 'iss' claim.")
    var issuer: String

    @Option(name: .customLong("client-id"), help: "The client ID registered with the provider.")
    var clientID: String

    @Option(
        name: .customLong("client-secret"),
        help: "The client secret (or set FEDERATE_CLIENT_SECRET). Without one, the client is public ('none')."
    )
    var clientSecret: String?

    @Option(
        name: .customLong("auth-method"),
        help:
            "client_secret_basic, client_secret_post, client_secret_jwt, private_key_jwt or none. Default: chosen from the provider's token_endpoint_auth_methods_supported."
    )
    var authMethod: AuthMethod?

    @Option(
        name: .customLong("private-key"),
        help:
            "With --auth-method private_key_jwt: a PEM file with the client's private key (P-256, P-384, P-521 or RSA; signs ES256/384/512 or RS256 assertions)."
    )
    var privateKey: String?

    @Option(name: .customLong("key-id"), help: "With --private-key: the 'kid' the provider registered for the key (optional).")
    var keyID: String?

    @OptionGroup var privateNetwork: PrivateNetworkOptions

    /// The secret from the option or the environment; an empty value counts as none.
    var resolvedSecret: String? {
        let secret = clientSecret ?? ProcessInfo.processInfo.environment["FEDERATE_CLIENT_SECRET"]
        return secret?.isEmpty == false ? secret : nil
    }

    /// The checks ArgumentParser's `validate()` would make, run from `run()` instead: then an
    /// unknown option (a misspelt `--audiance`) is reported as unknown before any missing one.
    func checkOptions() throws {
        switch authMethod {
        case .clientSecretBasic?, .clientSecretPost?, .clientSecretJWT?:
            if resolvedSecret == nil {
                throw ValidationError("--auth-method \(authMethod?.rawValue ?? "") needs --client-secret or FEDERATE_CLIENT_SECRET.")
            }
        case .none?:
            if resolvedSecret != nil { throw ValidationError("--auth-method none takes no client secret.") }
        case .privateKeyJWT?:
            if privateKey == nil { throw ValidationError("--auth-method private_key_jwt needs --private-key FILE.") }
            if resolvedSecret != nil { throw ValidationError("--auth-method private_key_jwt takes no client secret.") }
        case nil:
            break
        }
        if privateKey != nil, authMethod != .privateKeyJWT {
            throw ValidationError("--private-key goes with --auth-method private_key_jwt.")
        }
        _ = try privateNetwork.allowList()
    }

    /// The provider these options describe, as a FederateOIDC provider; `revocationEndpoint`
    /// and `deviceAuthorizationEndpoint` serve when discovery advertises none.
    func provider(
        id: String = "oidc.cli", revocationEndpoint: String? = nil, deviceAuthorizationEndpoint: String? = nil
    ) throws -> OIDCProvider {
        var provider = try OIDCProvider(
            id: id, issuer: issuer, clientID: clientID, clientSecret: resolvedSecret,
            profile: StandardOpenIDProfile(
                fallbackRevocationEndpoint: revocationEndpoint, fallbackDeviceAuthorizationEndpoint: deviceAuthorizationEndpoint,
                privateNetworkAllowList: try privateNetwork.allowList()),
            cache: ProviderCache(httpClient: AsyncHTTPClientTransport.shared))
        if let authentication = try Self.authentication(authMethod, secret: resolvedSecret, privateKey: privateKey, keyID: keyID) {
            provider.authentication = authentication
        }
        return provider
    }

    /// The client authentication `method` names (`nil` for none named); a private key is read
    /// from its PEM file.
    static func authentication(_ method: AuthMethod?, secret: String?, privateKey: String?, keyID: String?) throws -> ClientAuthentication?
    {
        switch method {
        case .clientSecretBasic?: return .clientSecretBasic(secret: secret ?? "")
        case .clientSecretPost?: return .clientSecretPost(secret: secret ?? "")
        case .clientSecretJWT?: return .clientSecretJWT(secret: secret ?? "")
        case .none?: return ClientAuthentication.none
        case .privateKeyJWT?:
            let path = privateKey ?? ""
            guard let data = FileManager.default.contents(atPath: path) else {
                throw FederateError(.invalidConfiguration, "cannot read the private key file '\(path)'")
            }
            let (key, algorithm) = try JWSSigningKey.fromPEM(String(decoding: data, as: UTF8.self), keyID: keyID)
            return .privateKeyJWT(key: key, algorithm: algorithm)
        case nil: return nil
        }
    }

    /// Discovers the issuer (nothing else is sent before that succeeds) and creates the client.
    func makeClient(revocationEndpoint: String? = nil, deviceAuthorizationEndpoint: String? = nil) async throws -> OpenIDClient {
        var logger = Logger(label: "federate.cli")
        logger.logLevel = .error  // The tool reports problems itself, as JSON on standard output.
        return try await provider(revocationEndpoint: revocationEndpoint, deviceAuthorizationEndpoint: deviceAuthorizationEndpoint)
            .client(logger: logger)
    }
}

extension CLIOutput {
    /// A token set as JSON: claims, scopes and expiry always; the raw tokens only when asked.
    static func tokenSetObject(_ tokens: TokenSet, includeTokens: Bool) -> [String: JSONValue] {
        var object: [String: JSONValue] = [
            "granted_scopes": .array(tokens.grantedScopes.map(JSONValue.string)),
            "refused_scopes": .array(tokens.refusedScopes.map(JSONValue.string)),
            "expires_at": tokens.expiresAt.map { .integer(SafeNumber.clampedInt64($0.timeIntervalSince1970.rounded())) } ?? .null,
        ]
        if let claims = tokens.idTokenClaims { object["claims"] = claims.claims.jsonValue }
        if includeTokens {
            var raw: [String: JSONValue] = ["access_token": .string(tokens.accessToken), "token_type": .string(tokens.tokenType)]
            if let refreshToken = tokens.refreshToken { raw["refresh_token"] = .string(refreshToken) }
            if let idToken = tokens.idToken { raw["id_token"] = .string(idToken) }
            object["tokens"] = .object(raw)
        }
        return object
    }

    /// Prints the error object and exits 1.
    static func fail(_ error: any Error) -> ExitCode {
        line(errorObject(error))
        return ExitCode(1)
    }
}
