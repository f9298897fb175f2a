import CoreMetrics
import FederateTokens

/// The metrics of one ``AccountService``, created once with it:
///
/// - `federate_account_operations_total{operation, provider, outcome}`: sign-ins, links and
///   reauthentications by provider ID and outcome (`ok` or the error code);
/// - `federate_account_operation_duration_seconds{operation}`: a timer per operation.
///
/// - `federate_provider_token_operations_total{operation, provider, outcome}`: refreshes and
///   revocations of kept provider tokens.
///
/// Session verifications count as `federate_verifications_total{kind="session"}`.
struct AccountMetrics: Sendable {
    /// An operation counted, and its span's name.
    enum Operation: String, CaseIterable, Sendable {
        case signIn = "sign_in"
        case link
        case reauthenticate

        var spanName: String { "federate.account.\(rawValue)" }
    }

    static let countLabel = "federate_account_operations_total"
    static let durationLabel = "federate_account_operation_duration_seconds"

    let operations: CounterFamily
    let signInDuration: CoreMetrics.Timer
    let linkDuration: CoreMetrics.Timer
    let reauthenticateDuration: CoreMetrics.Timer
    let sessions: VerificationMetrics
    /// `federate_provider_token_operations_total{operation, provider, outcome}`: refreshes and
    /// revocations of kept provider tokens, by outcome (`ok` or the error code).
    let providerTokens: CounterFamily

    init(observability: Observability) {
        operations = observability.counters(Self.countLabel, keys: ["operation", "provider", "outcome"])
        signInDuration = observability.timer(Self.durationLabel, dimensions: [("operation", Operation.signIn.rawValue)])
        linkDuration = observability.timer(Self.durationLabel, dimensions: [("operation", Operation.link.rawValue)])
        reauthenticateDuration = observability.timer(Self.durationLabel, dimensions: [("operation", Operation.reauthenticate.rawValue)])
        sessions = observability.verifications(of: .session)
        providerTokens = observability.counters("federate_provider_token_operations_total", keys: ["operation", "provider", "outcome"])
    }

    /// Counts one `operation` with `providerID` that took `elapsed`.
    func record(_ operation: Operation, providerID: String, refusal: FederateError.Code?, elapsed: Duration) {
        let timer: CoreMetrics.Timer
        switch operation {
        case .signIn: timer = signInDuration
        case .link: timer = linkDuration
        case .reauthenticate: timer = reauthenticateDuration
        }
        timer.recordNanoseconds(elapsed.metricNanoseconds)
        operations.increment(operation.rawValue, providerID, refusal?.rawValue ?? "ok")
    }
}
