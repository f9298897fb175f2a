import FederateServer
public import Vapor

/// Answers every Federate error a handler throws as Federate answers it everywhere:
/// `{"error": CODE, "message": TEXT}` with the error's status and headers (a `FederateError`,
/// a `FederateHTTPError`, a `BearerChallenge` with its `WWW-Authenticate`), instead of Vapor's
/// `{"error": true, "reason": …}`. Other errors go on to Vapor's `ErrorMiddleware`.
///
/// ```swift
/// app.middleware.use(FederateErrorMiddleware())
/// ```
///
/// Federate's own routes and middleware answer their refusals themselves; this one is for
/// your handlers (`try await accounts.unlink(…)` throwing `requires_recent_login`).
public struct FederateErrorMiddleware: AsyncMiddleware {
    /// Creates the middleware.
    public init() {}

    public func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        do {
            return try await next.respond(to: request)
        } catch let error as any ServerResponseError {
            return Response(error.serverResponse)
        }
    }
}
