// The tokens, keys and verifier that both benchmark executables measure.

public import Crypto
public import Federate
import Foundation
public import _CryptoExtras

/// Everything the benchmarks verify, built once per benchmark process.
public struct Fixture: @unchecked Sendable {
    public static let issuer = "https://bench.federate.dev"
    public static let audience = "bench-client"

    public let rsaToken: String
    /// An RS256 ID token with the claims Google's carry (15, a 100-character `picture`): the
    /// size of a real sign-in's token, where ``rsaToken`` is a minimal one.
    public let googleShapedToken: String
    public let ecToken: String
    public let keySet: JSONWebKeySet
    /// The ID-token verifier, its verified-token cache off: every call verifies in full.
    public let verifier: IDTokenVerifier
    /// The verifier `federate serve`'s bearer middleware calls: the same ID-token verifier
    /// behind the `TokenVerifier` protocol, async, keys from a provider (cache off too).
    public let bearer: any TokenVerifier
    /// The same bearer verifier with its verified-token cache on (the default): a repeated
    /// token is a cache hit.
    public let cachedBearer: any TokenVerifier

    /// The public keys of the tokens' signers, for the floor (``ParsedSignature``).
    public let rsaTokenKey: _RSA.Signing.PublicKey
    public let ecTokenKey: P256.Signing.PublicKey

    public let rsaPublicKey: _RSA.Signing.PublicKey
    public let rsaSignature: _RSA.Signing.RSASignature
    public let rsaDigest: SHA256Digest
    public let p256PublicKey: P256.Signing.PublicKey
    public let p256Signature: P256.Signing.ECDSASignature
    public let p256Digest: SHA256Digest

    public init() {
        do {
            // Generated with swift-crypto and handed to Federate as PEM, so the floor can check
            // the same tokens with swift-crypto alone.
            let rsaPrivateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let ecPrivateKey = P256.Signing.PrivateKey()
            rsaTokenKey = rsaPrivateKey.publicKey
            ecTokenKey = ecPrivateKey.publicKey
            let rsa = try JWSSigningKey.fromPEM(rsaPrivateKey.pemRepresentation, keyID: "bench-rsa").key
            let ec = try JWSSigningKey.fromPEM(ecPrivateKey.pemRepresentation, keyID: "bench-ec").key
            let now = Int64(Date().timeIntervalSince1970)
            // Valid for a day, so a long run never crosses `exp`.
            let claims: [String: JSONValue] = [
                "iss": .string(Self.issuer), "aud": .string(Self.audience), "sub": "248289761001",
                "email": "alice@example.com", "email_verified": true, "name": "Alice Example",
                "iat": .integer(now - 60), "exp": .integer(now + 86_400),
            ]
            rsaToken = try rsa.sign(claims: claims, algorithm: .rs256)
            var google = claims
            google["azp"] = .string(Self.audience)
            google["at_hash"] = "HK6E_P6Dh8Y93mRNtsDB1Q"
            google["nbf"] = .integer(now - 360)
            google["given_name"] = "Alice"
            google["family_name"] = "Example"
            google["picture"] = "https://lh3.googleusercontent.com/a/ACg8ocJ7dX4kW2qz9vLmP0rT5sYbN1uE8fHjKcQwZaVxRtGyUiOp=s96-c"
            google["jti"] = "0f3c9a7e21b84d6fa5c1e2d3b4a59687f1e2d3c4"
            googleShapedToken = try rsa.sign(claims: google, algorithm: .rs256)
            ecToken = try ec.sign(claims: claims, algorithm: .es256)
            guard let rsaJWK = rsa.publicJWK(algorithm: .rs256), let ecJWK = ec.publicJWK(algorithm: .es256) else {
                fatalError("benchmark fixture: no public JWK")
            }
            keySet = try JSONWebKeySet(keys: [JSONWebKey(jwk: rsaJWK), JSONWebKey(jwk: ecJWK)])
            let policy = IDTokenPolicy(issuers: [Self.issuer], audiences: [Self.audience], allowedAlgorithms: [.rs256, .es256])
            verifier = IDTokenVerifier(policy: policy, keys: keySet, cache: .disabled)
            bearer = IDTokenBearerVerifier(providerID: "oidc.bench", verifier: verifier)
            cachedBearer = IDTokenBearerVerifier(providerID: "oidc.bench", verifier: IDTokenVerifier(policy: policy, keys: keySet))

            // The raw baselines: the same RSA-2048 and P-256 primitives, nothing else.
            let message = Array("header.payload".utf8)
            let rsaPrivate = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            rsaPublicKey = rsaPrivate.publicKey
            rsaDigest = SHA256.hash(data: message)
            rsaSignature = try rsaPrivate.signature(for: rsaDigest, padding: .insecurePKCS1v1_5)
            let p256Private = P256.Signing.PrivateKey()
            p256PublicKey = p256Private.publicKey
            p256Digest = SHA256.hash(data: message)
            p256Signature = try p256Private.signature(for: p256Digest)
        } catch {
            fatalError("benchmark fixture: \(error)")
        }
    }

    public static let shared = Fixture()

    /// The raw RSA-2048 check, the baseline of the RS256 measures.
    @inline(never)
    public func verifyRawRSA() {
        precondition(rsaPublicKey.isValidSignature(rsaSignature, for: rsaDigest, padding: .insecurePKCS1v1_5))
    }

    /// The raw P-256 check, the baseline of the ES256 measures.
    @inline(never)
    public func verifyRawP256() {
        precondition(p256PublicKey.isValidSignature(p256Signature, for: p256Digest))
    }
}

/// A token split once, outside the loop: checking its signature with swift-crypto alone (the
/// signature bytes into swift-crypto, SHA-256 of the signing input, the verify) is the floor of
/// any JWS verification, whatever library parses the token.
public struct ParsedSignature: Sendable {
    enum Key: Sendable {
        case rsa(_RSA.Signing.PublicKey)
        case p256(P256.Signing.PublicKey)
    }

    let signature: [UInt8]
    let signingInput: [UInt8]
    let key: Key

    /// Splits `token`, an RS256 or ES256 token of `fixture`.
    public init(_ token: String, algorithm: JWSAlgorithm, _ fixture: Fixture) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let signature = base64URLDecoded(parts[2]) else {
            fatalError("benchmark fixture: the \(algorithm.rawValue) token does not split")
        }
        self.signature = signature
        self.signingInput = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        switch algorithm {
        case .rs256: key = .rsa(fixture.rsaTokenKey)
        case .es256: key = .p256(fixture.ecTokenKey)
        default: fatalError("benchmark fixture: no floor for \(algorithm.rawValue)")
        }
    }

    /// Checks the signature; it must verify.
    @inline(never)
    public func verify() {
        let digest = SHA256.hash(data: signingInput)
        switch key {
        case .rsa(let key):
            let signature = _RSA.Signing.RSASignature(rawRepresentation: signature)
            precondition(key.isValidSignature(signature, for: digest, padding: .insecurePKCS1v1_5))
        case .p256(let key):
            guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else {
                fatalError("benchmark fixture: not an ES256 signature")
            }
            precondition(key.isValidSignature(signature, for: digest))
        }
    }
}

/// Unpadded base64url, decoded with Foundation (outside any measured loop).
private func base64URLDecoded(_ text: Substring) -> [UInt8]? {
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    return Data(base64Encoded: base64).map(Array.init)
}

/// One ID-token verification, which must pass (or the benchmark measures a failure path):
/// the one async `verify`, which with the keys at hand runs to its verdict without suspending.
@inline(never)
public func verifyAsync(_ token: String, _ fixture: Fixture) async {
    do {
        sink(try await fixture.verifier.verify(token))
    } catch {
        fatalError("verification failed: \(error)")
    }
}

/// One bearer-token verification as the server's middleware makes it: `TokenVerifier.verify`,
/// the one async entry point, which with the keys at hand runs on the caller's executor
/// without suspending; `cached`, through the verifier whose verified-token cache is on.
@inline(never)
public func verifyToken(_ token: String, _ fixture: Fixture, cached: Bool = false) async {
    do {
        sink(try await (cached ? fixture.cachedBearer : fixture.bearer).verify(token))
    } catch {
        fatalError("verification failed: \(error)")
    }
}

/// Verifies `count` RS256 tokens, split across `tasks` concurrent child tasks.
public func verifyBatch(count: Int, tasks: Int, _ fixture: Fixture) async {
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<tasks {
            group.addTask {
                for _ in 0..<(count / tasks) { await verifyAsync(fixture.rsaToken, fixture) }
            }
        }
    }
}

/// Keeps a value alive so the optimizer cannot drop the work that produced it.
@inline(never)
public func sink<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
