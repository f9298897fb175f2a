import Crypto
import FederateTestSupport
import Foundation
import Testing
@testable import FederateTokens

/// Registration (WebAuthn §7.1): each check refuses with its code what breaks it, and only that.
@Suite("WebAuthn registration")
struct WebAuthnRegistrationTests {
    typealias Change = (inout PasskeyCeremony) -> Void

    func refusal(
        _ passkey: SoftwarePasskey = .es256(), harness: WebAuthnHarness? = nil, userVerification: WebAuthnUserVerification? = nil,
        _ change: @escaping Change
    ) async throws -> FederateError.Code? {
        let harness = try harness ?? WebAuthnHarness()
        return await refusalCode { try await harness.register(passkey, userVerification: userVerification, change) }
    }

    @Test(arguments: ["none", "packed"])
    func registersEveryAlgorithm(format: String) async throws {
        let harness = try WebAuthnHarness()
        let rsa = try SoftwarePasskey.rsa(bits: 2048)
        for passkey in [SoftwarePasskey.es256(), .ed25519(), rsa] {
            let registered = try await harness.register(passkey) { $0.format = format }
            #expect(registered.credentialID == passkey.credentialID)
            #expect(registered.algorithm.rawValue == passkey.algorithm)
            #expect(registered.publicKey == passkey.coseKey.encoded)
            #expect(registered.userVerified && !registered.backupEligible && !registered.backupState)
            #expect(registered.transports == ["internal", "hybrid"])
            #expect(registered.aaguid == [UInt8](repeating: 0, count: 16))
            #expect(registered.attestationFormat == format)
            #expect(registered.userHandle == Array("user-1".utf8))
            // The stored columns read back into a passkey.
            let stored = try StoredPasskey(
                credentialID: registered.credentialID, publicKey: registered.publicKey, signCount: registered.signCount)
            #expect(stored.algorithm == registered.algorithm)
        }
    }

    @Test func reportsFlagsAndCounter() async throws {
        let harness = try WebAuthnHarness()
        let registered = try await harness.register(.es256()) {
            $0.flags = SoftwarePasskey.up | SoftwarePasskey.at | SoftwarePasskey.be | SoftwarePasskey.bs
            $0.signCount = 41
        }
        #expect(!registered.userVerified && registered.backupEligible && registered.backupState && registered.signCount == 41)
    }

    @Test func clientDataChecks() async throws {
        #expect(try await refusal { $0.type = "webauthn.get" } == .webauthnCeremonyMismatch)
        #expect(try await refusal { $0.challenge = Array(repeating: 1, count: 32) } == .webauthnChallengeMismatch)
        #expect(try await refusal { $0.challenge = [] } == .webauthnChallengeMismatch)
        #expect(try await refusal { $0.origin = "https://evil.example" } == .webauthnOriginMismatch)
        #expect(try await refusal { $0.origin = "https://login.example.com" } == .webauthnOriginMismatch)
        #expect(try await refusal { $0.origin = "https://example.com:443" } == .webauthnOriginMismatch)
        #expect(try await refusal { $0.origin = "https://EXAMPLE.com" } == .webauthnOriginMismatch)
        #expect(try await refusal { $0.origin = "https://\u{212A}.example.com" } == .webauthnOriginMismatch)
        #expect(try await refusal { $0.crossOrigin = true } == .webauthnCrossOrigin)
        #expect(try await refusal { $0.topOrigin = "https://example.com" } == .webauthnCrossOrigin)
        #expect(
            try await refusal { $0.clientDataJSON = Array(#"{"type":"webauthn.create","type":"webauthn.create"}"#.utf8) }
                == .webauthnMalformed)
        #expect(try await refusal { $0.clientDataJSON = [0xFF] } == .webauthnMalformed)
        #expect(try await refusal { _ in } == nil)
    }

    @Test func crossOriginOnlyFromAllowedTopOrigins() async throws {
        let configuration = try WebAuthnConfiguration(
            relyingPartyID: "example.com", relyingPartyName: "Example", allowedTopOrigins: ["https://partner.example.org"])
        let harness = try WebAuthnHarness(configuration: configuration)
        let allowed: Change = {
            $0.crossOrigin = true
            $0.topOrigin = "https://partner.example.org"
        }
        #expect(try await refusal(harness: harness, allowed) == nil)
        #expect(try await refusal(harness: harness) { $0.crossOrigin = true } == .webauthnCrossOrigin)
        #expect(
            try await refusal(harness: harness) {
                $0.crossOrigin = true
                $0.topOrigin = "https://evil.example.org"
            } == .webauthnCrossOrigin)
    }

    @Test func challengeIsSingleUseExpiringAndForItsCeremony() async throws {
        let harness = try WebAuthnHarness()
        let passkey = SoftwarePasskey.es256()
        let options = harness.party.registrationOptions(for: WebAuthnHarness.user)
        let ceremony = PasskeyCeremony.registration(
            challenge: options.challenge.bytes, origin: WebAuthnHarness.origin, rpID: WebAuthnHarness.rpID)
        let response = try WebAuthnRegistrationResponse(json: passkey.registrationJSON(ceremony))
        _ = try await harness.party.verifyRegistration(response, challenge: options.challenge)
        #expect(
            await refusalCode { try await harness.party.verifyRegistration(response, challenge: options.challenge) }
                == .webauthnChallengeReplayed)

        // Another server instance sharing the store refuses it too.
        let other = WebAuthnRelyingParty(configuration: harness.party.configuration, replayStore: harness.store, clock: harness.clock.clock)
        #expect(
            await refusalCode { try await other.verifyRegistration(response, challenge: options.challenge) } == .webauthnChallengeReplayed)

        // A challenge past its lifetime.
        let late = harness.party.registrationOptions(for: WebAuthnHarness.user)
        let lateResponse = try WebAuthnRegistrationResponse(
            json: passkey.registrationJSON(
                .registration(challenge: late.challenge.bytes, origin: WebAuthnHarness.origin, rpID: WebAuthnHarness.rpID)))
        harness.clock.advance(by: .seconds(301))
        #expect(
            await refusalCode { try await harness.party.verifyRegistration(lateResponse, challenge: late.challenge) }
                == .webauthnChallengeExpired)

        // An authentication challenge used for a registration.
        let wrong = harness.party.authenticationOptions()
        let wrongResponse = try WebAuthnRegistrationResponse(
            json: passkey.registrationJSON(
                .registration(challenge: wrong.challenge.bytes, origin: WebAuthnHarness.origin, rpID: WebAuthnHarness.rpID)))
        #expect(
            await refusalCode { try await harness.party.verifyRegistration(wrongResponse, challenge: wrong.challenge) }
                == .webauthnCeremonyMismatch)
    }

    @Test func challengesShorterThan16BytesAreRefused() async throws {
        let harness = try WebAuthnHarness()
        let passkey = SoftwarePasskey.es256()
        let now = harness.clock.now
        for (count, expected) in [(15, FederateError.Code.webauthnChallengeMismatch), (16, nil)] {
            let bytes = [UInt8](repeating: 9, count: count)
            let challenge = WebAuthnChallenge(
                bytes: bytes, ceremony: .registration, issuedAt: now, expiresAt: now.addingTimeInterval(60), userVerification: .preferred)
            let response = try WebAuthnRegistrationResponse(
                json: passkey.registrationJSON(.registration(challenge: bytes, origin: WebAuthnHarness.origin, rpID: WebAuthnHarness.rpID)))
            #expect(
                await refusalCode { try await harness.party.verifyRegistration(response, challenge: challenge) } == expected, "\(count)")
        }
    }

    @Test func authenticatorDataChecks() async throws {
        #expect(try await refusal { $0.rpID = "evil.example" } == .webauthnRPIDMismatch)
        #expect(try await refusal { $0.rpID = "login.example.com" } == .webauthnRPIDMismatch)
        #expect(try await refusal { $0.flags &= ~SoftwarePasskey.up } == .webauthnUserPresence)
        #expect(try await refusal { $0.flags |= SoftwarePasskey.bs } == .webauthnBackupState)
        #expect(try await refusal { $0.flags &= ~SoftwarePasskey.at } == .webauthnMalformed)
        // UV: accepted without it when preferred, refused when the challenge or the configuration requires it.
        #expect(try await refusal { $0.flags &= ~SoftwarePasskey.uv } == nil)
        #expect(try await refusal(userVerification: .required) { $0.flags &= ~SoftwarePasskey.uv } == .webauthnUserVerification)
        let strict = try WebAuthnHarness(
            configuration: WebAuthnConfiguration(relyingPartyID: "example.com", relyingPartyName: "Example", userVerification: .required))
        #expect(try await refusal(harness: strict) { $0.flags &= ~SoftwarePasskey.uv } == .webauthnUserVerification)
    }

    @Test func credentialIDChecks() async throws {
        let long = [UInt8](repeating: 0xAB, count: 1024)
        #expect(try await refusal(.es256(credentialID: long)) { _ in } == .webauthnCredentialIDTooLong)
        #expect(try await refusal { $0.credentialIDInAuthenticatorData = long } == .webauthnCredentialIDTooLong)
        #expect(try await refusal { $0.credentialIDInAuthenticatorData = [1, 2, 3] } == .webauthnCredentialIDMismatch)
        #expect(try await refusal { $0.responseCredentialID = [1, 2, 3] } == .webauthnCredentialIDMismatch)
        // An empty credential ID names no credential.
        #expect(try await refusal(.es256(credentialID: [])) { _ in } == .webauthnMalformed)
        let longest = [UInt8](repeating: 0xAB, count: 1023)
        #expect(try await refusal(.es256(credentialID: longest)) { _ in } == nil)
        // `id` and `rawId` must agree.
        let passkey = SoftwarePasskey.es256()
        var json = String(
            decoding: passkey.registrationJSON(.registration(challenge: Array(repeating: 1, count: 32), origin: "o", rpID: "r")),
            as: UTF8.self)
        json = json.replacingOccurrences(of: #""id":""#, with: #""id":"AAAA"#)
        #expect(await refusalCode { try WebAuthnRegistrationResponse(json: Array(json.utf8)) } == .webauthnCredentialIDMismatch)
    }

    @Test func publicKeyChecks() async throws {
        let passkey = SoftwarePasskey.es256()
        func key(_ entries: [(TestCBOR, TestCBOR)]) -> [UInt8] { TestCBOR.pairs(entries).encoded }
        let x = TestCBOR.bytes(Array(repeating: 1, count: 32))
        #expect(
            try await refusal(passkey) { $0.coseKey = key([(.int(1), .int(2)), (.int(3), .int(-35)), (.int(-1), .int(2))]) }
                == .webauthnUnsupportedAlgorithm)
        #expect(
            try await refusal(passkey) { $0.coseKey = key([(.int(1), .int(3)), (.int(3), .int(-65535))]) } == .webauthnUnsupportedAlgorithm)
        #expect(
            try await refusal(passkey) { $0.coseKey = key([(.int(1), .int(1)), (.int(3), .int(-7)), (.int(-1), .int(6)), (.int(-2), x)]) }
                == .webauthnUnsupportedAlgorithm)
        #expect(
            try await refusal(passkey) {
                $0.coseKey = key([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(2)), (.int(-2), x), (.int(-3), x)])
            } == .webauthnUnsupportedAlgorithm)
        #expect(
            try await refusal(passkey) {
                $0.coseKey = key([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)), (.int(-2), x), (.int(-3), x)])
            } == .webauthnInvalidPublicKey)
        #expect(
            try await refusal(passkey) { $0.coseKey = key([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)), (.int(-2), x)]) }
                == .webauthnInvalidPublicKey)
        #expect(try await refusal(passkey) { $0.coseKey = key([(.int(1), .int(2)), (.int(-1), .int(1))]) } == .webauthnInvalidPublicKey)
        #expect(
            try await refusal(passkey) {
                $0.coseKey = key([(.int(1), .int(1)), (.int(3), .int(-8)), (.int(-1), .int(6)), (.int(-2), .bytes([1]))])
            } == .webauthnInvalidPublicKey)
        #expect(try await refusal(passkey) { $0.coseKey = TestCBOR.array([]).encoded } == .webauthnInvalidPublicKey)
        let weak = try SoftwarePasskey.rsa(bits: 1024)
        #expect(try await refusal(weak) { _ in } == .webauthnWeakRSAKey)
        // The configuration narrows the algorithms.
        let es256Only = try WebAuthnHarness(
            configuration: WebAuthnConfiguration(relyingPartyID: "example.com", relyingPartyName: "Example", algorithms: [.es256]))
        #expect(try await refusal(.ed25519(), harness: es256Only) { _ in } == .webauthnUnsupportedAlgorithm)
    }

    @Test func attestationStatementChecks() async throws {
        let passkey = SoftwarePasskey.es256()
        #expect(try await refusal(passkey) { $0.format = "fido-u2f" } == .webauthnAttestationFormat)
        #expect(try await refusal(passkey) { $0.format = "tpm" } == .webauthnAttestationFormat)
        #expect(try await refusal(passkey) { $0.statement = .pairs([(.text("alg"), .int(-7))]) } == .webauthnAttestationFormat)
        #expect(
            try await refusal(passkey) {
                $0.format = "packed"
                $0.statement = .pairs([(.text("alg"), .int(-7)), (.text("sig"), .bytes([0x30])), (.text("x5c"), .array([.bytes([0x30])]))])
            } == .webauthnAttestationFormat)
        #expect(
            try await refusal(passkey) {
                $0.format = "packed"
                $0.statement = .pairs([(.text("alg"), .int(-8)), (.text("sig"), .bytes([0x30]))])
            } == .webauthnAttestationFormat)
        let other = SoftwarePasskey.es256()
        #expect(
            try await refusal(passkey) {
                $0.format = "packed"
                $0.statement = .pairs([(.text("alg"), .int(-7)), (.text("sig"), .bytes(other.sign([1, 2, 3])))])
            } == .webauthnSignature)
        #expect(
            try await refusal(passkey) {
                $0.attestationObject = TestCBOR.pairs([(.text("fmt"), .text("none")), (.text("attStmt"), .map([]))]).encoded
            } == .webauthnMalformed)
    }

    @Test func attestationObjectsHaveExactlyTheirThreeMembers() async throws {
        let passkey = SoftwarePasskey.es256()
        let expected: FederateError.Code? = try await refusal(passkey) { c in
            c.attestationObject =
                TestCBOR.pairs([
                    (.text("fmt"), .text("none")), (.text("attStmt"), .map([])), (.text("authData"), .bytes(passkey.authenticatorData(c))),
                    (.text("extra"), .int(1)),
                ]).encoded
        }
        #expect(expected == .webauthnMalformed)
        #expect(
            try await refusal(passkey) { c in
                c.format = "packed"
                c.statement = .pairs([(.text("alg"), .int(-7)), (.text("sig"), .bytes([0x30])), (.text("extra"), .int(1))])
            } == .webauthnAttestationFormat)
    }

    @Test func extensionsAreReadPastExactly() async throws {
        let extensions = TestCBOR.pairs([(.text("credProtect"), .int(2)), (.text("hmac-secret"), .bool(true))]).encoded
        #expect(
            try await refusal { c in
                c.flags |= SoftwarePasskey.ed
                c.extensions = extensions
            } == nil)
        #expect(try await refusal { $0.flags |= SoftwarePasskey.ed } == .cborTruncated)
        #expect(
            try await refusal { c in
                c.flags |= SoftwarePasskey.ed
                c.extensions = TestCBOR.array([]).encoded
            } == .webauthnMalformed)
        #expect(
            try await refusal { c in
                c.flags |= SoftwarePasskey.ed
                c.extensions = extensions + [0x00]
            } == .webauthnMalformed)
        #expect(try await refusal { $0.extensions = extensions } == .webauthnMalformed)  // ED not set
    }

    @Test func hostileAttestationObjects() async throws {
        let passkey = SoftwarePasskey.es256()
        let options = try WebAuthnHarness().party.registrationOptions(for: WebAuthnHarness.user)
        let authData = passkey.authenticatorData(
            .registration(challenge: options.challenge.bytes, origin: WebAuthnHarness.origin, rpID: WebAuthnHarness.rpID))
        let fmt = TestCBOR.text("fmt").encoded, none = TestCBOR.text("none").encoded
        let cases: [([UInt8], FederateError.Code)] = [
            (
                TestCBOR.pairs([
                    (.text("fmt"), .text("none")), (.text("fmt"), .text("none")), (.text("attStmt"), .map([])),
                    (.text("authData"), .bytes(authData)),
                ]).encoded, .cborDuplicateKey
            ),
            ([0xBF] + fmt + none + [0xFF], .cborIndefiniteLength),
            (
                [0xA3] + fmt + none + TestCBOR.text("attStmt").encoded + [0xA0] + TestCBOR.text("authData").encoded + [0x5F, 0xFF],
                .cborIndefiniteLength
            ),
            ([UInt8](repeating: 0x81, count: 10_000) + [0], .cborTooDeep),
            (
                [0xA3] + fmt + none + TestCBOR.text("authData").encoded + [0x5B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
                .cborTruncated
            ),
            ([0xBB, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], .cborTruncated),
            (TestCBOR.head(4, 5000) + [UInt8](repeating: 0xF6, count: 5000), .cborTooManyItems),
            (
                Array(
                    TestCBOR.pairs([(.text("fmt"), .text("none")), (.text("attStmt"), .map([])), (.text("authData"), .bytes(authData))])
                        .encoded.dropLast()), .cborTruncated
            ),
            (
                TestCBOR.pairs([(.text("fmt"), .text("none")), (.text("attStmt"), .map([])), (.text("authData"), .bytes(authData))]).encoded
                    + [0], .cborTrailingBytes
            ),
            ([0xC0] + TestCBOR.map([]).encoded, .cborUnsupportedItem),
        ]
        for (object, expected) in cases {
            #expect(try await refusal(passkey) { $0.attestationObject = object } == expected, "\(expected)")
        }
        // A credential public key nested 10,000 deep inside the authenticator data.
        #expect(try await refusal(passkey) { $0.coseKey = [UInt8](repeating: 0xA1, count: 10_000) } == .cborTooDeep)
        #expect(
            try await refusal(passkey) { $0.coseKey = TestCBOR.pairs([(.int(1), .int(2)), (.int(1), .int(2))]).encoded }
                == .cborDuplicateKey)
    }

    @Test func malformedResponses() async throws {
        for json in [
            "", "[]", "{}", #"{"id":"AA","rawId":"AA","type":"public-key"}"#, #"{"id":"AA","rawId":"AA","type":"other","response":{}}"#,
            #"{"id":"AA=","rawId":"AA=","type":"public-key","response":{}}"#,
            #"{"id":"AA","rawId":"AA","type":"public-key","response":{"clientDataJSON":"e30","attestationObject":7}}"#,
        ] {
            #expect(await refusalCode { try WebAuthnRegistrationResponse(json: Array(json.utf8)) } == .webauthnMalformed, "\(json)")
        }
    }
}
