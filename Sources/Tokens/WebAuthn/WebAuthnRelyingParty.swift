import Crypto
import Foundation

/// A WebAuthn Level 3 relying party: passkey options for the browser, and the verification of
/// what comes back (§7.1 registration, §7.2 authentication, every step).
///
/// ```swift
/// let party = WebAuthnRelyingParty(
///     configuration: try WebAuthnConfiguration(relyingPartyID: "example.com", relyingPartyName: "Example"),
///     replayStore: store)
/// // registration
/// let options = party.registrationOptions(for: try WebAuthnUser(id: handle, name: email, displayName: name))
/// // ... send options.jsonText, keep options.challenge sealed ...
/// let passkey = try await party.verifyRegistration(try WebAuthnRegistrationResponse(json: body), challenge: kept)
/// // authentication
/// let response = try WebAuthnAuthenticationResponse(json: body)
/// let assertion = try await party.verifyAuthentication(response, challenge: kept, passkey: stored)
/// ```
///
/// Each challenge is used once: a verification that succeeds consumes it in the
/// ``ReplayStore`` (share one store between server instances), keyed on a digest of its bytes.
public struct WebAuthnRelyingParty: Sendable {
    /// The configuration.
    public let configuration: WebAuthnConfiguration
    /// Where consumed challenges are remembered until they expire.
    let replayStore: any ReplayStore
    /// The clock challenges are issued and checked by.
    let clock: FederateClock
    /// SHA-256 of the RP ID, which authenticator data must start with.
    let relyingPartyIDHash: [UInt8]

    /// Creates a relying party.
    public init(configuration: WebAuthnConfiguration, replayStore: any ReplayStore, clock: FederateClock = .system) {
        self.configuration = configuration
        self.replayStore = replayStore
        self.clock = clock
        self.relyingPartyIDHash = Array(SHA256.hash(data: Array(configuration.relyingPartyID.utf8)))
    }

    /// Options to create a discoverable passkey for `user` (`residentKey: required`,
    /// attestation `none`, the configured algorithms), excluding the credentials the user has.
    /// `userVerification` `.required` demands UV for this ceremony whatever the configuration says.
    public func registrationOptions(
        for user: WebAuthnUser, excluding existing: [WebAuthnCredentialDescriptor] = [],
        userVerification: WebAuthnUserVerification? = nil
    ) -> WebAuthnOptions {
        let challenge = issue(.registration, userVerification: userVerification, userHandle: user.id)
        let json: JSONValue = [
            "rp": ["id": .string(configuration.relyingPartyID), "name": .string(configuration.relyingPartyName)],
            "user": ["id": .string(Base64URL.encode(user.id)), "name": .string(user.name), "displayName": .string(user.displayName)],
            "challenge": .string(challenge.base64URL),
            "pubKeyCredParams": .array(configuration.algorithms.map { ["type": "public-key", "alg": .integer($0.rawValue)] }),
            "timeout": .integer(configuration.timeout.milliseconds),
            "excludeCredentials": .array(existing.map(\.json)),
            "authenticatorSelection": [
                "residentKey": "required", "requireResidentKey": true, "userVerification": .string(challenge.userVerification.rawValue),
            ],
            "attestation": "none",
        ]
        return WebAuthnOptions(challenge: challenge, json: json)
    }

    /// Options to sign in with a passkey: with `allowing` empty (the default), any discoverable
    /// passkey of this RP ID; otherwise one of those credentials. Pass `userVerification`
    /// `.required` to reauthenticate before a sensitive operation.
    public func authenticationOptions(
        allowing credentials: [WebAuthnCredentialDescriptor] = [], userVerification: WebAuthnUserVerification? = nil
    ) -> WebAuthnOptions {
        let challenge = issue(.authentication, userVerification: userVerification, userHandle: nil)
        let json: JSONValue = [
            "challenge": .string(challenge.base64URL),
            "timeout": .integer(configuration.timeout.milliseconds),
            "rpId": .string(configuration.relyingPartyID),
            "allowCredentials": .array(credentials.map(\.json)),
            "userVerification": .string(challenge.userVerification.rawValue),
        ]
        return WebAuthnOptions(challenge: challenge, json: json)
    }

    /// A fresh challenge of 32 random bytes for `ceremony`.
    private func issue(_ ceremony: WebAuthnCeremony, userVerification: WebAuthnUserVerification?, userHandle: [UInt8]?) -> WebAuthnChallenge
    {
        let now = clock.now
        let required = configuration.userVerification == .required || userVerification == .required
        return WebAuthnChallenge(
            bytes: SecureRandom.bytes(WebAuthnChallenge.issuedByteCount), ceremony: ceremony, issuedAt: now,
            expiresAt: now.adding(configuration.challengeLifetime), userVerification: required ? .required : .preferred,
            userHandle: userHandle)
    }
}

extension Duration {
    /// The span in whole milliseconds (the options' `timeout`), saturating at `Int64.max`.
    fileprivate var milliseconds: Int64 {
        let (whole, overflow) = components.seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return .max }
        let (total, carried) = whole.addingReportingOverflow(components.attoseconds / 1_000_000_000_000_000)
        return carried ? .max : total
    }
}
