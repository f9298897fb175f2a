import Federate
import Foundation
import NIOPosix
import Hummingbird
public import Logging
import ServiceLifecycle
import Synchronization

/// A local OpenID provider for development and tests, on Hummingbird.
///
/// ```swift
/// let provider = try await DevProvider.start()          // 127.0.0.1, a free port
/// let issuer = provider.issuer                         // http://127.0.0.1:PORT
/// // … sign in with `dev-client` / `dev-secret` (see DevProviderConfiguration.standard)
/// try await provider.stop()
/// ```
///
/// Standard endpoints under one issuer: discovery, JWKS (RS256 and ES256 keys, rotated
/// on demand with an overlap), authorize (auto-approve, `login_hint`, or a page to pick a test
/// user), token (authorization code with PKCE S256 required, refresh; client authentication
/// Basic, post, `private_key_jwt` or none, per client), userinfo, revocation and end-session.
/// Codes are single use and live 60 s; redirect URIs match exactly (loopback URIs on any
/// port); `query`, `fragment` and `form_post` response modes; RFC 9207 `iss`.
///
/// A ``DevFlavor`` imitates Google, Apple or Firebase with their quirks
/// (``DevProviderConfiguration/standard(for:)``); faults (the JSON configuration's `faults`)
/// make it misbehave on purpose.
public final class DevProvider: Sendable {
    /// The issuer: `http://127.0.0.1:PORT`, or for the Firebase flavour
    /// `http://127.0.0.1:PORT/PROJECT_ID` (as `https://securetoken.google.com/PROJECT_ID`), or
    /// for the Microsoft flavour the template `http://127.0.0.1:PORT/{tenantid}/v2.0`.
    public let issuer: String
    /// The server's root URL, `http://127.0.0.1:PORT`: the base of the flavour's endpoint
    /// paths (Apple's `/auth/keys`, Google's `/oauth2/v3/certs`, Firebase's certificate map).
    public let baseURL: String
    /// The port bound.
    package let port: Int
    /// What the provider serves.
    public let configuration: DevProviderConfiguration
    let state: DevProviderState
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(
        issuer: String, baseURL: String, port: Int, configuration: DevProviderConfiguration, state: DevProviderState,
        group: ServiceGroup, task: Task<Void, any Error>
    ) {
        self.issuer = issuer
        self.baseURL = baseURL
        self.port = port
        self.configuration = configuration
        self.state = state
        self.group = group
        self.task = task
    }

    /// The JWKS URL (the flavour's path).
    public var jwksURL: String {
        // Microsoft: the common key set (its path has the authority segment as a parameter).
        baseURL
            + DevEndpoints(flavor: configuration.flavor, projectID: configuration.projectID).jwks.replacingOccurrences(
                of: ":tenant", with: "common")
    }

    /// Firebase flavour: the x509 certificate map URL (`{kid: PEM}`), else `nil`.
    package var certificatesURL: String? {
        DevEndpoints(flavor: configuration.flavor, projectID: configuration.projectID).certificates.map { baseURL + $0 }
    }

    /// Starts the provider on `127.0.0.1:port` (0 picks a free port).
    public static func start(
        configuration: DevProviderConfiguration = .standard, port: Int = 0, logger: Logger = Logger(label: "federate.dev-provider")
    ) async throws -> DevProvider {
        // RSA key generation takes a quarter of a second in a debug build: run it on NIO's
        // blocking-work pool, not on a cooperative thread that other tasks are waiting for.
        let clock = configuration.clock
        let state = try await NIOThreadPool.singleton.runIfActive { try DevProviderState(clock: clock) }
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let router = Router()
        DevRoutes(configuration: configuration, state: state).register(on: router)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "federate-dev-provider"),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let task = Task {
            // A server that cannot bind ends here: end the wait for its port too.
            defer { portContinuation.finish() }
            try await group.run()
        }
        var bound = 0
        for await value in ports {
            bound = value
            break
        }
        guard bound > 0 else {
            let address = "127.0.0.1:\(port)"
            do { try await task.value } catch { throw FederateError.addressInUse(error, address: address) ?? error }
            throw FederateError(.invalidConfiguration, "the dev provider could not listen on \(address)")
        }
        let baseURL = "http://127.0.0.1:\(bound)"
        let issuer =
            switch configuration.flavor {
            case .firebase: baseURL + "/" + configuration.projectID
            case .microsoft: baseURL + "/" + IssuerTemplate.placeholder + "/v2.0"
            default: baseURL
            }
        state.issuer.withLock { $0 = issuer }
        state.baseURL.withLock { $0 = baseURL }
        return DevProvider(
            issuer: issuer, baseURL: baseURL, port: bound, configuration: configuration, state: state, group: group, task: task)
    }

    /// Publishes new signing keys now; the previous ones stay in the JWKS for `overlap`.
    public func rotateKeys(overlap: Duration = .seconds(300)) throws {
        try state.rotateKeys(overlap: overlap)
    }

    /// How many refresh grants the token endpoint answered, how many rotated-out refresh
    /// tokens came back, and how many token families that revoked.
    var refreshStatistics: DevRefreshStatistics { state.refreshStatistics.withLock { $0 } }

    /// Stops the server and waits until it has.
    public func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }

    /// Runs until the process is interrupted (for `federate dev-provider`).
    package func waitUntilStopped() async throws {
        try await task.value
    }
}
