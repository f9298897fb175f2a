import Crypto
import FederateTestSupport
import Foundation
import Testing
@testable import FederateTokens

/// Authentication (WebAuthn §7.2): each check refuses with its code what breaks it, and only that.
@Suite("WebAuthn authentication")
struct WebAuthnAuthenticationTests {
    typealias Change = (inout PasskeyCeremony) -> Void

    /// A registered passkey and its stored form.
    func registered(_ passkey: SoftwarePasskey, signCount: UInt32 = 0, backupEligible: Bool? = nil) async throws -> StoredPasskey {
        let harness = try WebAuthnHarness()
        let registered = try await harness.register(passkey)
        return try StoredPasskey(
            credentialID: registered.credentialID, publicKey: registered.publicKey, signCount: signCount, userHandle: passkey.userHandle,
            backupEligible: backupEligible)
    }

    func refusal(
        _ passkey: SoftwarePasskey, stored: StoredPasskey, harness: WebAuthnHarness? = nil, signCount: UInt32 = 0,
        userVerification: WebAuthnUserVerification? = nil, _ change: @escaping Change = { _ in }
    ) async throws -> FederateError.Code? {
        let harness = try harness ?? WebAuthnHarness()
        return await refusalCode {
            try await harness.authenticate(passkey, stored: stored, signCount: signCount, userVerification: userVerification, change)
        }
    }

    @Test func verifiesEveryAlgorithm() async throws {
        let rsa = try SoftwarePasskey.rsa(bits: 2048)
        for passkey in [SoftwarePasskey.es256(), .ed25519(), rsa] {
            let stored = try await registered(passkey)
            let assertion = try await WebAuthnHarness().authenticate(passkey, stored: stored, signCount: 0)
            #expect(assertion.credentialID == passkey.credentialID)
            #expect(assertion.userHandle == passkey.userHandle)
            #expect(assertion.signCount == 0 && assertion.userVerified && !assertion.backupEligible && !assertion.backupState)
        }
    }

    @Test func signatureChecks() async throws {
        let passkey = SoftwarePasskey.es256()
        let stored = try await registered(passkey)
        #expect(try await refusal(passkey, stored: stored) { $0.signature = [0x30, 0x00] } == .webauthnSignature)
        #expect(try await refusal(passkey, stored: stored) { $0.signature = SoftwarePasskey.es256().sign([1]) } == .webauthnSignature)
        // ES256 as IEEE P1363 (r || s), not DER: refused.
        #expect(
            try await refusal(passkey, stored: stored) { c in
                let der = passkey.sign(passkey.authenticatorData(c) + Array(SHA256.hash(data: passkey.clientDataJSON(c))))
                c.signature = (try? P256.Signing.ECDSASignature(derRepresentation: der)).map { Array($0.rawRepresentation) }
            } == .webauthnSignature)
        // Signed over other client data than the one sent.
        #expect(
            try await refusal(passkey, stored: stored) { c in
                var other = c
                other.origin = "https://evil.example"
                c.signature = passkey.sign(passkey.authenticatorData(c) + Array(SHA256.hash(data: passkey.clientDataJSON(other))))
            } == .webauthnSignature)
        let ed = SoftwarePasskey.ed25519()
        let edStored = try await registered(ed)
        #expect(try await refusal(ed, stored: edStored) { $0.signature = Array(repeating: 0, count: 64) } == .webauthnSignature)
        #expect(try await refusal(ed, stored: edStored) { $0.signature = [1] } == .webauthnSignature)
        let rsa = try SoftwarePasskey.rsa(bits: 2048)
        let rsaStored = try await registered(rsa)
        #expect(try await refusal(rsa, stored: rsaStored) { $0.signature = Array(repeating: 1, count: 256) } == .webauthnSignature)
        #expect(try await refusal(rsa, stored: rsaStored) { $0.signature = Array(repeating: 1, count: 255) } == .webauthnSignature)
    }

    @Test func counterMustIncreaseWhenEitherIsNonZero() async throws {
        let passkey = SoftwarePasskey.es256()
        let stored = try await registered(passkey, signCount: 5)
        #expect(try await WebAuthnHarness().authenticate(passkey, stored: stored, signCount: 6).signCount == 6)
        #expect(try await refusal(passkey, stored: stored, signCount: 5) == .webauthnCounterRegressed)
        #expect(try await refusal(passkey, stored: stored, signCount: 4) == .webauthnCounterRegressed)
        #expect(try await refusal(passkey, stored: stored, signCount: 0) == .webauthnCounterRegressed)
        let zero = try await registered(passkey, signCount: 0)
        #expect(try await refusal(passkey, stored: zero, signCount: 0) == nil)
        #expect(try await refusal(passkey, stored: zero, signCount: UInt32.max) == nil)
    }

    @Test func clientDataAndFlagChecks() async throws {
        let passkey = SoftwarePasskey.es256()
        let stored = try await registered(passkey)
        #expect(try await refusal(passkey, stored: stored) { $0.type = "webauthn.create" } == .webauthnCeremonyMismatch)
        #expect(try await refusal(passkey, stored: stored) { $0.challenge = Array(repeating: 2, count: 32) } == .webauthnChallengeMismatch)
        #expect(try await refusal(passkey, stored: stored) { $0.origin = "https://example.com.evil.com" } == .webauthnOriginMismatch)
        #expect(try await refusal(passkey, stored: stored) { $0.crossOrigin = true } == .webauthnCrossOrigin)
        #expect(try await refusal(passkey, stored: stored) { $0.rpID = "example.org" } == .webauthnRPIDMismatch)
        #expect(try await refusal(passkey, stored: stored) { $0.flags = SoftwarePasskey.uv } == .webauthnUserPresence)
        #expect(try await refusal(passkey, stored: stored) { $0.flags = SoftwarePasskey.up | SoftwarePasskey.bs } == .webauthnBackupState)
        #expect(try await refusal(passkey, stored: stored) { $0.flags |= SoftwarePasskey.at } == .webauthnMalformed)
        #expect(try await refusal(passkey, stored: stored) { $0.flags = SoftwarePasskey.up } == nil)
        // Reauthentication: the challenge requires UV.
        #expect(
            try await refusal(passkey, stored: stored, userVerification: .required) { $0.flags = SoftwarePasskey.up }
                == .webauthnUserVerification)
        let strict = try WebAuthnHarness(
            configuration: WebAuthnConfiguration(relyingPartyID: "example.com", relyingPartyName: "Example", userVerification: .required))
        #expect(try await refusal(passkey, stored: stored, harness: strict) { $0.flags = SoftwarePasskey.up } == .webauthnUserVerification)
        // BE must not change from what was stored.
        let eligible = try await registered(passkey, backupEligible: true)
        #expect(try await refusal(passkey, stored: eligible) == .webauthnBackupState)
        #expect(try await refusal(passkey, stored: eligible) { $0.flags |= SoftwarePasskey.be } == nil)
    }

    @Test func credentialAndUserHandleMustBeThePasskeys() async throws {
        let passkey = SoftwarePasskey.es256()
        let stored = try await registered(passkey)
        #expect(try await refusal(passkey, stored: stored) { $0.userHandle = Array("user-2".utf8) } == .webauthnUserHandleMismatch)
        #expect(try await refusal(passkey, stored: stored) { $0.userHandle = nil } == nil)
        #expect(try await refusal(passkey, stored: stored) { $0.responseCredentialID = [1, 2, 3] } == .webauthnCredentialIDMismatch)
        #expect(
            try await refusal(passkey, stored: stored) { $0.responseCredentialID = Array(repeating: 1, count: 1024) }
                == .webauthnCredentialIDTooLong)
    }

    @Test func aStoredKeyMustStillBeAnAllowedAlgorithm() async throws {
        let passkey = SoftwarePasskey.es256()
        let stored = try await registered(passkey)
        let edDSAOnly = try WebAuthnHarness(
            configuration: WebAuthnConfiguration(relyingPartyID: "example.com", relyingPartyName: "Example", algorithms: [.edDSA]))
        #expect(try await refusal(passkey, stored: stored, harness: edDSAOnly) == .webauthnUnsupportedAlgorithm)
    }

    @Test func challengeIsSingleUse() async throws {
        let harness = try WebAuthnHarness()
        let passkey = SoftwarePasskey.es256()
        let stored = try await registered(passkey)
        let options = harness.party.authenticationOptions()
        let response = try WebAuthnAuthenticationResponse(
            json: passkey.assertionJSON(
                .authentication(challenge: options.challenge.bytes, origin: WebAuthnHarness.origin, rpID: WebAuthnHarness.rpID)))
        _ = try await harness.party.verifyAuthentication(response, challenge: options.challenge, passkey: stored)
        #expect(
            await refusalCode { try await harness.party.verifyAuthentication(response, challenge: options.challenge, passkey: stored) }
                == .webauthnChallengeReplayed)
        let registration = harness.party.registrationOptions(for: WebAuthnHarness.user)
        #expect(
            await refusalCode { try await harness.party.verifyAuthentication(response, challenge: registration.challenge, passkey: stored) }
                == .webauthnCeremonyMismatch)
    }

    @Test func hostileAuthenticatorData() async throws {
        let passkey = SoftwarePasskey.es256()
        let stored = try await registered(passkey)
        #expect(
            try await refusal(passkey, stored: stored) { c in
                c.flags |= SoftwarePasskey.ed
                c.extensions = [UInt8](repeating: 0xA1, count: 10_000)
            } == .cborTooDeep)
        #expect(
            try await refusal(passkey, stored: stored) { c in
                c.flags |= SoftwarePasskey.ed
                c.extensions = [0xBF, 0xFF]
            } == .cborIndefiniteLength)
        #expect(try await refusal(passkey, stored: stored) { $0.extensions = [0xA0] } == .webauthnMalformed)
        // Truncated authenticator data, at every length below the header's 37 bytes.
        for length in 0..<37 {
            #expect(throws: FederateError.self) { try AuthenticatorData(Array(repeating: 0x41, count: length)) }
        }
    }

    @Test func storedPasskeysReadTheirKeyStrictly() async throws {
        func code(_ key: [UInt8]) -> FederateError.Code? {
            do {
                _ = try StoredPasskey(credentialID: [1], publicKey: key, signCount: 0)
                return nil
            } catch {
                return error.code
            }
        }
        let passkey = SoftwarePasskey.es256()
        #expect(code(passkey.coseKey.encoded) == nil)
        #expect(code(passkey.coseKey.encoded + [0]) == .cborTrailingBytes)
        #expect(code(TestCBOR.pairs([(.int(1), .int(2)), (.int(3), .int(-36))]).encoded) == .webauthnUnsupportedAlgorithm)
        let weak = try SoftwarePasskey.rsa(bits: 1024)
        #expect(code(weak.coseKey.encoded) == .webauthnWeakRSAKey)
        #expect(code([]) == .cborTruncated)
    }
}
