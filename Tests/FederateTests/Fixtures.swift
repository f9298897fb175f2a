import Crypto
import Foundation
import Federate
@testable import FederateAccounts
@testable import FederateRelyingParty
@testable import FederateTokens

/// Keys and token helpers shared by the unit tests (generated once per test process).
enum Fixtures {
    static let rsa = try! JWSSigningKey.generateRSA(keyID: "rsa-1")
    static let otherRSA = try! JWSSigningKey.generateRSA(keyID: "rsa-1")
    static let ec = JWSSigningKey(p256: P256.Signing.PrivateKey(), keyID: "ec-1")
    static let ed = JWSSigningKey(ed25519: Curve25519.Signing.PrivateKey(), keyID: "ed-1")

    static let issuer = "https://issuer.example.com"
    static let clientID = "client-123"

    /// A key set holding the public halves of `rsa`, `ec` and `ed`.
    static let keySet = try! JSONWebKeySet(
        jwks: JSONSerializer.bytes([
            "keys": [
                .object(rsa.publicJWK()!), .object(ec.publicJWK()!), .object(ed.publicJWK()!),
            ]
        ]))

    static var now: Double { Date().timeIntervalSince1970.rounded(.down) }

    /// Valid ID-token claims, with overrides (`.null` removes a claim).
    static func claims(_ overrides: [String: JSONValue] = [:]) -> [String: JSONValue] {
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "sub": "user-1", "aud": .string(clientID),
            "iat": .integer(Int64(now)), "exp": .integer(Int64(now) + 600),
        ]
        for (name, value) in overrides {
            if value == .null { claims[name] = nil } else { claims[name] = value }
        }
        return claims
    }

    static func token(
        _ overrides: [String: JSONValue] = [:], key: JWSSigningKey = rsa, algorithm: JWSAlgorithm = .rs256,
        header: [String: JSONValue] = ["typ": "JWT"]
    ) -> String {
        try! key.sign(claims: claims(overrides), algorithm: algorithm, header: header)
    }

    static func policy(_ configure: (inout IDTokenPolicy) -> Void = { _ in }) -> IDTokenPolicy {
        var policy = IDTokenPolicy(issuers: [issuer], audiences: [clientID], allowedAlgorithms: JWSAlgorithm.asymmetric)
        configure(&policy)
        return policy
    }

    /// Verifies against `keySet` and returns the error code, or nil when valid.
    static func errorCode(
        _ token: String, policy: IDTokenPolicy = policy(), keySet: JSONWebKeySet = keySet,
        expecting: IDTokenExpectations = IDTokenExpectations(), clock: FederateClock = .system
    ) async -> FederateError.Code? {
        do {
            _ = try await IDTokenVerifier(policy: policy, keys: keySet, clock: clock).verify(token, expecting: expecting)
            return nil
        } catch {
            return error.code
        }
    }

    /// Base64url of a JSON text, for hand-built tokens.
    static func segment(_ json: String) -> String { Base64URL.encode(json) }
}
