/// Verifies ID tokens: structure, signature (with key rotation), then claims.
///
/// ```swift
/// let metadata = try await DiscoveryClient().metadata(for: "https://accounts.example.com")
/// let verifier = try IDTokenVerifier(
///     policy: IDTokenPolicy(metadata: metadata, clientID: "my-client"),
///     keys: RemoteKeySet(url: metadata.jwksURI))
/// let idToken = try await verifier.verify(token, expecting: .init(nonce: nonce))
/// ```
///
/// A verifier is a value: share it freely across tasks. Verification takes no lock beyond
/// the key cache's brief read, so it scales across cores.
public struct IDTokenVerifier: Sendable {
    /// The rules applied.
    public let policy: IDTokenPolicy
    /// Where keys come from.
    public let keys: any KeySetProvider

    /// Creates a verifier.
    public init(policy: IDTokenPolicy, keys: any KeySetProvider) {
        self.policy = policy
        self.keys = keys
    }

    /// Verifies `token`. On an unknown `kid`, asks the key provider for a refreshed set once
    /// (rate-limited there) and retries. Throws ``FederateError``.
    public func verify(_ token: String, expecting expectations: IDTokenExpectations = IDTokenExpectations()) async throws -> IDToken {
        let jws = try CompactJWS(parsing: token, limits: policy.limits)
        let signatureVerifier = JWSSignatureVerifier(allowedAlgorithms: policy.allowedAlgorithms, hmacSecret: policy.hmacSecret)
        let result = try await keys.verifySignature(of: jws, with: signatureVerifier)
        return try validateClaims(of: jws, signature: result, expectations: expectations)
    }

    /// Verifies `token` against a key set in hand, synchronously (no refetch).
    public func verify(
        _ token: String, keySet: JSONWebKeySet, expecting expectations: IDTokenExpectations = IDTokenExpectations()
    ) throws(FederateError) -> IDToken {
        let jws = try CompactJWS(parsing: token, limits: policy.limits)
        let signatureVerifier = JWSSignatureVerifier(allowedAlgorithms: policy.allowedAlgorithms, hmacSecret: policy.hmacSecret)
        let result = try signatureVerifier.verify(jws, keySet: keySet)
        return try validateClaims(of: jws, signature: result, expectations: expectations)
    }

    private func validateClaims(
        of jws: CompactJWS, signature: JWSSignatureVerifier.Result, expectations: IDTokenExpectations
    ) throws(FederateError) -> IDToken {
        let claims: [String: JSONValue]
        do {
            claims = try JSONParser(limits: .init(maxBytes: policy.limits.maxTokenBytes, maxDepth: policy.limits.maxJSONDepth))
                .parseObject(jws.payload)
        } catch {
            throw FederateError(.malformedToken, "the payload is not a JSON object (\(error))")
        }
        return try IDTokenClaimsValidator(policy: policy, expectations: expectations)
            .validate(claims: claims, header: jws.header, signature: signature)
    }
}
