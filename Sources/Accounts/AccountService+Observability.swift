import FederateTokens
import Tracing

extension AccountService {
    /// Runs `body`, one account operation with `providerID`'s credential, in its span
    /// (`federate.account.<operation>`, attributes: the provider ID and the outcome code) and
    /// counts it (``AccountMetrics``).
    func observed<T>(
        _ operation: AccountMetrics.Operation, providerID: String, _ body: () async throws(FederateError) -> T
    ) async throws(FederateError) -> T {
        let start = clock.instant
        let result: Result<T, FederateError>
        do throws(FederateError) {
            result = .success(try await observability.span(operation.spanName, attributes: ["federate.provider": .string(providerID)], body))
        } catch {
            result = .failure(error)
        }
        metrics.record(operation, providerID: providerID, refusal: result.refusal, elapsed: clock.instant - start)
        return try result.get()
    }

    /// Runs `body`, a session verification, in a `federate.session.verify` span and counts it
    /// as `federate_verifications_total{kind="session"}`.
    func observedSessionVerification<T>(_ body: () async throws(FederateError) -> T) async throws(FederateError) -> T {
        let start = clock.instant
        let result: Result<T, FederateError>
        do throws(FederateError) {
            result = .success(try await observability.span(metrics.sessions.spanName, body))
        } catch {
            result = .failure(error)
        }
        metrics.sessions.record(refusal: result.refusal, elapsed: clock.instant - start)
        return try result.get()
    }
}
