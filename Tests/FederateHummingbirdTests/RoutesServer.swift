import Crypto
import Federate
import FederateHummingbird
import FederateTestSupport
import Hummingbird

/// `FederateRoutes` on a real Hummingbird server on a free loopback port, for the duration of
/// `body`, which gets the server's origin. `/` answers "home".
enum RoutesServer {
    static func run(
        port: Int? = nil, providers: [String: any SignInProvider], accounts: AccountService, staticFiles: [String: String] = [:],
        allowsGuests: Bool = false, configure: (inout FederateServerConfiguration) -> Void = { _ in },
        routes: (Router<FederateContext>, _ origin: String) -> Void = { _, _ in },
        _ body: (_ origin: String) async throws -> Void
    ) async throws {
        let port = try port ?? FreePort.loopback()
        let origin = "http://127.0.0.1:\(port)"
        var configuration = try FederateServerConfiguration(
            origin: origin, providers: providers, accounts: accounts,
            sealer: PendingAuthorizationSealer(keys: try SealingKeyRing([.init(id: "k1", key: SymmetricKey(size: .bits256))])),
            staticFiles: staticFiles)
        configuration.allowsGuests = allowsGuests
        configure(&configuration)
        let router = Router(context: FederateContext.self)
        try FederateRoutes<FederateContext>(configuration: configuration).register(on: router)
        router.get("/") { _, _ in "home" }
        routes(router, origin)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
        let server = Task { try await app.runService() }
        defer { server.cancel() }
        try await FederateRoutesTests.waitUntilListening(origin)
        try await body(origin)
    }
}
