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

    static func code(_ token: String) async -> FederateError.Code? {
        do {
            _ = try await verifier.verify(token)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func aRememberedHeaderChangesNothing() async throws {
        let first = try Fixtures.rsa.sign(claims: Self.claims, algorithm: .rs256, header: ["typ": "JWT"])
        #expect(await Self.code(first) == nil)
        // Same header, other claims: its own claims are checked, not the first token's.
        let other = try Fixtures.rsa.sign(claims: Self.claims.merging(["sub": "user-2"]) { $1 }, algorithm: .rs256, header: ["typ": "JWT"])
        #expect(try await Self.verifier.verify(other).claims["sub"] == "user-2")
        let expired = try Fixtures.rsa.sign(
            claims: Self.claims.merging(["exp": .double(Self.now - 600)]) { $1 }, algorithm: .rs256, header: ["typ": "JWT"])
        #expect(await Self.code(expired) == .tokenExpired)
        // Same header, a payload changed after signing: the signature still decides.
        let parts = first.split(separator: ".")
        let forged =
            "\(parts[0]).\(Base64URL.encode(Array(#"{"iss":"https://issuer.example.com","aud":"client-123","sub":"admin"}"#.utf8))).\(parts[2])"
        #expect(await Self.code(forged) == .invalidSignature)
        // A header that fails is refused every time (never remembered).
        let broken = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9x.\(parts[1]).\(parts[2])"
        #expect(await Self.code(broken) == .malformedToken)
        #expect(await Self.code(broken) == .malformedToken)
        let critical = try Fixtures.rsa.sign(claims: Self.claims, algorithm: .rs256, header: ["typ": "JWT", "crit": ["exp"], "exp": 1])
        #expect(await Self.code(critical) == .unsupportedCriticalHeader)
        #expect(await Self.code(critical) == .unsupportedCriticalHeader)
    }

    @Test func manyHeadersOverflowTheCacheAndNothingChanges() async throws {
        // More distinct headers than the cache holds: it starts again, and each is still checked.
        for index in 0..<(JOSEHeaderCache.capacity * 2 + 3) {
            let token = try Fixtures.rsa.sign(
                claims: Self.claims, algorithm: .rs256, header: ["typ": "JWT", "x-n": .integer(Int64(index))])
            #expect(await Self.code(token) == nil)
        }
        let wrongType = try Fixtures.rsa.sign(claims: Self.claims, algorithm: .rs256, header: ["typ": "at+jwt"])
        #expect(await Self.code(wrongType) == .tokenTypeMismatch)
        #expect(await Self.code(wrongType) == .tokenTypeMismatch)
    }
}
