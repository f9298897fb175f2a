import Federate
import Foundation

/// The CBOR reader and what WebAuthn builds on it. The input is read as one CBOR item (its
/// prefix must read back to the same value), as a stored COSE public key, and as the
/// attestation object of a registration whose client data is right for a fixed challenge,
/// origin and credential ID (`none` attestation has no signature, so the fuzzer can reach
/// acceptance). Any input may be refused with a typed error; none may trap, and an accepted
/// registration must satisfy §7.1 byte for byte.
enum WebAuthnTarget {
    static let rpID = "fuzz.example"
    static let origin = "https://fuzz.example"
    static let now = Date(timeIntervalSince1970: 1_767_225_600)
    static let configuration: WebAuthnConfiguration = {
        do {
            return try WebAuthnConfiguration(relyingPartyID: rpID, relyingPartyName: "Fuzz")
        } catch {
            fatalError("fuzz WebAuthn configuration: \(error)")
        }
    }()
    /// 32 bytes of 0x02.
    static let challenge = WebAuthnChallenge(
        bytes: Array(repeating: 2, count: 32), ceremony: .registration, issuedAt: now, expiresAt: now.addingTimeInterval(300),
        userVerification: .preferred)
    /// 16 bytes of 0x01.
    static let credentialID = [UInt8](repeating: 1, count: 16)
    static let clientDataJSON = base64URL(
        Array(#"{"type":"webauthn.create","challenge":"\#(base64URL(challenge.bytes))","origin":"\#(origin)","crossOrigin":false}"#.utf8))

    static func run(_ bytes: [UInt8]) {
        if let (value, count) = try? CBORReader().decodePrefix(bytes[...]) {
            precondition(count >= 1 && count <= bytes.count, "consumed \(count) of \(bytes.count) bytes")
            precondition((try? CBORReader().decode(Array(bytes[0..<count]))) == value, "the item's own bytes read differently")
        }
        if let stored = try? StoredPasskey(credentialID: credentialID, publicKey: bytes, signCount: 0) {
            precondition(COSEAlgorithm.supported.contains(stored.algorithm), "accepted \(stored.algorithm)")
        }
        let json = #"{"id":"\#(base64URL(credentialID))","rawId":"\#(base64URL(credentialID))","type":"public-key","response":{"clientDataJSON":"\#(clientDataJSON)","attestationObject":"\#(base64URL(bytes))"}}"#
        guard let response = try? WebAuthnRegistrationResponse(json: Array(json.utf8)) else {
            preconditionFailure("the response around the input did not parse")
        }
        synchronously {
            let party = WebAuthnRelyingParty(configuration: configuration, replayStore: InMemoryReplayStore(capacity: 4), clock: .fixed(at: now))
            guard let passkey = try? await party.verifyRegistration(response, challenge: challenge) else { return }
            precondition(passkey.credentialID == credentialID, "accepted another credential ID")
            precondition(["none", "packed"].contains(passkey.attestationFormat), "accepted format \(passkey.attestationFormat)")
            precondition(!passkey.backupState || passkey.backupEligible, "accepted BS without BE")
            precondition((try? StoredPasskey(credentialID: credentialID, publicKey: passkey.publicKey, signCount: 0)) != nil, "its key does not read back")
            // The authenticator data starts with SHA-256("fuzz.example") and has UP set.
            guard let object = try? CBORReader().decode(bytes), let authData = object[text: "authData"]?.bytesValue else {
                preconditionFailure("accepted an attestation object without authData")
            }
            precondition(authData.count >= 37 && authData[32] & 0x01 != 0, "accepted without UP")
            precondition(Array(authData[0..<32]) == rpIDHash, "accepted another RP ID hash")
        }
    }

    /// SHA-256("fuzz.example"), computed outside Federate.
    static let rpIDHash: [UInt8] = Array(Data(base64Encoded: "ry0jF4T12Wf0Tr51lPfyBg5YHHvnR7MQHRfEf3SvZGo=") ?? Data())

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
