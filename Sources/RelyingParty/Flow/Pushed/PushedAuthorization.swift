package import FederateTokens
public import Foundation

/// A pushed authorization request (RFC 9126): the `request_uri` the provider answered and
/// when it expires. The redirect carries only `client_id` and `request_uri` (and, when asked,
/// `repeatedParameters`).
public struct PushedAuthorization: Sendable, Hashable {
    /// The longest `expires_in` accepted from a provider: one day (RFC 9126 suggests 5 to 600 seconds).
    package static let maximumLifetime: Int64 = 86_400

    /// `request_uri`: it stands for the whole request, so it is as sensitive as one.
    let requestURI: String
    /// After this instant the provider refuses `request_uri`.
    public let expiresAt: Date
    /// The authorization endpoint the redirect goes to.
    package let authorizationEndpoint: String
    /// The client ID.
    package let clientID: String
    /// `response_type`, `scope` and `redirect_uri` when the redirect repeats them
    /// (``AuthorizationDelivery/repeatsRequiredParameters``), else empty.
    var repeatedParameters: [String: String]

    /// Creates the value (normally from the provider's answer).
    init(
        requestURI: String, expiresAt: Date, authorizationEndpoint: String, clientID: String, repeatedParameters: [String: String] = [:]
    ) {
        self.requestURI = requestURI
        self.expiresAt = expiresAt
        self.authorizationEndpoint = authorizationEndpoint
        self.clientID = clientID
        self.repeatedParameters = repeatedParameters
    }

    /// Reads a successful answer (`request_uri`, `expires_in`) received at `now`.
    /// `invalid_pushed_authorization_response` unless `request_uri` is a non-empty string of at
    /// most 2,048 printable ASCII characters and `expires_in` a whole number of seconds from 1 to
    /// ``maximumLifetime``.
    init(answer body: [UInt8], receivedAt now: Date, authorizationEndpoint: String, clientID: String) throws(FederateError) {
        let members: [String: JSONValue]
        do {
            members = try JSONParser().parseObject(body)
        } catch {
            throw FederateError(.invalidPushedAuthorizationResponse, "the pushed-authorization answer is not a JSON object")
        }
        guard case .string(let uri)? = members["request_uri"], !uri.isEmpty, uri.utf8.count <= 2048,
            uri.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else {
            throw FederateError(.invalidPushedAuthorizationResponse, "request_uri is missing or not 1-2048 printable ASCII characters")
        }
        guard
            let lifetime = try ProviderLifetime.seconds(
                "expires_in", in: members, minimum: 1, maximum: Self.maximumLifetime, code: .invalidPushedAuthorizationResponse)
        else {
            throw FederateError(.invalidPushedAuthorizationResponse, "expires_in is missing")
        }
        self.init(requestURI: uri, expiresAt: now.adding(lifetime), authorizationEndpoint: authorizationEndpoint, clientID: clientID)
    }

    /// Whether `request_uri` has expired at `now`.
    func isExpired(at now: Date) -> Bool { now >= expiresAt }

    /// The redirect URL, built at `now`: the authorization endpoint with `client_id` and
    /// `request_uri` (then any ``repeatedParameters``). `request_uri_expired` once ``expiresAt`` has passed.
    package func redirectURL(at now: Date) throws(FederateError) -> String {
        guard !isExpired(at: now) else {
            throw FederateError(.requestURIExpired, "the pushed request_uri expired at \(expiresAt): push the request again")
        }
        let separator = authorizationEndpoint.contains("?") ? "&" : "?"
        let repeated = repeatedParameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return authorizationEndpoint + separator
            + FormURLEncoding.encode([("client_id", clientID), ("request_uri", requestURI)] + repeated)
    }
}
