import FederateRelyingParty
public import FederateTokens
import Foundation

/// Google App Flip: account linking started from a Google app (Google Home, Assistant) that
/// opens your app's universal link, and the return link your app opens afterwards.
public struct AppFlip: Sendable {
    /// The Google app bundle IDs whose redirect URIs are accepted.
    static let googleAppBundleIDs: Set<String> = [
        "com.google.Chromecast", "com.google.Chromecast.dev", "com.google.Chromecast.enterprise",
        "com.google.OPA", "com.google.OPA.dev", "com.google.OPA.enterprise",
    ]
    /// The two redirect hosts (production and sandbox).
    static let redirectPrefixes = [
        "https://oauth-redirect.googleusercontent.com/a/", "https://oauth-redirect-sandbox.googleusercontent.com/a/",
    ]

    /// The errors the return link can carry.
    public enum ErrorCode: Sendable, CaseIterable {
        /// The user backed out; Google falls back to the browser flow.
        case cancelled
        /// Something failed that a retry will not fix.
        case unrecoverable
        /// The request was malformed or the client could not be verified; Google falls back.
        case invalidRequest
        /// The user refused; linking stops.
        case accessDenied

        /// The `error` value sent back.
        package var rawValue: String {
            switch self {
            case .cancelled: "cancelled"
            case .unrecoverable: "unrecoverable"
            case .invalidRequest: "invalid_request"
            case .accessDenied: "access_denied"
            }
        }
    }

    /// A validated incoming request.
    public struct Request: Sendable, Hashable {
        /// The client ID Google sent (equal to the expected one).
        package let clientID: String
        /// The requested scopes.
        public let scopes: [String]
        /// The state to return exactly.
        package let state: String
        /// Where to send the user back.
        package let redirectURI: String
    }

    /// The client ID your app expects.
    package let clientID: String

    /// Creates a validator for `clientID`.
    public init(clientID: String) {
        self.clientID = clientID
    }

    /// What validating an incoming universal link gave.
    public enum Validation: Sendable, Equatable {
        /// Go on: ask the user, then answer with ``returnURL(for:code:)``.
        case valid(Request)
        /// Answer at once with this URL (`invalid_request` to the redirect URI).
        case rejected(returnURL: String)
        /// No acceptable redirect URI: there is nowhere safe to answer; show an error in the app.
        case unusable(FederateError)
    }

    /// Validates the query of the universal link Google's app opened.
    public func validate(query: String) -> Validation {
        let parameters: [String: String]
        do {
            parameters = try FormURLEncoding.decode(query)
        } catch {
            return .unusable(error)
        }
        guard let redirectURI = parameters["redirect_uri"], Self.isAllowedRedirect(redirectURI) else {
            return .unusable(FederateError(.invalidRequest, "App Flip redirect_uri is not a Google app's oauth-redirect URL"))
        }
        let state = parameters["state"]
        guard parameters["client_id"] == clientID else {
            return .rejected(returnURL: Self.errorURL(redirectURI, .invalidRequest, "unknown client_id", state: state))
        }
        guard let state, !state.isEmpty else {
            return .rejected(returnURL: Self.errorURL(redirectURI, .invalidRequest, "state is missing", state: nil))
        }
        let scopes = (parameters["scope"] ?? "").split(separator: " ").map(String.init)
        return .valid(Request(clientID: clientID, scopes: scopes, state: state, redirectURI: redirectURI))
    }

    /// The success link: `code` and the exact `state`.
    public func returnURL(for request: Request, code: String) -> String {
        Self.append(request.redirectURI, [("code", code), ("state", request.state)])
    }

    /// The failure link: `error`, optional `error_description`, and the `state`.
    public func returnURL(for request: Request, error: ErrorCode, description: String? = nil) -> String {
        Self.errorURL(request.redirectURI, error, description, state: request.state)
    }

    /// Whether `uri` is `https://oauth-redirect[-sandbox].googleusercontent.com/a/<Google app bundle ID>`.
    static func isAllowedRedirect(_ uri: String) -> Bool {
        redirectPrefixes.contains { prefix in
            uri.hasPrefix(prefix) && googleAppBundleIDs.contains(String(uri.dropFirst(prefix.count)))
        }
    }

    private static func errorURL(_ redirectURI: String, _ error: ErrorCode, _ description: String?, state: String?) -> String {
        var pairs = [("error", error.rawValue)]
        if let description { pairs.append(("error_description", description)) }
        if let state { pairs.append(("state", state)) }
        return append(redirectURI, pairs)
    }

    private static func append(_ uri: String, _ pairs: [(String, String)]) -> String {
        uri + (uri.contains("?") ? "&" : "?") + FormURLEncoding.encode(pairs)
    }
}
