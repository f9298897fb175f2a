import Crypto
import Federate
import FederateTestSupport
import Foundation
import Testing

@Suite("federate apple client-secret")
struct AppleCommandTests {
    @Test func printsAVerifiableSecret() async throws {
        let key = P256.Signing.PrivateKey()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("AuthKey-\(UUID().uuidString).p8")
        try key.pemRepresentation.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }

        let output = try await CLIProcess.run([
            "apple", "client-secret", "--team-id", "TEAM", "--key-id", "KID", "--client-id", "com.example.web",
            "--key-file", file.path, "--lifetime", "600",
        ])
        #expect(output.status == 0, "\(output.stderr)")
        let object = try JSONParser().parseObject(Array(output.stdout.utf8))
        let secret = try #require(object["client_secret"]?.stringValue)
        let jws = try CompactJWS(parsing: secret)
        let jwk = try #require(JWSSigningKey(p256: key, keyID: "KID").publicJWK())
        _ = try JWSSignatureVerifier(allowedAlgorithms: [.es256]).verify(
            jws, keySet: JSONWebKeySet(jwks: JSONSerializer.bytes(["keys": [.object(jwk)]])))
        let claims = try JSONParser().parseObject(jws.payload)
        #expect(claims["sub"] == "com.example.web")
        #expect(try #require(claims["exp"]?.int64Value) - (try #require(claims["iat"]?.int64Value)) == 600)
    }

    @Test func refusesANonP256KeyAndALongLifetime() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("AuthKey-\(UUID().uuidString).p8")
        try P384.Signing.PrivateKey().pemRepresentation.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let wrongKey = try await CLIProcess.run([
            "apple", "client-secret", "--team-id", "T", "--key-id", "K", "--client-id", "C", "--key-file", file.path,
        ])
        #expect(wrongKey.status == 1)
        #expect(wrongKey.stdout.contains("\"error\":\"invalid_key\""))
        let long = try await CLIProcess.run([
            "apple", "client-secret", "--team-id", "T", "--key-id", "K", "--client-id", "C", "--key-file", file.path, "--lifetime",
            "15777001",
        ])
        #expect(long.status == 1)
    }
}
