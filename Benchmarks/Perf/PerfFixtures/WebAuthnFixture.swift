import Crypto
import Federate
import Foundation

/// A passkey sign-in (WebAuthn §7.2): an ES256 assertion for `bench.federate.dev`, verified
/// from its JSON by a relying party whose clock stays at the challenge's issue, against the
/// stored passkey (its COSE key read once, as a server keeps it). The replay store accepts
/// every challenge: its cost is the store's.
public struct WebAuthnFixture: Sendable {
    public static let rpID = "bench.federate.dev"
    public let party: WebAuthnRelyingParty
    public let challenge: WebAuthnChallenge
    public let passkey: StoredPasskey
    public let responseJSON: [UInt8]
    /// The same check in swift-crypto alone: the DER signature, SHA-256 of
    /// `authenticatorData || SHA-256(clientDataJSON)`, the verify.
    public let rawKey: P256.Signing.PublicKey
    public let rawSignature: [UInt8]
    public let rawMessage: [UInt8]

    init() {
        do {
            let key = P256.Signing.PrivateKey()
            let point = Array(key.publicKey.rawRepresentation)
            let cose = [0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20] + point[0..<32] + [0x22, 0x58, 0x20] + point[32...]
            let credentialID = [UInt8](repeating: 0x2A, count: 32)
            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            challenge = WebAuthnChallenge(
                bytes: [UInt8](repeating: 0x07, count: 32), ceremony: .authentication, issuedAt: now,
                expiresAt: now.addingTimeInterval(300),
                userVerification: .preferred)
            let configuration = try WebAuthnConfiguration(relyingPartyID: Self.rpID, relyingPartyName: "Bench")
            party = WebAuthnRelyingParty(configuration: configuration, replayStore: AcceptingReplayStore(), clock: .fixed(at: now))
            passkey = try StoredPasskey(credentialID: credentialID, publicKey: Array(cose), signCount: 0, userHandle: Array("user".utf8))
            let clientData = Array(
                #"{"type":"webauthn.get","challenge":"\#(Self.base64URL(challenge.bytes))","origin":"https://\#(Self.rpID)","crossOrigin":false}"#
                    .utf8)
            let authData = Array(SHA256.hash(data: Array(Self.rpID.utf8))) + [0x05, 0, 0, 0, 0]
            rawMessage = authData + Array(SHA256.hash(data: clientData))
            rawSignature = Array(try key.signature(for: rawMessage).derRepresentation)
            rawKey = key.publicKey
            responseJSON = Array(
                #"{"id":"\#(Self.base64URL(credentialID))","rawId":"\#(Self.base64URL(credentialID))","type":"public-key","response":{"clientDataJSON":"\#(Self.base64URL(clientData))","authenticatorData":"\#(Self.base64URL(authData))","signature":"\#(Self.base64URL(rawSignature))","userHandle":"dXNlcg"},"clientExtensionResults":{}}"#
                    .utf8)
        } catch {
            fatalError("WebAuthn fixture: \(error)")
        }
    }

    public static let shared = WebAuthnFixture()

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The raw check: what any WebAuthn library must do at least.
    @inline(never)
    public func verifyRaw() {
        guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: rawSignature) else { fatalError("DER") }
        precondition(rawKey.isValidSignature(signature, for: SHA256.hash(data: rawMessage)))
    }
}

/// A replay store that accepts every value (the benchmark verifies one assertion repeatedly).
struct AcceptingReplayStore: ReplayStore {
    func consume(_ key: String, expiresAt: Date, now: Date) async throws(FederateError) -> Bool { true }
}

/// Reads the assertion's JSON and verifies it with the stored passkey.
@inline(never)
public func verifyPasskeyAssertion(_ fixture: WebAuthnFixture) async {
    do {
        let response = try WebAuthnAuthenticationResponse(json: fixture.responseJSON)
        let assertion = try await fixture.party.verifyAuthentication(response, challenge: fixture.challenge, passkey: fixture.passkey)
        sink(assertion)
    } catch {
        fatalError("WebAuthn verification failed: \(error)")
    }
}
