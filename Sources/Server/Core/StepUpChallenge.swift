public import Federate
import HTTPTypes

/// The RFC 9470 (OAuth 2.0 Step Up Authentication Challenge) answer to a caller whose
/// authentication is not strong or recent enough: 401 with
/// `WWW-Authenticate: Bearer error="insufficient_user_authentication"`, the `acr_values`
/// that would do and the `max_age`, so the client can send the user to sign in again.
public struct StepUpChallenge: Sendable, Hashable {
    /// The RFC 9470 error code.
    package static let errorCode = "insufficient_user_authentication"

    /// The `acr` values that would meet the requirement, in order of preference.
    package var acrValues: [String]
    /// The longest acceptable time since the authentication.
    package var maxAge: Duration?
    /// A short human-readable reason (`error_description`).
    package var description: String

    /// Creates a challenge.
    public init(acrValues: [String] = [], maxAge: Duration? = nil, description: String) {
        self.acrValues = acrValues
        self.maxAge = maxAge
        self.description = description
    }

    /// The `WWW-Authenticate` challenge: `Bearer error="insufficient_user_authentication",
    /// error_description="…", acr_values="…", max_age=N`, and `resource_metadata` when the API
    /// publishes RFC 9728 metadata.
    func challenge(resourceMetadata: String? = nil) -> AuthenticationChallenge {
        var parameters: [AuthenticationChallenge.Parameter] = [.init("error", Self.errorCode), .init("error_description", description)]
        if !acrValues.isEmpty { parameters.append(.init("acr_values", acrValues.joined(separator: " "))) }
        if let maxAge { parameters.append(.init("max_age", String(maxAge.wholeSeconds), quoted: false)) }
        if let resourceMetadata { parameters.append(.init("resource_metadata", resourceMetadata)) }
        return AuthenticationChallenge(scheme: "Bearer", parameters: parameters)
    }

    /// The `WWW-Authenticate` header value, without `resource_metadata`.
    public var headerValue: String { challenge().headerValue }

    /// The error to throw from a handler or middleware: 401, the JSON body of `error` and the
    /// header (with `resource_metadata` when given).
    public func error(_ error: FederateError, resourceMetadata: String? = nil) -> FederateHTTPError {
        FederateHTTPError(.unauthorized, error, headers: [.wwwAuthenticate: challenge(resourceMetadata: resourceMetadata).headerValue])
    }
}
