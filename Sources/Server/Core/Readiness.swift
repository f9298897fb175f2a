package import Federate
public import Logging

/// What `/readyz` checks (`HealthRoutes`): the account store answers a cheap round trip
/// (`AccountStore/ping()`) within the store timeout, and every provider that can say so
/// (`ProviderCapabilities/warming`) has its discovery document and key set in the cache, so the
/// next sign-in or token verification does not wait on the provider. The check itself waits
/// on no provider: when one is cold it answers not ready and starts warming the providers in
/// the background (at most every two seconds), so an application turns ready without a
/// ``ProviderWarmer``; the warmer also keeps them fresh and logs why one cannot be reached.
public struct Readiness: Sendable {
    /// The account store.
    package var store: any AccountStore
    /// The providers.
    package var providers: ProviderRegistry
    /// How long the store may take to answer before it counts as down.
    var storeTimeout: Duration

    /// Checks `store` and `providers`.
    package init(store: any AccountStore, providers: ProviderRegistry, storeTimeout: Duration = .seconds(2)) {
        self.store = store
        self.providers = providers
        self.storeTimeout = storeTimeout
    }

    /// Checks the store and providers that `configuration` serves.
    public init(configuration: FederateServerConfiguration, storeTimeout: Duration = .seconds(2)) {
        self.init(store: configuration.accounts.store, providers: configuration.providers, storeTimeout: storeTimeout)
    }

    /// The checks that fail, by name, sorted: `store` when the store does not answer in
    /// time, `provider:NAME` for each provider whose discovery document or key set is not
    /// cached. Empty when ready. Names only: no error text, nothing secret.
    func failingChecks(logger: Logger? = nil) async -> [String] {
        let store = self.store
        let storeAnswer = await withDeadline(storeTimeout) { () async -> FederateError.Code? in
            do throws(FederateError) {
                try await store.ping()
                return nil
            } catch {
                return error.code
            }
        }
        var failing: [String] = []
        switch storeAnswer {
        case .some(.none): break
        case .some(.some(let code)):
            logger?.notice("readiness: the account store failed", metadata: ["error": "\(code)"])
            failing.append("store")
        case .none:
            logger?.notice("readiness: the account store did not answer in time", metadata: ["timeout": "\(storeTimeout)"])
            failing.append("store")
        }
        for entry in providers.entries where entry.capabilities.warming?.isWarm == false {
            failing.append("provider:" + entry.name)
        }
        if failing.contains(where: { $0.hasPrefix("provider:") }) { providers.warmInBackground() }
        return failing
    }
}

extension Readiness {
    /// `GET /healthz`'s answer: always 200 `{"status": "ok"}`, touching neither the store nor a
    /// provider (a liveness probe).
    public static var liveResponse: ServerResponse { .json(["status": "ok"]) }

    /// `GET /readyz`'s answer: 200 `{"status": "ready"}`, else 503
    /// `{"status": "not_ready", "not_ready": ["store", "provider:google"]}`: the checks that fail, by name.
    public func readyResponse(logger: Logger? = nil) async -> ServerResponse {
        let failing = await failingChecks(logger: logger)
        guard failing.isEmpty else {
            return .json(["status": "not_ready", "not_ready": .array(failing.map(JSONValue.string))], status: .serviceUnavailable)
        }
        return .json(["status": "ready"])
    }
}
