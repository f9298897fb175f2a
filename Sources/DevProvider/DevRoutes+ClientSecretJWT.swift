import Federate
import Foundation

extension DevRoutes {
    /// `client_secret_jwt` (RFC 7523, OpenID Connect Core §9): an HS256 assertion keyed by
    /// the client's secret, with the same claim rules as `private_key_jwt`
    /// (`ClaimRules.clientAssertion`), single use.
    func verifySecretAssertion(
        _ assertion: CompactJWS, clientID: String, endpoint: String
    ) async -> Result<DevClient, DevAuthenticationFailure> {
        func fail(_ reason: String) -> Result<DevClient, DevAuthenticationFailure> {
            .failure(DevAuthenticationFailure(reason: "client_assertion refused: " + reason, usedBasic: false))
        }
        guard let client = client(clientID), let secret = client.secret else { return fail("no client with a secret has this iss") }
        guard client.acceptedAuthMethods.contains(.clientSecretJWT) else { return fail("this client may not use client_secret_jwt") }
        let verifier = JWTVerifier(
            rules: .clientAssertion(clientID: client.id, audiences: [baseURL + endpoints.token, endpoint, issuer]),
            allowedAlgorithms: [.hs256], keys: JSONWebKeySet.empty, hmacSecret: HMACSecret(utf8: secret), clockTolerance: .zero,
            clock: configuration.clock)
        do {
            return firstUse(of: try await verifier.verify(assertion), by: client)
        } catch {
            return fail("\(error.code): \(error.message)")
        }
    }
}
