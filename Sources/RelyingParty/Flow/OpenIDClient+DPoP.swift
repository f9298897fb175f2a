package import FederateTokens

extension OpenIDClient {
    /// This client, proving possession of `signer`'s key with DPoP (RFC 9449) on its token,
    /// refresh and UserInfo requests, and naming it in authorization requests (`dpop_jkt`,
    /// §10). `nil` turns DPoP off (the default).
    ///
    /// The provider then binds its tokens to the key (`token_type` `DPoP`). A client with a key
    /// retries a request once when the server asks for a nonce (`use_dpop_nonce`), and
    /// remembers the nonce for the next request.
    public func withDPoP(_ signer: DPoPProofSigner?) -> OpenIDClient {
        var copy = self
        copy.dpop = signer
        return copy
    }

    /// Sends the request `build` makes, with a fresh DPoP proof (for `accessToken`, if any)
    /// when this client has a key; when the server asks for a nonce it did not have, builds
    /// and sends it once more with one.
    func exchangeWithDPoP(
        _ build: () throws(FederateError) -> HTTPRequest, accessToken: String? = nil, refusedForNonce: (HTTPResponse) -> Bool
    ) async throws(FederateError) -> HTTPResponse {
        guard let dpop else { return try await httpClient.exchange(try build()) }
        return try await dpop.exchange(build, accessToken: accessToken, httpClient: httpClient, refusedForNonce: refusedForNonce)
    }

    /// ``exchangeWithDPoP(_:accessToken:refusedForNonce:)`` for a request built already.
    func exchangeWithDPoP(
        _ request: HTTPRequest, accessToken: String? = nil, refusedForNonce: (HTTPResponse) -> Bool
    ) async throws(FederateError) -> HTTPResponse {
        try await exchangeWithDPoP({ () throws(FederateError) in request }, accessToken: accessToken, refusedForNonce: refusedForNonce)
    }

    /// Whether a token endpoint refused with `use_dpop_nonce` (RFC 9449 §8: HTTP 400).
    static func tokenEndpointAsksForNonce(_ response: HTTPResponse) -> Bool {
        AuthorizationServerCalls.tokenEndpointAsksForNonce(response)
    }

    /// The `Authorization` scheme for an access token of `tokenType`: `DPoP` for a
    /// DPoP-bound token (which needs this client's key), else `Bearer`.
    func authorizationScheme(for tokenType: String?) throws(FederateError) -> String {
        let bound = tokenType.map { $0.caseInsensitiveEquals("DPoP") } ?? (dpop != nil)
        guard bound else { return "Bearer" }
        guard dpop != nil else {
            throw FederateError(.invalidConfiguration, "a DPoP-bound access token needs the client's DPoP key (OpenIDClient.withDPoP)")
        }
        return "DPoP"
    }

    /// Calls UserInfo with an access token of `tokenType` (`Bearer`, or `DPoP` with a proof
    /// of this client's key); `nil` uses DPoP when this client has a key. Its `sub` must equal
    /// `expectedSubject`. Accepts JSON, or a signed JWT verified with the provider's keys.
    package func userInfo(
        accessToken: String, tokenType: String?, expectedSubject: String
    ) async throws(FederateError) -> JSONMembers {
        try await observability.span("federate.userinfo", attributes: ["federate.issuer": .string(metadata.issuer)]) {
            () async throws(FederateError) in
            try await fetchUserInfo(accessToken: accessToken, tokenType: tokenType, expectedSubject: expectedSubject)
        }
    }
}
