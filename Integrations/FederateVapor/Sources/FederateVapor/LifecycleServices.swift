public import Logging
public import ServiceLifecycle
import Synchronization
public import Vapor

/// Runs swift-service-lifecycle services — the account store (`SQLiteAccountStore`), a
/// `PostgresClient`, a `ProviderWarmer` — for as long as a Vapor `Application` runs: started
/// when it boots, asked to shut down gracefully (in reverse order, so the warmer stops before
/// the store closes) when it shuts down, after its server has stopped taking requests.
///
/// ```swift
/// app.lifecycle.use(LifecycleServices([store, ProviderWarmer(providers: configuration.providers)]))
/// ```
///
/// On PostgreSQL, run `store.migrate()` after the application booted (the client runs then)
/// and before it serves; Vapor's own `SIGINT`/`SIGTERM` handling ends the services, so none is
/// installed here.
public final class LifecycleServices: LifecycleHandler, Sendable {
    private let services: [any Service]
    private let logger: Logger
    private let running = Mutex<(group: ServiceGroup, task: Task<Void, Never>)?>(nil)

    /// Creates the handler for `services`, started in order.
    public init(_ services: [any Service], logger: Logger = Logger(label: "federate.lifecycle")) {
        self.services = services
        self.logger = logger
    }

    public func willBootAsync(_ application: Application) async throws {
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: services, logger: logger))
        let logger = self.logger
        let task = Task {
            do {
                try await group.run()
            } catch {
                logger.error("a lifecycle service failed", metadata: ["error": "\(String(reflecting: error))"])
            }
        }
        running.withLock { $0 = (group, task) }
    }

    public func shutdownAsync(_ application: Application) async {
        let taken = running.withLock { current in
            defer { current = nil }
            return current
        }
        guard let (group, task) = taken else { return }
        await group.triggerGracefulShutdown()
        await task.value
    }
}
