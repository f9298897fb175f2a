import Crypto
import Foundation

extension WebAuthnRelyingParty {
    /// The checks both ceremonies make of the client data and the challenge (§7.1 steps 7-10,
    /// §7.2 steps 10-13): the challenge was issued for `ceremony` and is alive, the client
    /// data's type is the ceremony's, its challenge is the issued one (constant time), its
    /// origin one of the configured (exactly), and a cross-origin ceremony's top origin allowed.
    /// Returns SHA-256 of the client data.
    func checkClientData(_ json: [UInt8], challenge: WebAuthnChallenge, ceremony: WebAuthnCeremony) throws(FederateError) -> SHA256.Digest {
        guard challenge.ceremony == ceremony else {
            throw FederateError(.webauthnCeremonyMismatch, "the challenge was issued for a \(challenge.ceremony.rawValue)")
        }
        guard clock.now < challenge.expiresAt else { throw FederateError(.webauthnChallengeExpired, "the challenge has expired") }
        guard challenge.bytes.count >= WebAuthnChallenge.minimumByteCount else {
            throw FederateError(.webauthnChallengeMismatch, "the challenge has fewer than 16 bytes")
        }
        let clientData = try CollectedClientData(json: json)
        guard clientData.typeIs(ceremony.clientDataType) else {
            throw FederateError(.webauthnCeremonyMismatch, "the client data's type is not \(ceremony.clientDataType)")
        }
        guard ConstantTime.equals(clientData.challenge, challenge.bytes) else {
            throw FederateError(.webauthnChallengeMismatch, "the client data's challenge is not the one issued")
        }
        guard clientData.originIsOne(of: configuration.allowedOrigins) else {
            throw FederateError(.webauthnOriginMismatch, "the origin '\(clientData.originText.prefix(100))' is not an allowed origin")
        }
        if clientData.crossOrigin || clientData.topOrigin != nil {
            guard let top = clientData.topOrigin, configuration.allowedTopOrigins.contains(where: { $0.exactlyEquals(top) }) else {
                throw FederateError(.webauthnCrossOrigin, "the ceremony ran in a cross-origin frame whose top origin is not allowed")
            }
        }
        return SHA256.hash(data: json)
    }

    /// The authenticator-data checks both ceremonies make: the RP ID hash, UP, UV when the
    /// configuration or the challenge requires it, and BS only with BE.
    func checkFlags(_ data: AuthenticatorData, challenge: WebAuthnChallenge) throws(FederateError) {
        guard data.relyingPartyIDHash.elementsEqual(relyingPartyIDHash) else {
            throw FederateError(.webauthnRPIDMismatch, "the authenticator data is for another RP ID")
        }
        guard data.userPresent else { throw FederateError(.webauthnUserPresence, "the user was not present (UP is not set)") }
        if configuration.userVerification == .required || challenge.userVerification == .required {
            guard data.userVerified else {
                throw FederateError(.webauthnUserVerification, "user verification was required (UV is not set)")
            }
        }
        guard data.backupEligible || !data.backupState else {
            throw FederateError(.webauthnBackupState, "the backup state (BS) is set without backup eligibility (BE)")
        }
    }

    /// Consumes the challenge: the first successful verification of it only.
    func consume(_ challenge: WebAuthnChallenge) async throws(FederateError) {
        let key = SHA256.hash(data: challenge.bytes).withUnsafeBytes { "webauthn:" + Base64URL.encode($0) }
        let now = clock.now
        guard try await replayStore.consume(key, expiresAt: max(challenge.expiresAt, now), now: now) else {
            throw FederateError(.webauthnChallengeReplayed, "this challenge was already used")
        }
    }
}
