import FederateTestSupport
import Foundation
import Testing
@testable import FederateTokens

/// WebAuthn ceremonies across implementations nobody here wrote, run by
/// `Tests/Interop/webauthn_interop.py` in the interop venv (`Tests/Interop/venv.sh`):
/// py_webauthn and fido2 read Federate's options, and verify the ceremonies Federate's test
/// authenticator makes; Federate verifies ceremonies made by an authenticator written in Python
/// on `cryptography` and `cbor2` (ES256, EdDSA, RS256; `none` and `packed`) and by soft-webauthn;
/// and refuses, each with its code, the hostile responses built there with cbor2. A missing
/// Python fails the test, never skips it.
@Suite("Interop: WebAuthn with py_webauthn, fido2 and soft-webauthn")
struct WebAuthnInteropTests {
    @Test(.timeLimit(.minutes(20)))
    func ceremoniesVerifyBothWaysAndHostileOnesAreRefused() async throws {
        let root = try ExternalProcess.packageRoot()
        let python = try await InteropPython.prepare(root: root)
        let harness = try WebAuthnHarness()
        let registration = harness.party.registrationOptions(for: WebAuthnHarness.user)
        let authentication = harness.party.authenticationOptions()
        let rpID = WebAuthnHarness.rpID, origin = WebAuthnHarness.origin

        // Ours, for py_webauthn and fido2.
        var ours: [JSONValue] = []
        var registered: [String: RegisteredPasskey] = [:]
        let rsa = try SoftwarePasskey.rsa(bits: 2048)
        for (name, passkey, format) in [
            ("es256-none", SoftwarePasskey.es256(), "none"), ("es256-packed", .es256(), "packed"), ("eddsa-none", .ed25519(), "none"),
            ("rs256-packed", rsa, "packed"),
        ] {
            var create = PasskeyCeremony.registration(challenge: registration.challenge.bytes, origin: origin, rpID: rpID)
            create.format = format
            let get = PasskeyCeremony.authentication(
                challenge: authentication.challenge.bytes, origin: origin, rpID: rpID, signCount: 3, userHandle: passkey.userHandle)
            let registrationJSON = passkey.registrationJSON(create)
            // Federate accepts what it sends out.
            let own = try WebAuthnHarness()
            registered[name] = try await own.party.verifyRegistration(
                try WebAuthnRegistrationResponse(json: registrationJSON), challenge: registration.challenge)
            ours.append([
                "name": .string(name), "registration": try JSONParser().parse(registrationJSON),
                "authentication": try JSONParser().parse(passkey.assertionJSON(get)),
            ])
        }
        let input: JSONValue = [
            "rp_id": .string(rpID), "origin": .string(origin), "registration_challenge": .string(registration.challenge.base64URL),
            "authentication_challenge": .string(authentication.challenge.base64URL), "registration_options": registration.json,
            "authentication_options": authentication.json, "ours": .array(ours),
        ]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webauthn-interop-\(UUID().uuidString).json")
        try Data(JSONSerializer.bytes(input)).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = await ExternalProcess.run([python, "Tests/Interop/webauthn_interop.py", file.path], in: root, timeout: 120)
        try #require(run.status == 0, "webauthn_interop.py failed: \(ExternalProcess.tail(run.stderr))")
        let output = try JSONParser(limits: .init(maxBytes: 16 << 20, maxDepth: 32)).parseObject(Array(run.stdout.utf8))

        // Our options, as py_webauthn and fido2 read them.
        let options = try #require(output["options"])
        #expect(options["py_webauthn"]?["challenge"]?.stringValue == registration.challenge.base64URL)
        #expect(options["py_webauthn"]?["rp_id"] == "example.com")
        #expect(options["py_webauthn"]?["algs"] == [-7, -8, -257])
        #expect(options["py_webauthn"]?["resident_key"] == "required")
        #expect(options["py_webauthn"]?["attestation"] == "none")
        #expect(options["py_webauthn"]?["timeout"] == 300_000)
        #expect(options["py_webauthn"]?["authentication_challenge"]?.stringValue == authentication.challenge.base64URL)
        #expect(options["py_webauthn"]?["authentication_rp_id"] == "example.com")
        #expect(options["fido2"]?["algs"] == [-7, -8, -257])
        #expect(options["fido2"]?["challenge"]?.stringValue == registration.challenge.base64URL)

        // Our ceremonies, verified by py_webauthn and fido2.
        let verified = try #require(output["verified"]?.arrayValue)
        #expect(verified.count == ours.count)
        for entry in verified {
            let name = try #require(entry["name"]?.stringValue)
            let passkey = try #require(registered[name])
            #expect(entry["credential_id"]?.stringValue == Base64URL.encode(passkey.credentialID), "\(name)")
            #expect(entry["fido2_credential_id"]?.stringValue == Base64URL.encode(passkey.credentialID), "\(name)")
            #expect(entry["public_key"]?.stringValue == Base64URL.encode(passkey.publicKey), "\(name)")
            #expect(entry["fmt"]?.stringValue == passkey.attestationFormat, "\(name)")
            #expect(entry["sign_count"] == 3, "\(name)")
            #expect(entry["user_verified"] == true, "\(name)")
            #expect(entry["fido2_alg"]?.int64Value == passkey.algorithm.rawValue, "\(name)")
        }

        // Their ceremonies, verified here.
        let theirs = try #require(output["theirs"]?.arrayValue)
        #expect(theirs.count == 7)
        for entry in theirs {
            let by = entry["by"]?.stringValue ?? "?"
            let party = try WebAuthnHarness().party
            let passkey = try await party.verifyRegistration(
                try WebAuthnRegistrationResponse(json: JSONSerializer.bytes(try #require(entry["registration"]))),
                challenge: registration.challenge)
            #expect(Base64URL.encode(passkey.credentialID) == entry["credential_id"]?.stringValue, "\(by)")
            if let key = entry["public_key"]?.stringValue { #expect(Base64URL.encode(passkey.publicKey) == key, "\(by)") }
            let response = try WebAuthnAuthenticationResponse(json: JSONSerializer.bytes(try #require(entry["authentication"])))
            let assertion = try await party.verifyAuthentication(
                response, challenge: authentication.challenge, passkey: passkey.storedPasskey)
            #expect(Int64(assertion.signCount) == entry["sign_count"]?.int64Value, "\(by)")
        }

        // Hostile responses built with cbor2, each refused with its code.
        let hostile = try #require(output["hostile"]?.arrayValue)
        #expect(hostile.count >= 30)
        for entry in hostile {
            let name = entry["name"]?.stringValue ?? "?"
            let expected = FederateError.Code(rawValue: entry["code"]?.stringValue ?? "?")
            let json = JSONSerializer.bytes(try #require(entry["response"]))
            let party = try WebAuthnHarness().party
            let code: FederateError.Code?
            if entry["ceremony"] == "registration" {
                code = await refusalCode {
                    try await party.verifyRegistration(try WebAuthnRegistrationResponse(json: json), challenge: registration.challenge)
                }
            } else {
                let response = try WebAuthnAuthenticationResponse(json: json)
                let stored = try StoredPasskey(
                    credentialID: response.credentialID,
                    publicKey: try #require(entry["public_key"]?.stringValue.flatMap(Base64URL.decode)),
                    signCount: UInt32(entry["sign_count"]?.int64Value ?? 0))
                let challenge = WebAuthnChallenge(
                    bytes: authentication.challenge.bytes, ceremony: .authentication, issuedAt: authentication.challenge.issuedAt,
                    expiresAt: authentication.challenge.expiresAt, userVerification: entry["require_uv"] == true ? .required : .preferred)
                code = await refusalCode { try await party.verifyAuthentication(response, challenge: challenge, passkey: stored) }
            }
            #expect(code == expected, "\(name)")
        }
    }
}
