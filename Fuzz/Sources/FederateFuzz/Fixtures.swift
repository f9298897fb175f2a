import Crypto
import Federate
import Foundation

/// The fixed inputs the fuzz targets check against, read from the repository so the seed
/// corpora and the checks agree.
enum Fixtures {
    /// The repository root (this file is `Fuzz/Sources/FederateFuzz/Fixtures.swift`).
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func file(_ path: String) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: root.appendingPathComponent(path).path) else {
            FileHandle.standardError.write(Data("fuzz fixture missing: \(path)\n".utf8))
            exit(2)
        }
        return Array(data)
    }

    static func lines(_ path: String) -> Set<String> {
        Set(String(decoding: file(path), as: UTF8.self).split(separator: "\n").map(String.init))
    }

    // MARK: ID tokens: the demo key set and tokens (Examples/, from scripts/make-demo-tokens.py)

    static let keySet: JSONWebKeySet = {
        do {
            return try JSONWebKeySet(jwks: file("Examples/demo-jwks.json"))
        } catch {
            fatalError("demo key set: \(error)")
        }
    }()

    /// Every algorithm allowed, and an HMAC secret configured, so every code path is reachable.
    static let verifier = IDTokenVerifier(
        policy: IDTokenPolicy(
            issuers: ["https://demo.federate.dev"], audiences: ["demo-client"],
            allowedAlgorithms: Set(JWSAlgorithm.allCases),
            hmacSecret: HMACSecret(utf8: "fuzz-hmac-secret-of-thirty-two-bytes!!")),
        keys: keySet, clock: .fixed(at: Date(timeIntervalSince1970: 1_767_225_600)))

    /// The demo tokens: the only ones that may ever verify.
    static let signedTokens = lines("Examples/demo-tokens.txt")

    static let expectations = IDTokenExpectations()

    // MARK: Discovery and callbacks

    static let issuer = "https://op.example"
    static let now = Date(timeIntervalSince1970: 1_767_225_600)

    static let metadata: ProviderMetadata = {
        do {
            return try ProviderMetadata(document: file("Fuzz/Corpus/discovery/valid.json"), expectedIssuer: issuer)
        } catch {
            fatalError("fuzz metadata: \(error)")
        }
    }()

    static let pending = PendingAuthorization(
        issuer: issuer, providerID: "oidc.fuzz", clientID: "fuzz-client", redirectURI: "https://rp.example/cb",
        state: "fuzz-state-0123456789abcdefghijklmnopqrstuvw", nonce: "fuzz-nonce",
        codeVerifier: "fuzz-verifier-0123456789abcdefghijklmnopqrstuvwxyz", scopes: ["openid"], responseMode: nil,
        maxAge: nil, intent: .signIn, createdAt: now.addingTimeInterval(-60), expiresAt: now.addingTimeInterval(540))

    // MARK: Sealed pending authorizations

    /// 32 bytes of 0x01 under key id `fuzz` (Fuzz/Corpus/sealed-pending was sealed with it).
    static let sealer: PendingAuthorizationSealer = {
        do {
            return PendingAuthorizationSealer(
                keys: try SealingKeyRing([.init(id: "fuzz", key: SymmetricKey(data: [UInt8](repeating: 1, count: 32)))]))
        } catch {
            fatalError("fuzz sealer: \(error)")
        }
    }()

    /// The seeds sealed with ``sealer``: the only values that may ever open.
    static let sealedValues = lines("Fuzz/Corpus/sealed-pending/sealed.txt")
}
