public import Federate
public import Logging
public import ServiceLifecycle

/// Keeps every provider's discovery document and key set in the cache
/// (`ProviderCapabilities/warming`),
/// so `/readyz` turns ready soon after start and the first sign-in does not wait on a
/// provider. A swift-service-lifecycle `Service`: run it in the application's `ServiceGroup`.
///
/// It warms every provider at once, then again every `interval` (a fresh cache answers
/// without a fetch; an expired one refetches), and every `retryInterval` while a provider
/// cannot be reached. It stops on graceful shutdown.
public struct ProviderWarmer: Service {
    /// The providers.
    package let providers: ProviderRegistry
    /// How often to warm again once every provider is warm.
    package var interval: Duration
    /// How soon to try again when a provider could not be warmed.
    var retryInterval: Duration
    private let logger: Logger

    /// Creates a warmer for `providers` (those without the warming capability are skipped).
    public init(
        providers: ProviderRegistry, interval: Duration = .seconds(60), retryInterval: Duration = .seconds(2),
        logger: Logger = Logger(label: "federate.warmer")
    ) {
        self.providers = providers
        self.interval = interval
        self.retryInterval = retryInterval
        self.logger = logger
    }

    /// Warms each provider once; returns the names of those that could not be warmed.
    func warmAll() async -> [String] {
        var failed: [String] = []
        for entry in providers.entries {
            guard let warming = entry.capabilities.warming else { continue }
            do {
                try await warming.warm()
            } catch {
                logger.notice("a provider could not be warmed", metadata: ["provider": "\(entry.name)", "error": "\(error.code)"])
                failed.append(entry.name)
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
