package import Tracing

/// Spans around Federate's operations: one helper, so every span ends, carries its outcome
/// the same way, and records no secret.
extension Observability {
    /// The attribute every Federate span ends with: `ok`, or the ``FederateError/Code``.
    static let outcomeAttribute = "federate.outcome"

    /// Runs `operation` in a span named `name`, the current span its parent, and the span the
    /// parent of the spans `operation` starts. `attributes` are computed only when tracing;
    /// they must hold no secret (no token, code, nonce, state, secret or email). A refusal sets
    /// the span's status to error with the error's code, never its message.
    package nonisolated(nonsending) func span<T>(
        _ name: String, kind: SpanKind = .internal, attributes: @autoclosure () -> SpanAttributes = [:],
        _ operation: nonisolated(nonsending) () async throws(FederateError) -> T
    ) async throws(FederateError) -> T {
        guard isTracing else { return try await operation() }
        let span = tracer.startSpan(name, context: InstrumentationContext.current ?? .topLevel, ofKind: kind)
        span.attributes = attributes()
        let result: Result<T, FederateError> = await InstrumentationContext.$current.withValue(span.context) {
            do throws(FederateError) {
                return .success(try await operation())
            } catch {
                return .failure(error)
            }
        }
        Self.end(span, refusal: result.refusal)
        return try result.get()
    }

    /// Runs the synchronous `operation` in a span named `name` (a leaf: it starts no span).
    package func span<T>(
        _ name: String, kind: SpanKind = .internal, attributes: @autoclosure () -> SpanAttributes = [:],
        _ operation: () throws(FederateError) -> T
    ) throws(FederateError) -> T {
        guard isTracing else { return try operation() }
        let span = tracer.startSpan(name, context: InstrumentationContext.current ?? .topLevel, ofKind: kind)
        span.attributes = attributes()
        let result = Result { () throws(FederateError) in try operation() }
        Self.end(span, refusal: result.refusal)
        return try result.get()
    }

    private static func end(_ span: any Span, refusal: FederateError.Code?) {
        if let refusal {
            span.attributes[outcomeAttribute] = refusal.rawValue
            span.setStatus(SpanStatus(code: .error, message: refusal.rawValue))
        } else {
            span.attributes[outcomeAttribute] = "ok"
        }
        span.end()
    }
}

extension Result where Failure == FederateError {
    /// The error's code, or `nil` on success.
    package var refusal: FederateError.Code? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}
