public import FederateTokens
package import Foundation

/// The parameters of an authorization response, from a redirect's query or fragment, or
/// from a `form_post` body.
public struct AuthorizationResponse: Sendable, CustomStringConvertible {
    /// The decoded parameters (each at most once).
    public let parameters: [String: String]

    /// Wraps already-decoded parameters.
    package init(parameters: [String: String]) { self.parameters = parameters }

    /// Parses a query string (without `?`). Duplicated parameters are refused.
    public init(query: String) throws(FederateError) { parameters = try FormURLEncoding.decode(query) }

    /// Parses a fragment (without `#`).
    package init(fragment: String) throws(FederateError) { parameters = try FormURLEncoding.decode(fragment) }

    /// Parses an `application/x-www-form-urlencoded` `form_post` body.
    public init(formBody: [UInt8]) throws(FederateError) {
        guard let text = String(validating: formBody, as: UTF8.self) else {
            throw FederateError(.invalidCallback, "the form body is not UTF-8")
        }
        parameters = try FormURLEncoding.decode(text)
    }

    /// Parses the full redirect URL the browser arrived at (query, else fragment).
    public init(redirectURL: String) throws(FederateError) {
        guard let components = URLComponents(string: redirectURL) else {
            throw FederateError(.invalidCallback, "the redirect URL is malformed")
        }
        if let query = components.percentEncodedQuery, !query.isEmpty {
            try self.init(query: query)
        } else if let fragment = components.percentEncodedFragment {
            try self.init(fragment: fragment)
        } else {
            self.init(parameters: [:])
        }
    }

    /// Redacted: the code and state are secrets.
    public var description: String { "AuthorizationResponse(parameters: \(parameters.keys.sorted()))" }

    /// Checks the response against what was sent and returns the authorization code.
    ///
    /// In order: the pending authorization has not expired; an OAuth `error` becomes a
    /// `FederateError` with `FederateError/providerError` (after the state and issuer
    /// checks, when those parameters are present); `state` equals the one sent (constant
    /// time); the RFC 9207 `iss` is present when the provider advertises it and equals the
    /// issuer whenever present; `code` is present.
    package func validate(against pending: PendingAuthorization, metadata: ProviderMetadata, now: Date) throws(FederateError) -> String {
        try validate(
            against: pending, issuer: metadata.issuer, issParameterSupported: metadata.authorizationResponseIssParameterSupported, now: now)
    }

    /// Checks the response against what was sent to the authorization server `issuer`, which
    /// advertises RFC 9207 when `issParameterSupported`, and returns the authorization code:
    /// the checks of ``validate(against:metadata:now:)``, for an OAuth 2.0 server without an
    /// OpenID discovery document.
    package func validate(
        against pending: PendingAuthorization, issuer: String, issParameterSupported: Bool, now: Date
    ) throws(FederateError) -> String {
        guard !pending.isExpired(at: now) else {
            throw FederateError(.invalidPendingAuthorization, "the authorization expired; start again")
        }
        guard issuer.exactlyEquals(pending.issuer) else {
            throw FederateError(.callbackIssuerMismatch, "the callback is being handled with another provider's configuration")
        }
        let state = parameters["state"]
        if let error = parameters["error"] {
            if let state, !ConstantTime.equals(state, pending.state) {
                throw FederateError(.stateMismatch, "the callback's state differs from the one sent")
            }
            try checkIssuer(issuer, required: issParameterSupported)
            throw FederateError(
                providerError: ProviderError(code: error, description: parameters["error_description"], uri: parameters["error_uri"]))
        }
        guard let state else { throw FederateError(.stateMismatch, "the callback has no state") }
        guard ConstantTime.equals(state, pending.state) else {
            throw FederateError(.stateMismatch, "the callback's state differs from the one sent")
        }
        try checkIssuer(issuer, required: issParameterSupported)
        guard let code = parameters["code"], !code.isEmpty else {
            throw FederateError(.invalidCallback, "the callback has no code")
        }
        return code
    }

    private func checkIssuer(_ issuer: String, required: Bool) throws(FederateError) {
        if let iss = parameters["iss"] {
            guard iss.exactlyEquals(issuer) else {
                throw FederateError(
                    .callbackIssuerMismatch, "the callback's iss '\(iss.prefix(200))' is not the issuer the request went to")
            }
        } else if required {
            throw FederateError(.callbackIssuerMismatch, "the provider advertises RFC 9207 but the callback has no iss")
        }
    }
}
