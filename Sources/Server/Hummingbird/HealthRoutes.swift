import Federate
public import FederateServer
public import Hummingbird
public import Logging

/// Health endpoints for an orchestrator's probes, added with one call:
///
/// ```swift
/// HealthRoutes<FederateContext>(readiness: Readiness(configuration: configuration)).register(on: router)
/// ```
///
/// - `GET /healthz`: the process is up and serving — always 200 `{"status": "ok"}`; it
///   touches neither the store nor a provider (a liveness probe).
/// - `GET /readyz`: ready for traffic (`Readiness`) — 200 `{"status": "ready"}`, else 503
///   `{"status": "not_ready", "not_ready": ["store", "provider:google"]}`, naming what is not
///   ready and nothing more (no error text, no secret).
///
/// Both answer `Cache-Control: no-store` and need no session.
public struct HealthRoutes<Context: RequestContext>: Sendable {
    /// What `/readyz` checks.
    package let readiness: Readiness
    /// The liveness path (`/healthz`).
    package let healthPath: String
    /// The readiness path (`/readyz`).
    package let readyPath: String
    private let logger: Logger

    /// Creates the routes.
    public init(
        readiness: Readiness, healthPath: String = "/healthz", readyPath: String = "/readyz",
        logger: Logger = Logger(label: "federate.health")
    ) {
        self.readiness = readiness
        self.healthPath = healthPath
        self.readyPath = readyPath
        self.logger = logger
    }

    /// Registers `GET` the liveness and readiness paths on `router`.
    public func register(on router: Router<Context>) {
        let readiness = self.readiness, logger = self.logger
        router.get(RouterPath(healthPath)) { _, _ in Response(Readiness.liveResponse) }
        router.get(RouterPath(readyPath)) { _, _ in Response(await readiness.readyResponse(logger: logger)) }
    }
}
