import Foundation
import Testing
@testable import FederateTokens

/// A verifier remembers the headers it parsed (`JOSEHeaderCache`): a remembered header must
/// never change what is accepted. Each token below goes through one verifier, so its cache
/// is warm with the header the next token reuses.
@Suite struct HeaderCacheTests {
    static let now: Double = 1_700_000_000
    static let claims: [String: JSONValue] = [
        "iss": "https://issuer.example.com", "aud": "client-123", "sub": "user-1", "iat": .double(now - 5), "exp": .double(now + 120),
    ]

    static let verifier = JWTVerifier(
        issuers: ["https://issuer.example.com"], audiences: ["client-123"], allowedAlgorithms: [.rs256], keys: Fixtures.keySet,
        clock: .fixed(at: Date(timeIntervalSince1970: now)))

    static func code(_ token: String) -> FederateError.Code? {
        do {
            _ = try verifier.verify(token, keySet: Fixtures.keySet)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func aRememberedHeaderChangesNothing() throws {
        let first = try Fixtures.rsa.sign(claims: Self.claims, algorithm: .rs256, header: ["typ": "JWT"])
        #expect(Self.code(first) == nil)
        // Same header, other claims: its own claims are checked, not the first token's.
        let other = try Fixtures.rsa.sign(claims: Self.claims.merging(["sub": "user-2"]) { $1 }, algorithm: .rs256, header: ["typ": "JWT"])
        #expect(try Self.verifier.verify(other, keySet: Fixtures.keySet).claims["sub"] == "user-2")
        let expired = try Fixtures.rsa.sign(
            claims: Self.claims.merging(["exp": .double(Self.now - 600)]) { $1 }, algorithm: .rs256, header: ["typ": "JWT"])
        #expect(Self.code(expired) == .tokenExpired)
        // Same header, a payload changed after signing: the signature still decides.
        let parts = first.split(separator: ".")
        let forged =
            "\(parts[0]).\(Base64URL.encode(Array(#"{"iss":"https://issuer.example.com","aud":"client-123","sub":"admin"}"#.utf8))).\(parts[2])"
        #expect(Self.code(forged) == .invalidSignature)
        // A header that fails is refused every time (never remembered).
        let broken = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9x.\(parts[1]).\(parts[2])"
        #expect(Self.code(broken) == .malformedToken)
        #expect(Self.code(broken) == .malformedToken)
        let critical = try Fixtures.rsa.sign(claims: Self.claims, algorithm: .rs256, header: ["typ": "JWT", "crit": ["exp"], "exp": 1])
        #expect(Self.code(critical) == .unsupportedCriticalHeader)
        #expect(Self.code(critical) == .unsupportedCriticalHeader)
    }

    @Test func manyHeadersOverflowTheCacheAndNothingChanges() throws {
        // More distinct headers than the cache holds: it starts again, and each is still checked.
        for index in 0..<(JOSEHeaderCache.capacity * 2 + 3) {
            let token = try Fixtures.rsa.sign(
                claims: Self.claims, algorithm: .rs256, header: ["typ": "JWT", "x-n": .integer(Int64(index))])
            #expect(Self.code(token) == nil)
        }
        let wrongType = try Fixtures.rsa.sign(claims: Self.claims, algorithm: .rs256, header: ["typ": "at+jwt"])
        #expect(Self.code(wrongType) == .tokenTypeMismatch)
        #expect(Self.code(wrongType) == .tokenTypeMismatch)
    }
}
