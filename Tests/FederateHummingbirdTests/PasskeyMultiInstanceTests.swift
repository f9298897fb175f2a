import Federate
import FederateTestSupport
import Foundation
import Testing

/// Two `federate serve` processes on one PostgreSQL database with one sealing key: a passkey
/// registered through one signs in through either, and one sign-in ceremony sent to both at
/// once signs in once (its challenge is consumed through the shared store).
@Suite("Passkeys on two federate serve instances on one PostgreSQL", .serialized)
struct PasskeyMultiInstanceTests {
    @Test(.timeLimit(.minutes(5)))
    func aChallengeSentToBothInstancesSignsInOnce() async throws {
        let schema = "passkeys_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("federate-serve-\(schema).json")
        let portA = try FreePort.loopback(), portB = try FreePort.loopback()
        // The address users see (instance A stands for the load balancer): a host name, for passkeys.
        let origin = "http://localhost:\(portA)"
        try Data(
            JSONSerializer.bytes([
                "origin": .string(origin), "guests": true,
                "store": ["postgres_url_env": "FEDERATE_TEST_DATABASE_URL", "schema": .string(schema)],
                "sealing_key_env": "FEDERATE_TEST_SEALING_KEY",
            ])
        ).write(to: config)
        defer { try? FileManager.default.removeItem(at: config) }
        let environment = try await MultiInstanceTests.environment()
        let a = try MultiInstanceTests.Instance(config: config, port: portA, environment: environment)
        defer { a.stop() }
        try await a.waitUntilListening()
        let b = try MultiInstanceTests.Instance(config: config, port: portB, environment: environment)
        defer { b.stop() }
        try await b.waitUntilListening()
        let sameSite = [("Origin", origin)]

        // A guest registers a passkey through A.
        let owner = TestBrowser()
        #expect(try await owner.send(a.origin + "/auth/guest", method: "POST", headers: sameSite).status == 200)
        let me = try JSONParser().parseObject(try await owner.send(a.origin + "/me").body)
        let uid = try #require(me["uid"]?.stringValue)
        let csrf = sameSite + [("X-CSRF-Token", try #require(me["csrf_token"]?.stringValue))]
        let options = try await owner.send(a.origin + "/me/passkeys/options", method: "POST", headers: csrf)
        #expect(options.status == 200, "\(String(decoding: options.body, as: UTF8.self))")
        let software = SoftwarePasskey.es256(userHandle: Array(uid.utf8))
        let registration = software.registrationJSON(
            .registration(challenge: try PasskeyRoutesTests.challenge(options), origin: origin, rpID: "localhost"))
        let added = try await owner.send(
            a.origin + "/me/passkeys", method: "POST", body: String(decoding: registration, as: UTF8.self), headers: csrf)
        #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")

        // Another browser asks A for sign-in options, then sends the one answer to A and B at once.
        let browser = TestBrowser()
        let signIn = try await browser.send(a.origin + "/auth/passkey/options", method: "POST", headers: sameSite)
        let assertion = String(
            decoding: software.assertionJSON(
                .authentication(
                    challenge: try PasskeyRoutesTests.challenge(signIn), origin: origin, rpID: "localhost",
                    userHandle: software.userHandle)),
            as: UTF8.self)
        async let onA = browser.send(a.origin + "/auth/passkey", method: "POST", body: assertion, headers: sameSite)
        async let onB = browser.send(b.origin + "/auth/passkey", method: "POST", body: assertion, headers: sameSite)
        let answers = try await [onA, onB]
        #expect(answers.map(\.status).sorted() == [200, 400], "\(answers.map { String(decoding: $0.body, as: UTF8.self) })")
        let refused = try #require(answers.first { $0.status == 400 })
        #expect(try JSONParser().parseObject(refused.body)["error"] == "webauthn_challenge_replayed")
        // The winner's session is the passkey's account, on both instances.
        for instance in [a, b] {
            #expect(try JSONParser().parseObject(try await browser.send(instance.origin + "/me").body)["uid"] == .string(uid))
        }
    }
}
