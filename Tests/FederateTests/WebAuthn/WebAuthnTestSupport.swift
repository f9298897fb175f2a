import FederateTestSupport
import Foundation
@testable import FederateTokens

/// A relying party for `example.com` on a hand-moved clock, and the ceremonies a
/// ``SoftwarePasskey`` answers its options with.
struct WebAuthnHarness {
    static let rpID = "example.com"
    static let origin = "https://example.com"

    let clock = TestClock(Date(timeIntervalSince1970: 1_800_000_000))
    let store: any ReplayStore
    let party: WebAuthnRelyingParty

    init(configuration: WebAuthnConfiguration? = nil, store: any ReplayStore = InMemoryReplayStore()) throws {
        self.store = store
        let configuration = try configuration ?? WebAuthnConfiguration(relyingPartyID: Self.rpID, relyingPartyName: "Example")
        party = WebAuthnRelyingParty(configuration: configuration, replayStore: store, clock: clock.clock)
    }

    static let user: WebAuthnUser = {
        do { return try WebAuthnUser(id: Array("user-1".utf8), name: "ada@example.com", displayName: "Ada") } catch {
            fatalError("\(error)")
        }
    }()

    /// Registers `passkey` after `change` adjusts the ceremony (and `options` the challenge kept).
    func register(
        _ passkey: SoftwarePasskey, userVerification: WebAuthnUserVerification? = nil, _ change: (inout PasskeyCeremony) -> Void = { _ in }
    ) async throws(FederateError) -> RegisteredPasskey {
        let options = party.registrationOptions(for: Self.user, userVerification: userVerification)
        var ceremony = PasskeyCeremony.registration(challenge: options.challenge.bytes, origin: Self.origin, rpID: Self.rpID)
        change(&ceremony)
        let response = try WebAuthnRegistrationResponse(json: passkey.registrationJSON(ceremony))
        return try await party.verifyRegistration(response, challenge: options.challenge)
    }

    /// Authenticates with `passkey`, stored as `stored`, after `change` adjusts the ceremony.
    func authenticate(
        _ passkey: SoftwarePasskey, stored: StoredPasskey, signCount: UInt32 = 0, userVerification: WebAuthnUserVerification? = nil,
        _ change: (inout PasskeyCeremony) -> Void = { _ in }
    ) async throws(FederateError) -> VerifiedPasskeyAssertion {
        let options = party.authenticationOptions(userVerification: userVerification)
        var ceremony = PasskeyCeremony.authentication(
            challenge: options.challenge.bytes, origin: Self.origin, rpID: Self.rpID, signCount: signCount, userHandle: passkey.userHandle)
        change(&ceremony)
        let response = try WebAuthnAuthenticationResponse(json: passkey.assertionJSON(ceremony))
        return try await party.verifyAuthentication(response, challenge: options.challenge, passkey: stored)
    }
}
