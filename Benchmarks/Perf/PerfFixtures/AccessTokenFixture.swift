// An RFC 9068 access token and its verifier, for comparing one access-token verification
// with one ID-token verification (issue 17: an access token must cost no more).

public import Federate
import Foundation

/// An RS256 access token for `Fixture.resource`, its key set and a warm verifier.
public struct AccessTokenFixture: @unchecked Sendable {
    /// The API's resource identifier.
    public static let resource = "https://api.bench.federate.dev"

    public let rsaToken: String
    public let keySet: JSONWebKeySet
    public let verifier: AccessTokenVerifier

    public init() {
        do {
            let rsa = try JWSSigningKey.generateRSA(keyID: "bench-at-rsa")
            let now = Int64(Date().timeIntervalSince1970)
            // Valid for a day, so a long run never crosses `exp`.
            let claims: [String: JSONValue] = [
                "iss": .string(Fixture.issuer), "aud": .string(Self.resource), "sub": "248289761001", "client_id": "bench-client",
                "jti": "dbe39bf3a3ba4238a513f51d6e1691c4", "scope": "openid profile email orders:read orders:write",
                "iat": .integer(now - 60), "exp": .integer(now + 86_400), "auth_time": .integer(now - 120),
            ]
            rsaToken = try rsa.sign(claims: claims, algorithm: .rs256, header: ["typ": "at+jwt"])
            guard let jwk = rsa.publicJWK(algorithm: .rs256) else { fatalError("benchmark fixture: no public JWK") }
            keySet = try JSONWebKeySet(keys: [JSONWebKey(jwk: jwk)])
            // The cache off: the measures compare full verifications.
            verifier = AccessTokenVerifier(
                policy: AccessTokenPolicy(issuers: [Fixture.issuer], resources: [Self.resource]), keys: keySet, cache: .disabled)
        } catch {
            fatalError("benchmark fixture: \(error)")
        }
    }

    public static let shared = AccessTokenFixture()
}

/// One access-token verification that must pass, with the key set in hand (it never suspends).
@inline(never)
public func verifyAccessToken(_ fixture: AccessTokenFixture) async {
    do {
        sink(try await fixture.verifier.verify(fixture.rsaToken))
    } catch {
        fatalError("verification failed: \(error)")
    }
}
