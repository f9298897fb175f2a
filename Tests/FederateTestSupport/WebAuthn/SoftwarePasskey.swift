import Crypto
import Foundation
import _CryptoExtras

/// A software authenticator for tests: it holds a credential's private key and writes the
/// ceremonies a browser would send (`RegistrationResponseJSON`, `AuthenticationResponseJSON`),
/// every part adjustable through ``PasskeyCeremony`` so a test can break exactly one check.
public struct SoftwarePasskey: Sendable {
    enum Key: Sendable {
        case p256(P256.Signing.PrivateKey)
        case ed25519(Curve25519.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey)
    }

    let key: Key
    /// The credential ID.
    public var credentialID: [UInt8]
    /// The user handle it returns with assertions.
    public var userHandle: [UInt8]
    /// The authenticator's model identifier.
    public var aaguid: [UInt8] = Array(repeating: 0, count: 16)

    /// User present.
    public static let up: UInt8 = 0x01
    /// User verified.
    public static let uv: UInt8 = 0x04
    /// Backup eligible.
    public static let be: UInt8 = 0x08
    /// Backed up.
    public static let bs: UInt8 = 0x10
    /// Attested credential data included.
    public static let at: UInt8 = 0x40
    /// Extensions included.
    public static let ed: UInt8 = 0x80

    init(key: Key, credentialID: [UInt8]?, userHandle: [UInt8]) {
        self.key = key
        self.credentialID = credentialID ?? (0..<32).map { _ in UInt8.random(in: 0...255) }
        self.userHandle = userHandle
    }

    /// An ES256 (P-256) passkey.
    public static func es256(credentialID: [UInt8]? = nil, userHandle: [UInt8] = Array("user-1".utf8)) -> SoftwarePasskey {
        SoftwarePasskey(key: .p256(P256.Signing.PrivateKey()), credentialID: credentialID, userHandle: userHandle)
    }

    /// An EdDSA (Ed25519) passkey.
    public static func ed25519(credentialID: [UInt8]? = nil, userHandle: [UInt8] = Array("user-1".utf8)) -> SoftwarePasskey {
        SoftwarePasskey(key: .ed25519(Curve25519.Signing.PrivateKey()), credentialID: credentialID, userHandle: userHandle)
    }

    /// An RS256 passkey of `bits` (1024 allowed, to test its refusal).
    public static func rsa(
        bits: Int = 2048, credentialID: [UInt8]? = nil, userHandle: [UInt8] = Array("user-1".utf8)
    ) throws -> SoftwarePasskey {
        let key = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: bits))
        return SoftwarePasskey(key: .rsa(key), credentialID: credentialID, userHandle: userHandle)
    }

    /// The COSE algorithm: -7, -8 or -257.
    public var algorithm: Int64 {
        switch key {
        case .p256: -7
        case .ed25519: -8
        case .rsa: -257
        }
    }

    /// The public key as a COSE key (RFC 9053), with `alg`.
    public var coseKey: TestCBOR {
        switch key {
        case .p256(let key):
            let raw = Array(key.publicKey.rawRepresentation)
            return .pairs([
                (.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)), (.int(-2), .bytes(Array(raw[0..<32]))),
                (.int(-3), .bytes(Array(raw[32...]))),
            ])
        case .ed25519(let key):
            return .pairs([
                (.int(1), .int(1)), (.int(3), .int(-8)), (.int(-1), .int(6)), (.int(-2), .bytes(Array(key.publicKey.rawRepresentation))),
            ])
        case .rsa(let key):
            let primitives = try? key.publicKey.getKeyPrimitives()
            return .pairs([
                (.int(1), .int(3)), (.int(3), .int(-257)), (.int(-1), .bytes(Array(primitives?.modulus ?? Data()))),
                (.int(-2), .bytes(Array(primitives?.publicExponent ?? Data()))),
            ])
        }
    }

    /// Signs `message`: DER ECDSA, raw Ed25519, or RSASSA-PKCS1-v1_5 with SHA-256.
    public func sign(_ message: [UInt8]) -> [UInt8] {
        switch key {
        case .p256(let key): return (try? key.signature(for: message)).map { Array($0.derRepresentation) } ?? []
        case .ed25519(let key): return (try? key.signature(for: message)).map { Array($0) } ?? []
        case .rsa(let key): return (try? key.signature(for: message, padding: .insecurePKCS1v1_5)).map { Array($0.rawRepresentation) } ?? []
        }
    }

    /// `clientDataJSON` for `ceremony`.
    public func clientDataJSON(_ ceremony: PasskeyCeremony) -> [UInt8] {
        if let override = ceremony.clientDataJSON { return override }
        var text = #"{"type":"\#(ceremony.type)","challenge":"\#(base64URL(ceremony.challenge))","origin":"\#(ceremony.origin)""#
        text += ceremony.crossOrigin ? #","crossOrigin":true"# : #","crossOrigin":false"#
        if let top = ceremony.topOrigin { text += #","topOrigin":"\#(top)""# }
        return Array((text + "}").utf8)
    }

    /// Authenticator data for `ceremony`, with attested credential data when its flags have AT.
    public func authenticatorData(_ ceremony: PasskeyCeremony) -> [UInt8] {
        var data = Array(SHA256.hash(data: Array(ceremony.rpID.utf8)))
        data.append(ceremony.flags)
        data += TestCBOR.bigEndian(UInt64(ceremony.signCount), 4)
        if ceremony.flags & Self.at != 0 {
            let id = ceremony.credentialIDInAuthenticatorData ?? credentialID
            data += aaguid + TestCBOR.bigEndian(UInt64(id.count), 2) + id
            data += ceremony.coseKey ?? coseKey.encoded
        }
        if let extensions = ceremony.extensions { data += extensions }
        return data
    }

    /// A `RegistrationResponseJSON` for `ceremony` (its flags should include AT).
    public func registrationJSON(_ ceremony: PasskeyCeremony) -> [UInt8] {
        let clientData = clientDataJSON(ceremony)
        let authData = authenticatorData(ceremony)
        let statement: TestCBOR
        if let given = ceremony.statement {
            statement = given
        } else if ceremony.format == "packed" {
            let signature = sign(authData + Array(SHA256.hash(data: clientData)))
            statement = .pairs([(.text("alg"), .int(algorithm)), (.text("sig"), .bytes(signature))])
        } else {
            statement = .map([])
        }
        let attestation = TestCBOR.pairs([
            (.text("fmt"), .text(ceremony.format)), (.text("attStmt"), statement), (.text("authData"), .bytes(authData)),
        ])
        let id = base64URL(ceremony.responseCredentialID ?? credentialID)
        let text =
            #"{"id":"\#(id)","rawId":"\#(id)","type":"public-key","response":{"clientDataJSON":"\#(base64URL(clientData))","attestationObject":"\#(base64URL(ceremony.attestationObject ?? attestation.encoded))","transports":["internal","hybrid"]},"clientExtensionResults":{},"authenticatorAttachment":"platform"}"#
        return Array(text.utf8)
    }

    /// An `AuthenticationResponseJSON` for `ceremony`, signed unless it carries a signature.
    public func assertionJSON(_ ceremony: PasskeyCeremony) -> [UInt8] {
        let clientData = clientDataJSON(ceremony)
        let authData = authenticatorData(ceremony)
        let signature = ceremony.signature ?? sign(authData + Array(SHA256.hash(data: clientData)))
        let id = base64URL(ceremony.responseCredentialID ?? credentialID)
        let handle = ceremony.userHandle.map { #""\#(base64URL($0))""# } ?? "null"
        let text =
            #"{"id":"\#(id)","rawId":"\#(id)","type":"public-key","response":{"clientDataJSON":"\#(base64URL(clientData))","authenticatorData":"\#(base64URL(authData))","signature":"\#(base64URL(signature))","userHandle":\#(handle)},"clientExtensionResults":{}}"#
        return Array(text.utf8)
    }
}

/// One ceremony as a ``SoftwarePasskey`` answers it: what the browser and the authenticator
/// put in, each member changeable to break one check.
public struct PasskeyCeremony: Sendable {
    /// The client data's type.
    public var type: String
    /// The challenge the client data carries.
    public var challenge: [UInt8]
    /// The client data's origin.
    public var origin: String
    /// The client data's `crossOrigin`.
    public var crossOrigin = false
    /// The client data's `topOrigin`.
    public var topOrigin: String?
    /// The RP ID whose hash starts the authenticator data.
    public var rpID: String
    /// The flags byte.
    public var flags: UInt8
    /// The signature counter.
    public var signCount: UInt32 = 0
    /// Extensions (an encoded CBOR map) appended to the authenticator data; set ED in ``flags`` too.
    public var extensions: [UInt8]?
    /// The attestation format.
    public var format = "none"
    /// The attestation statement; `nil` derives it (`none`: empty; `packed`: self-attestation).
    public var statement: TestCBOR?
    /// The COSE key bytes in the authenticator data; `nil`: the passkey's.
    public var coseKey: [UInt8]?
    /// The credential ID in the authenticator data; `nil`: the passkey's.
    public var credentialIDInAuthenticatorData: [UInt8]?
    /// The credential ID in the response's `id`/`rawId`; `nil`: the passkey's.
    public var responseCredentialID: [UInt8]?
    /// The whole attestation object; `nil`: built from the members above.
    public var attestationObject: [UInt8]?
    /// The whole client data; `nil`: built from the members above.
    public var clientDataJSON: [UInt8]?
    /// The assertion's signature; `nil`: signed.
    public var signature: [UInt8]?
    /// The assertion's `userHandle`.
    public var userHandle: [UInt8]?

    /// A registration (`webauthn.create`, UP, UV and AT) on `origin` for `rpID`.
    public static func registration(challenge: [UInt8], origin: String, rpID: String) -> PasskeyCeremony {
        PasskeyCeremony(
            type: "webauthn.create", challenge: challenge, origin: origin, rpID: rpID,
            flags: SoftwarePasskey.up | SoftwarePasskey.uv | SoftwarePasskey.at)
    }

    /// An authentication (`webauthn.get`, UP and UV) on `origin` for `rpID`, counter `signCount`.
    public static func authentication(
        challenge: [UInt8], origin: String, rpID: String, signCount: UInt32 = 0, userHandle: [UInt8]? = nil
    ) -> PasskeyCeremony {
        PasskeyCeremony(
            type: "webauthn.get", challenge: challenge, origin: origin, rpID: rpID, flags: SoftwarePasskey.up | SoftwarePasskey.uv,
            signCount: signCount, userHandle: userHandle)
    }
}

/// Unpadded base64url.
func base64URL(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}
