import FederateTokens
import Tracing

extension AccountService {
    /// Runs `body`, one account operation with `providerID`'s credential, in its span
    /// (`federate.account.<operation>`, attributes: the provider ID and the outcome code) and
    /// counts it (`AccountMetrics`).
    func observed<T>(
        _ operation: AccountMetrics.Operation, providerID: String, _ body: () async throws(FederateError) -> T
    ) async throws(FederateError) -> T {
        let start = clock.instant
        do throws(FederateError) {
            let value = try await observability.span(operation.spanName, attributes: ["federate.provider": .string(providerID)], body)
            metrics.record(operation, providerID: providerID, refusal: nil, elapsed: clock.instant - start)
            return value
        } catch {
            metrics.record(operation, providerID: providerID, refusal: error.code, elapsed: clock.instant - start)
            throw error
        }
    }

    /// Runs `body`, a session verification, in a `federate.session.verify` span and counts it
    /// as `federate_verifications_total{kind="session"}`.
    func observedSessionVerification<T>(_ body: () async throws(FederateError) -> T) async throws(FederateError) -> T {
        let start = clock.instant
        // No `Result` round trip: moving the session through one copied and released every field.
        do throws(FederateError) {
            let value = try await observability.span(metrics.sessions.spanName, body)
            metrics.sessions.record(refusal: nil, elapsed: clock.instant - start)
            return value
        } catch {
            metrics.sessions.record(refusal: error.code, elapsed: clock.instant - start)
            throw error
        }
    }
}
