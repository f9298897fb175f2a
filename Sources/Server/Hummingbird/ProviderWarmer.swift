public import Federate
public import Logging
public import ServiceLifecycle

/// Keeps every provider's discovery document and key set in the cache (`WarmableProvider`),
/// so `/readyz` turns ready soon after start and the first sign-in does not wait on a
/// provider. A swift-service-lifecycle `Service`: run it in the application's `ServiceGroup`.
///
/// It warms every provider at once, then again every ``interval`` (a fresh cache answers
/// without a fetch; an expired one refetches), and every ``retryInterval`` while a provider
/// cannot be reached. It stops on graceful shutdown.
public struct ProviderWarmer: Service {
    /// The providers, by route name.
    public let providers: [String: any SignInProvider]
    /// How often to warm again once every provider is warm.
    public var interval: Duration
    /// How soon to try again when a provider could not be warmed.
    public var retryInterval: Duration
    private let logger: Logger

    /// Creates a warmer for `providers` (those that are not `WarmableProvider` are skipped).
    public init(
        providers: [String: any SignInProvider], interval: Duration = .seconds(60), retryInterval: Duration = .seconds(2),
        logger: Logger = Logger(label: "federate.warmer")
    ) {
        self.providers = providers
        self.interval = interval
        self.retryInterval = retryInterval
        self.logger = logger
    }

    /// Warms each provider once; returns the names of those that could not be warmed.
    public func warmAll() async -> [String] {
        var failed: [String] = []
        for (name, provider) in providers.sorted(by: { $0.key < $1.key }) {
            guard let warmable = provider as? any WarmableProvider else { continue }
            do {
                try await warmable.warm()
            } catch {
                logger.notice("a provider could not be warmed", metadata: ["provider": "\(name)", "error": "\(error.code)"])
                failed.append(name)
            }
        }
        return failed
    }

    /// Warms until graceful shutdown or cancellation.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let failed = await warmAll()
                do {
                    try await Task.sleep(for: failed.isEmpty ? interval : retryInterval)
                } catch {
                    return
                }
            }
        }
    }
}
