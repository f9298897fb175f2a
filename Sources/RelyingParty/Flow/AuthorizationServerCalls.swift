import FederateTokens
import Foundation
import Logging
import Tracing

/// How one client calls its authorization server's endpoints (token, revocation): client
/// authentication, a DPoP proof with one retry for a nonce when the client has a key, a
/// `federate.token_exchange` span, logs that name the endpoint and the grant type but never a
/// form value, and a provider's refusal as its OAuth error. Written once for ``OpenIDClient``,
/// ``OAuthClient`` and ``ServiceTokenClient``.
struct AuthorizationServerCalls: Sendable {
    let issuer: String
    /// Where the requests may connect (the private-network rule of the issuer).
    let destination: DestinationPolicy
    let clientID: String
    let authentication: ClientAuthentication
    let httpClient: any HTTPClient
    let dpop: DPoPProofSigner?
    let clock: FederateClock
    let logger: Logger
    let observability: Observability
    let explain: @Sendable (FederateError) -> FederateError

    /// One request to the token endpoint, in a `federate.token_exchange` span (its grant type,
    /// never a form value). A 200 whose body is an OAuth error (GitHub answers so) is that error.
    func postToTokenEndpoint(_ form: [(String, String)], endpoint: String) async throws(FederateError) -> TokenResponse {
        let response = try TokenResponse(parsing: try await postForTokens(form, endpoint: endpoint))
        try checkBinding(response.tokenType)
        return response
    }

    /// A `DPoP` token to a client without a DPoP key is refused (`invalid_token_response`): it
    /// could never be presented, and sent as a bearer token it would be refused or, worse,
    /// taken. The one rule for every token answer of every client.
    func checkBinding(_ tokenType: String) throws(FederateError) {
        if tokenType.caseInsensitiveEquals("DPoP"), dpop == nil {
            throw FederateError(.invalidTokenResponse, "the server issued a DPoP-bound token to a client without a DPoP key")
        }
    }

    /// ``postToTokenEndpoint(_:endpoint:)`` up to the successful body, for answers that are
    /// not a plain token response (token exchange's `issued_token_type`, `N_A` token types).
    func postForTokens(_ form: [(String, String)], endpoint: String) async throws(FederateError) -> [UInt8] {
        let grantType = form.first { $0.0 == "grant_type" }?.1 ?? "-"
        return try await observability.span(
            "federate.token_exchange", kind: .client,
            attributes: ["federate.issuer": .string(issuer), "federate.grant_type": .string(grantType)]
        ) { () async throws(FederateError) in
            let response = try await postForm(form, to: endpoint, proving: true)
            guard response.status == 200 else {
                throw logged(Self.errorFromResponse(response, endpoint: "token endpoint"), endpoint: endpoint)
            }
            // An answer that names an error is that error, whatever else it holds (an `access_token` too).
            if let object = try? JSONParser().parseObject(response.body), case .string? = object["error"] {
                throw logged(Self.errorFromResponse(response, endpoint: "token endpoint"), endpoint: endpoint)
            }
            return response.body
        }
    }

    /// POSTs `form` to `endpoint` with the client's authentication; `proving`: with a DPoP
    /// proof when the client has a key (token endpoint), retried once for a nonce.
    func postForm(_ form: [(String, String)], to endpoint: String, proving: Bool = false) async throws(FederateError) -> HTTPResponse {
        // Built per attempt: a retry for a DPoP nonce needs a fresh client assertion too.
        let build = { () throws(FederateError) -> HTTPRequest in
            var form = form
            var headers: [(name: String, value: String)] = [
                ("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json"),
            ]
            try authentication.apply(clientID: clientID, endpoint: endpoint, form: &form, headers: &headers, now: clock.now)
            return HTTPRequest(
                method: "POST", url: endpoint, headers: headers, body: Array(FormURLEncoding.encode(form).utf8), destination: destination)
        }
        // Only the endpoint, the grant type and the method: never a form value that is a secret.
        logger.debug(
            "request to the provider",
            metadata: [
                "endpoint": "\(endpoint)", "grant_type": "\(form.first { $0.0 == "grant_type" }?.1 ?? "-")",
                "client_authentication": "\(authentication.methodName)", "dpop": "\(proving && dpop != nil)",
            ])
        guard proving, let dpop else { return try await httpClient.exchange(try build()) }
        return try await dpop.exchange(build, httpClient: httpClient, refusedForNonce: Self.tokenEndpointAsksForNonce)
    }

    /// Logs a provider's refusal (its code only: descriptions are the provider's free text) and returns it.
    func logged(_ error: FederateError, endpoint: String) -> FederateError {
        logger.notice("the provider refused", metadata: ["endpoint": "\(endpoint)", "error": "\(error.code)"])
        return explain(error)
    }

    /// An OAuth error response as a FederateError with its provider error, else an unexpected status.
    static func errorFromResponse(_ response: HTTPResponse, endpoint: String) -> FederateError {
        if let object = try? JSONParser().parseObject(response.body), case .string(let code)? = object["error"] {
            return FederateError(
                providerError: ProviderError(
                    code: code, description: object["error_description"]?.stringValue, uri: object["error_uri"]?.stringValue))
        }
        return FederateError(.unexpectedStatus, "the \(endpoint) answered HTTP \(response.status)")
    }

    /// Whether a token endpoint refused with `use_dpop_nonce` (RFC 9449 §8: HTTP 400).
    static func tokenEndpointAsksForNonce(_ response: HTTPResponse) -> Bool {
        guard response.status == 400, let object = try? JSONParser().parseObject(response.body) else { return false }
        return object["error"]?.stringValue == "use_dpop_nonce"
    }
}

extension DPoPProofSigner {
    /// Sends the request `build` makes with a fresh proof of this key (for `accessToken`, if
    /// any); when the server asks for a nonce it did not have, builds and sends it once more.
    func exchange(
        _ build: () throws(FederateError) -> HTTPRequest, accessToken: String? = nil, httpClient: any HTTPClient,
        refusedForNonce: (HTTPResponse) -> Bool
    ) async throws(FederateError) -> HTTPResponse {
        var retried = false
        while true {
            var request = try build()
            request.headers.removeAll { $0.name.caseInsensitiveEquals("DPoP") }
            request.headers.append(("DPoP", try proof(method: request.method, url: request.url, accessToken: accessToken)))
            let response = try await httpClient.exchange(request)
            let fresh = remember(nonceFrom: response, of: request.url)
            if retried || !fresh || !refusedForNonce(response) { return response }
            retried = true
        }
    }
}
