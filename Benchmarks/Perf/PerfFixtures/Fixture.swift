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
    public let verifier: IDTokenVerifier
    /// The verifier `federate serve`'s bearer middleware calls: the same ID-token verifier
    /// behind the `BearerTokenVerifier` protocol, async, keys from a provider.
    public let bearer: any BearerTokenVerifier

    public let rsaPublicKey: _RSA.Signing.PublicKey
    public let rsaSignature: _RSA.Signing.RSASignature
    public let rsaDigest: SHA256Digest
    public let p256PublicKey: P256.Signing.PublicKey
    public let p256Signature: P256.Signing.ECDSASignature
    public let p256Digest: SHA256Digest

    public init() {
        do {
            let rsa = try JWSSigningKey.generateRSA(keyID: "bench-rsa")
            let ec = JWSSigningKey(p256: P256.Signing.PrivateKey(), keyID: "bench-ec")
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
            verifier = IDTokenVerifier(
                policy: IDTokenPolicy(issuers: [Self.issuer], audiences: [Self.audience], allowedAlgorithms: [.rs256, .es256]),
                keys: keySet
            )
            bearer = IDTokenBearerVerifier(providerID: "oidc.bench", verifier: verifier)

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

/// A token parsed once, with the key its `kid` names: checking its signature alone (the
/// signature bytes into swift-crypto, SHA-256 of the signing input, the verify) is the floor of
/// any JWS verification.
public struct ParsedSignature: Sendable {
    let signature: [UInt8]
    let signingInput: [UInt8]
    let key: JSONWebKey
    let algorithm: JWSAlgorithm

    /// Parses `token` and finds key `keyID` in the fixture's key set.
    public init(_ token: String, keyID: String, algorithm: JWSAlgorithm, _ fixture: Fixture) {
        guard let jws = try? CompactJWS(parsing: token), let key = fixture.keySet.key(withID: keyID) else {
            fatalError("benchmark fixture: the \(algorithm.rawValue) token does not parse or its key is missing")
        }
        self.signature = jws.signature
        self.signingInput = jws.signingInput
        self.key = key
        self.algorithm = algorithm
    }

    /// Checks the signature; it must verify.
    @inline(never)
    public func verify() {
        precondition(key.verify(signature: signature, signingInput: signingInput, algorithm: algorithm))
    }
}

/// One sign-in's worth of checks that must pass, or the benchmark measures a failure path.
@inline(never)
public func verifySync(_ token: String, _ fixture: Fixture) {
    do {
        sink(try fixture.verifier.verify(token, keySet: fixture.keySet))
    } catch {
        fatalError("verification failed: \(error)")
    }
}

@inline(never)
public func verifyAsync(_ token: String, _ fixture: Fixture) async {
    do {
        sink(try await fixture.verifier.verify(token))
    } catch {
        fatalError("verification failed: \(error)")
    }
}

/// One bearer-token verification as the server's middleware makes it: `verifyCaller`, the one
/// async entry point, which with the keys at hand runs on the caller's executor without
/// suspending.
@inline(never)
public func verifyCaller(_ token: String, _ fixture: Fixture) async {
    do {
        sink(try await fixture.bearer.verifyCaller(token))
    } catch {
        fatalError("verification failed: \(error)")
    }
}

/// One bearer-token verification through `verifyBearer`.
@inline(never)
public func verifyBearer(_ token: String, _ fixture: Fixture) async {
    do {
        sink(try await fixture.bearer.verifyBearer(token, expecting: IDTokenExpectations()))
    } catch {
        fatalError("verification failed: \(error)")
    }
}

/// Verifies `count` RS256 tokens, split across `tasks` concurrent child tasks.
public func verifyBatch(count: Int, tasks: Int, _ fixture: Fixture) async {
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<tasks {
            group.addTask {
                for _ in 0..<(count / tasks) { verifySync(fixture.rsaToken, fixture) }
            }
        }
    }
}

/// Keeps a value alive so the optimizer cannot drop the work that produced it.
@inline(never)
public func sink<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
