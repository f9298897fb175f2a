import ArgumentParser
import Federate
import Foundation
import Logging

/// The options that name an authorization server and this service's client, for the grants a
/// service makes for itself (`token client-credentials`, `token exchange`).
struct ServiceClientOptions: ParsableArguments {
    @Option(help: "The issuer: its token endpoint comes from its RFC 8414 metadata (or OpenID discovery document).")
    var issuer: String?

    @Option(name: .customLong("token-endpoint"), help: "The token endpoint, instead of --issuer.")
    var tokenEndpoint: String?

    @Option(name: .customLong("client-id"), help: "The client ID registered with the server.")
    var clientID: String

    @Option(name: .customLong("client-secret"), help: "The client secret (or set FEDERATE_CLIENT_SECRET).")
    var clientSecret: String?

    @Option(
        name: .customLong("auth-method"),
        help:
            "client_secret_basic, client_secret_post, client_secret_jwt or private_key_jwt. Default: client_secret_basic with a secret, or what the server advertises (client_secret_post when it lists only that)."
    )
    var authMethod: ClientOptions.AuthMethod?

    @Option(name: .customLong("private-key"), help: "With --auth-method private_key_jwt: a PEM file with the client's private key.")
    var privateKey: String?

    @Option(name: .customLong("key-id"), help: "With --private-key: the 'kid' the server registered for the key (optional).")
    var keyID: String?

    @Flag(help: "Prove possession of a fresh DPoP key (RFC 9449): the server binds the token to it (prints dpop_jkt).")
    var dpop = false

    @Option(help: "The scopes to ask for, space-separated.")
    var scope: String?

    @Option(help: "An RFC 8707 resource (absolute URI) the token is for; repeatable.")
    var resource: [String] = []

    @OptionGroup var privateNetwork: PrivateNetworkOptions

    var resolvedSecret: String? {
        let secret = clientSecret ?? ProcessInfo.processInfo.environment["FEDERATE_CLIENT_SECRET"]
        return secret?.isEmpty == false ? secret : nil
    }

    var scopes: [String] { scope.map { $0.split(separator: " ").map(String.init) } ?? [] }

    /// The checks `validate()` would make, run from `run()` (unknown options are reported first).
    func checkOptions() throws {
        guard (issuer == nil) != (tokenEndpoint == nil) else {
            throw ValidationError("Name the server with --issuer or --token-endpoint (one of them).")
        }
        switch authMethod {
        case .none?: throw ValidationError("--auth-method none: a service's grants need client authentication.")
        case .privateKeyJWT?:
            if privateKey == nil { throw ValidationError("--auth-method private_key_jwt needs --private-key FILE.") }
        case .clientSecretBasic?, .clientSecretPost?, .clientSecretJWT?, nil:
            if resolvedSecret == nil {
                throw ValidationError("This grant needs --client-secret or FEDERATE_CLIENT_SECRET (or --auth-method private_key_jwt).")
            }
        }
        if privateKey != nil, authMethod != .privateKeyJWT {
            throw ValidationError("--private-key goes with --auth-method private_key_jwt.")
        }
        _ = try privateNetwork.allowList()
    }

    /// The client: the token endpoint from the issuer's metadata (fetched first: nothing else
    /// is sent before it validates) or as given, with the authentication asked for.
    func makeClient() async throws -> ServiceTokenClient {
        var logger = Logger(label: "federate.cli")
        logger.logLevel = .error
        let http = AsyncHTTPClientTransport.shared
        var advertised: [String]?
        let client: (endpoint: String, issuer: String?)
        let allowList = try privateNetwork.allowList()
        if let issuer {
            let metadata = try await AuthorizationServerDiscovery(httpClient: http, logger: logger).metadata(
                for: issuer, allowing: allowList)
            advertised = metadata.tokenEndpointAuthMethodsSupported
            client = (metadata.tokenEndpoint, metadata.issuer)
        } else {
            client = (tokenEndpoint ?? "", nil)
        }
        var authentication =
            try ClientOptions.authentication(authMethod, secret: resolvedSecret, privateKey: privateKey, keyID: keyID)
            ?? .clientSecretBasic(secret: resolvedSecret ?? "")
        if authMethod == nil, let advertised, !advertised.contains("client_secret_basic"), advertised.contains("client_secret_post") {
            authentication = .clientSecretPost(secret: resolvedSecret ?? "")
        }
        return try ServiceTokenClient(
            tokenEndpoint: client.endpoint, issuer: client.issuer, clientID: clientID, authentication: authentication, httpClient: http,
            privateNetworkAllowList: allowList, logger: logger
        ).withDPoP(dpop ? DPoPProofSigner() : nil)
    }

    /// The token as the commands print it.
    static func output(_ token: IssuedToken, client: ServiceTokenClient) -> JSONValue {
        var object: [String: JSONValue] = [
            "access_token": .string(token.token), "token_type": .string(token.tokenType),
            "expires_at": token.expiresAt.map { .integer(SafeNumber.clampedInt64($0.timeIntervalSince1970.rounded())) } ?? .null,
            "scope": .string(token.scopes.joined(separator: " ")),
        ]
        if let issued = token.issuedTokenType { object["issued_token_type"] = .string(issued) }
        if let refresh = token.refreshToken { object["refresh_token"] = .string(refresh) }
        if let dpop = client.dpop { object["dpop_jkt"] = .string(dpop.thumbprint) }
        return .object(object)
    }
}

extension TokenCommand {
    /// `federate token client-credentials`.
    struct ClientCredentials: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "client-credentials",
            abstract: "Get a token for this service itself (the client-credentials grant, RFC 6749 §4.4).",
            discussion: """
                Prints {"access_token", "token_type", "expires_at", "scope"} (and "dpop_jkt" with --dpop) and exits 0, \
                or {"error": CODE, "message": ...} and exits 1 (the server's refusal keeps its code: invalid_client, \
                unauthorized_client, invalid_scope, invalid_target, ...).
                """
        )

        @OptionGroup var client: ServiceClientOptions

        @Option(help: "The audience the token is for (a logical name; some servers take it instead of --resource).")
        var audience: String?

        func run() async throws {
            try client.checkOptions()
            do {
                let service = try await client.makeClient()
                let token = try await service.clientCredentials(scopes: client.scopes, resources: client.resource, audience: audience)
                CLIOutput.line(ServiceClientOptions.output(token, client: service))
            } catch {
                throw CLIOutput.fail(error)
            }
        }
    }

    /// `federate token exchange`.
    struct Exchange: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Exchange a token for one for another service (RFC 8693 token exchange).",
            discussion: """
                Prints {"access_token", "issued_token_type", "token_type", "expires_at", "scope"} and exits 0, or \
                {"error": CODE, "message": ...} and exits 1 (invalid_grant: the subject or actor token was refused; \
                invalid_target: the resource or audience was).
                """
        )

        @OptionGroup var client: ServiceClientOptions

        @Option(name: .customLong("subject-token"), help: "The token of the party the new token acts for.")
        var subjectToken: String

        @Option(name: .customLong("subject-token-type"), help: "Its type (default urn:ietf:params:oauth:token-type:access_token).")
        var subjectTokenType: String = TokenExchangeRequest.TokenType.accessToken

        @Option(name: .customLong("actor-token"), help: "The token of the party acting (delegation).")
        var actorToken: String?

        @Option(name: .customLong("actor-token-type"), help: "Its type (needed with --actor-token).")
        var actorTokenType: String?

        @Option(name: .customLong("requested-token-type"), help: "The type of token wanted.")
        var requestedTokenType: String?

        @Option(help: "A logical name of the service the token is for; repeatable.")
        var audience: [String] = []

        func run() async throws {
            try client.checkOptions()
            do {
                let service = try await client.makeClient()
                let token = try await service.exchange(
                    TokenExchangeRequest(
                        subjectToken: subjectToken, subjectTokenType: subjectTokenType, actorToken: actorToken,
                        actorTokenType: actorTokenType,
                        requestedTokenType: requestedTokenType, resources: client.resource, audiences: audience, scopes: client.scopes))
                CLIOutput.line(ServiceClientOptions.output(token, client: service))
            } catch {
                throw CLIOutput.fail(error)
            }
        }
    }
}
