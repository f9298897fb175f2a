public import Federate
public import Hummingbird

/// Requires `Authorization: Bearer ID_TOKEN` verified by `verifier`, and records who the
/// caller is in ``FederateAuthentication/bearer``. Mount it on the routes that receive ID
/// tokens from apps, with the verifier of the provider those apps use.
///
/// Refusals are 401 with `WWW-Authenticate: Bearer error="invalid_request"` (no token) or
/// `error="invalid_token"` (a token that fails verification), and a JSON body with the
/// Federate error code (RFC 6750 §3).
public struct BearerAuthenticationMiddleware<Context: FederateRequestContext>: RouterMiddleware {
    /// Verifies the tokens.
    public let verifier: any BearerTokenVerifier

    /// Creates the middleware.
    public init(verifier: any BearerTokenVerifier) {
        self.verifier = verifier
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token = BearerToken.from(request.headers[.authorization]) else {
            throw FederateHTTPError(
                .unauthorized, code: .missingBearerToken, message: "send Authorization: Bearer ID_TOKEN",
                headers: [.wwwAuthenticate: "Bearer error=\"invalid_request\""])
        }
        var context = context
        do throws(FederateError) {
            context.federate.bearer = try await verifier.verifyBearer(token)
        } catch {
            throw FederateHTTPError(.unauthorized, error, headers: [.wwwAuthenticate: "Bearer error=\"invalid_token\""])
        }
        return try await next(request, context)
    }
}
