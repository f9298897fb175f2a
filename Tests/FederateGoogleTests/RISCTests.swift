import Federate
import FederateGoogle
import FederateTestSupport
import Foundation
import Testing
@testable import FederateTokens

@Suite("RISC receiver")
struct RISCTests {
    static let prefix = "https://schemas.openid.net/secevent/"
    /// The receiver's clock: the fixtures' instant (the tokens' `iat`).

    static func token(
        _ change: [String: JSONValue?] = [:], key: JWSSigningKey = GoogleFixtures.key, algorithm: JWSAlgorithm = .rs256
    ) throws -> [UInt8] {
        var claims: [String: JSONValue] = [
            "iss": "https://accounts.google.com/", "aud": "web-client", "iat": .integer(Int64(GoogleFixtures.now)),
            "exp": .integer(Int64(GoogleFixtures.now) - 3600),  // in the past: events do not expire
            "jti": "evt-1",
            "events": [
                .init(stringLiteral: prefix + "risc/event-type/account-disabled"): [
                    "subject": ["subject_type": "iss-sub", "iss": "https://accounts.google.com/", "sub": "1100"], "reason": "hijacking",
                ]
            ],
        ]
        for (name, value) in change {
            if let value { claims[name] = value } else { claims.removeValue(forKey: name) }
        }
        return Array(try key.sign(claims: claims, algorithm: algorithm, header: ["typ": "secevent+jwt"]).utf8)
    }

    static func receiver() -> RISCReceiver {
        RISCReceiver(clientIDs: ["web-client"], keys: GoogleFixtures.keys, clock: GoogleFixtures.clock)
    }

    /// What a RISC route answers for `body` (Docs/Providers/Google.md): 202 with the events
    /// `receive(_:)` returns (none for a repeat), 400 with the error it throws; with the
    /// delivery's `jti` and whether it was a repeat.
    struct Receipt {
        var status: Int
        var tokenID: String?
        var events: [RISCEvent]
        var isDuplicate: Bool
        var error: FederateError?
    }

    static func receipt(_ receiver: RISCReceiver, _ body: [UInt8]) async -> Receipt {
        do throws(FederateError) {
            let delivery = try await receiver.delivery(body)
            return Receipt(status: 202, tokenID: delivery.tokenID, events: delivery.events, isDuplicate: delivery.isDuplicate)
        } catch {
            return Receipt(status: 400, events: [], isDuplicate: false, error: error)
        }
    }

    @Test func acceptedEventIsDecodedAndRepeatIsDeduplicated() async throws {
        let receiver = Self.receiver()
        let first = await Self.receipt(receiver, try Self.token())
        #expect(first.status == 202)
        #expect(first.tokenID == "evt-1")
        #expect(first.events.count == 1)
        guard case .accountDisabled(let subject, let reason)? = first.events.first else {
            Issue.record("decoded as \(first.events)")
            return
        }
        #expect(subject.subject == "1100" && subject.type == "iss-sub" && reason == "hijacking")
        let again = await Self.receipt(receiver, try Self.token())
        #expect(again.status == 202)
        #expect(again.isDuplicate)
        #expect(again.events.isEmpty)
        // The public entry point: a repeat is accepted, without its events.
        #expect(try await receiver.receive(try Self.token()).isEmpty)
    }

    /// A look-alike `jti` (U+212A KELVIN SIGN for `K`) is another token, before or after its
    /// twin: the de-duplication keys on bytes, not on `String` equality.
    @Test func aLookAlikeTokenIDIsNotADuplicate() async throws {
        for order in [["evt-K", "evt-\u{212A}"], ["evt-\u{212A}", "evt-K"]] {
            let receiver = Self.receiver()
            for jti in order {
                let receipt = await Self.receipt(receiver, try Self.token(["jti": .string(jti)]))
                #expect(receipt.status == 202 && !receipt.isDuplicate && receipt.events.count == 1, "\(order) \(jti)")
            }
            #expect(await Self.receipt(receiver, try Self.token(["jti": .string(order[0])])).isDuplicate)
        }
    }

    @Test(arguments: [
        "risc/event-type/sessions-revoked", "oauth/event-type/tokens-revoked", "oauth/event-type/token-revoked",
        "risc/event-type/account-enabled", "risc/event-type/account-credential-change-required", "risc/event-type/verification",
        "risc/event-type/brand-new",
    ])
    func everyEventTypeDecodes(type: String) async throws {
        let uri = Self.prefix + type
        let events = try await Self.receiver().receive(
            try Self.token([
                "jti": .string(type), "events": .object([uri: ["subject": ["subject_type": "iss-sub", "sub": "1100"], "state": "st"]]),
            ]))
        let event = try #require(events.first)
        switch (type, event) {
        case ("risc/event-type/sessions-revoked", .sessionsRevoked(let s)), ("oauth/event-type/tokens-revoked", .tokensRevoked(let s)),
            ("oauth/event-type/token-revoked", .tokenRevoked(let s)), ("risc/event-type/account-enabled", .accountEnabled(let s)),
            ("risc/event-type/account-credential-change-required", .accountCredentialChangeRequired(let s)):
            #expect(s.subject == "1100")
        case ("risc/event-type/verification", .verification(let state)):
            #expect(state == "st")
        case ("risc/event-type/brand-new", .other(let uriSeen, _)):
            #expect(uriSeen == uri)
        default:
            Issue.record("\(type) decoded as \(event)")
        }
    }

    @Test func refusals() async throws {
        let receiver = Self.receiver()
        let cases: [(body: [UInt8], code: FederateError.Code)] = [
            (try Self.token(["aud": "other-client"]), .audienceMismatch),
            (try Self.token(["iss": "https://accounts.google.com"]), .issuerMismatch),
            (try Self.token(["jti": nil]), .invalidSecurityEvent),
            (try Self.token(["events": nil]), .invalidSecurityEvent),
            (try Self.token(["iat": .integer(Int64(GoogleFixtures.now) + 3600)]), .issuedInFuture),
            (try Self.token(key: GoogleFixtures.key.withKeyID(nil)), .unknownKey),
            (try Self.token(key: JWSSigningKey.generateRSA(keyID: "g-1")), .invalidSignature),
            (Array("not a token".utf8), .malformedToken),
        ]
        for (body, code) in cases {
            let receipt = await Self.receipt(receiver, body)
            #expect(receipt.status == 400)
            #expect(receipt.error?.code == code, "\(String(describing: receipt.error))")
            #expect(receipt.events.isEmpty)
            let thrown = await #expect(throws: FederateError.self) { try await receiver.receive(body) }
            #expect(thrown?.code == code)
        }
    }

    @Test func deduplicationWindowExpires() async throws {
        let time = TestClock(Date(timeIntervalSince1970: GoogleFixtures.now))
        let receiver = RISCReceiver(
            clientIDs: ["web-client"], keys: GoogleFixtures.keys, deduplicationWindow: .seconds(60), clock: time.clock)
        #expect(await Self.receipt(receiver, try Self.token()).isDuplicate == false)
        time.advance(by: .seconds(30))
        #expect(await Self.receipt(receiver, try Self.token()).isDuplicate)
        time.advance(by: .seconds(90))
        #expect(await Self.receipt(receiver, try Self.token()).isDuplicate == false)
    }
}
