public import Federate
import Hummingbird

/// The RFC 9470 (OAuth 2.0 Step Up Authentication Challenge) answer to a caller whose
/// authentication is not strong or recent enough: 401 with
/// `WWW-Authenticate: Bearer error="insufficient_user_authentication"`, the `acr_values`
/// that would do and the `max_age`, so the client can send the user to sign in again.
public struct StepUpChallenge: Sendable, Hashable {
    /// The RFC 9470 error code.
    public static let errorCode = "insufficient_user_authentication"

    /// The `acr` values that would meet the requirement, in order of preference.
    public var acrValues: [String]
    /// The longest acceptable time since the authentication.
    public var maxAge: Duration?
    /// A short human-readable reason (`error_description`).
    public var description: String

    /// Creates a challenge.
    public init(acrValues: [String] = [], maxAge: Duration? = nil, description: String) {
        self.acrValues = acrValues
        self.maxAge = maxAge
        self.description = description
    }

    /// The `WWW-Authenticate` header value. Quoted values keep to RFC 6750's character set
    /// (`"` and `\` are dropped, as are characters outside printable ASCII).
    public var headerValue: String {
        var parameters = ["error=\"\(Self.errorCode)\"", "error_description=\"\(Self.quoted(description))\""]
        if !acrValues.isEmpty { parameters.append("acr_values=\"\(Self.quoted(acrValues.joined(separator: " ")))\"") }
        if let maxAge { parameters.append("max_age=\(maxAge.wholeSeconds)") }
        return "Bearer " + parameters.joined(separator: ", ")
    }

    /// The error to throw from a handler or middleware: 401, the JSON body of `error` and the header.
    public func error(_ error: FederateError) -> FederateHTTPError {
        FederateHTTPError(.unauthorized, error, headers: [.wwwAuthenticate: headerValue])
    }

    private static func quoted(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "\\" }))
    }
}
