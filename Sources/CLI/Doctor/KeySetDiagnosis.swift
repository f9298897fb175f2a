import Federate
import Logging

/// `federate doctor`'s key checks: the provider's `jwks_uri` fetched and parsed by Federate's own
/// `RemoteKeySet` and `JSONWebKeySet`, then what Federate can verify with the keys it kept.
enum KeySetDiagnosis {
    /// At most this many keys are listed in a check's details (a hostile set may hold thousands).
    static let listedKeys = 50

    /// The findings `keys.fetch`, `keys.usable`, `keys.skipped`, `keys.kid` and `keys.algorithms`.
    static func run(metadata: ProviderMetadata, http: RecordingHTTPClient) async -> [DoctorCheck] {
        var logger = Logger(label: "federate.doctor")
        logger.logLevel = .critical
        let url = metadata.jwksURI
        let keySet: JSONWebKeySet
        do throws(FederateError) {
            keySet = try await RemoteKeySet(url: url, destination: metadata.destination, httpClient: http, logger: logger).keySet()
        } catch {
            return [
                DoctorCheck(
                    "keys.fetch", .failure, DoctorText.clipped(error.message, limit: 400),
                    federate:
                        "Federate cannot verify any of the provider's ID tokens without its key set (it must answer HTTP 200 with a JWKS of at most 1 MiB; redirects are not followed).",
                    code: error.code.rawValue)
            ]
        }
        let size = http.latest(for: url)?.response.body.count ?? 0
        var checks = [
            DoctorCheck(
                "keys.fetch", .ok, "Fetched jwks_uri \(DoctorText.clipped(url, limit: 200)): \(size) bytes.",
                federate:
                    "Federate caches the key set (Cache-Control max-age, clamped), refetches once on an unknown kid (rate-limited), and keeps serving stale keys for a bounded time while the endpoint fails."
            )
        ]
        checks.append(usable(keySet, metadata: metadata))
        checks.append(skipped(keySet))
        checks.append(withoutKeyID(keySet))
        checks.append(coverage(keySet, metadata: metadata))
        return checks
    }

    private static func describe(_ key: JSONWebKey) -> String {
        var parts = [key.keyType]
        if let curve = key.curve { parts.append(curve) }
        if let algorithm = key.algorithm { parts.append("alg \(algorithm.rawValue)") }
        if let use = key.use { parts.append("use \(DoctorText.clipped(use, limit: 16))") }
        return "\(key.keyID.map { DoctorText.quoted($0, limit: 64) } ?? "(no kid)") \(parts.joined(separator: " "))"
    }

    private static func json(_ key: JSONWebKey) -> JSONValue {
        var object: [String: JSONValue] = ["kty": .string(key.keyType)]
        object["kid"] = key.keyID.map { .string(DoctorText.clipped($0, limit: 200)) } ?? .null
        object["alg"] = key.algorithm.map { .string($0.rawValue) } ?? .null
        object["use"] = key.use.map { .string($0) } ?? .null
        object["crv"] = key.curve.map { .string($0) } ?? .null
        return .object(object)
    }

    private static func usable(_ keySet: JSONWebKeySet, metadata: ProviderMetadata) -> DoctorCheck {
        let details: JSONValue = .object([
            "count": .integer(Int64(keySet.keys.count)), "keys": .array(keySet.keys.prefix(listedKeys).map(json)),
        ])
        let federate =
            "Federate verifies signatures with these keys only: RSA of 2048 bits or more, EC P-256/384/521, Ed25519; a kid selects exactly one key, byte for byte."
        if keySet.keys.isEmpty {
            let hmacOnly = AlgorithmDiagnosis.asymmetric(metadata).isEmpty && !AlgorithmDiagnosis.hmac(metadata).isEmpty
            return DoctorCheck(
                "keys.usable", hmacOnly ? .warning : .failure, "The key set holds no key Federate can use.",
                federate: hmacOnly
                    ? "The provider signs with HMAC only, which needs no key set; without a client secret Federate can verify none of its ID tokens."
                    : "Federate refuses every ID token of this provider (unknown_key) until the key set holds a usable public key.",
                details: details)
        }
        let listed = keySet.keys.prefix(12).map(describe).joined(separator: "; ")
        let more = keySet.keys.count > 12 ? "; and \(keySet.keys.count - 12) more" : ""
        return DoctorCheck(
            "keys.usable", .ok, "\(keySet.keys.count) usable key(s): \(listed)\(more).", federate: federate, details: details)
    }

    private static func skipped(_ keySet: JSONWebKeySet) -> DoctorCheck {
        let details: JSONValue = .object([
            "count": .integer(Int64(keySet.skipped.count)),
            "keys": .array(
                keySet.skipped.prefix(listedKeys).map { skipped -> JSONValue in
                    .object([
                        "kid": skipped.keyID.map { .string(DoctorText.clipped($0, limit: 200)) } ?? .null,
                        "reason": .string(DoctorText.clipped(skipped.reason, limit: 200)),
                    ])
                }),
        ])
        guard !keySet.skipped.isEmpty else {
            return DoctorCheck("keys.skipped", .ok, "Every key in the set is usable.", federate: "Nothing is left out.", details: details)
        }
        let reasons = keySet.skipped.map { "\($0.keyID.map { DoctorText.quoted($0, limit: 64) } ?? "(no kid)"): \($0.reason)" }
        return DoctorCheck(
            "keys.skipped", .warning, "\(keySet.skipped.count) key(s) unusable: \(DoctorText.list(reasons, maximum: 8)).",
            federate:
                "Federate skips these keys (the rest of the set still works): a token naming one of their kids is refused with unknown_key. Encryption keys, symmetric keys, weak RSA, unknown types and a kid shared by several keys are never used.",
            details: details)
    }

    private static func withoutKeyID(_ keySet: JSONWebKeySet) -> DoctorCheck {
        let count = keySet.keys.filter { $0.keyID == nil }.count
        guard count > 0 else {
            return DoctorCheck(
                "keys.kid", .ok, "Every usable key has a kid.",
                federate: "A token's kid selects exactly one key; an unknown kid triggers one refetch.")
        }
        return DoctorCheck(
            "keys.kid", .warning, "The key set has \(count) key(s) without kid.",
            federate:
                "For a token without kid, Federate tries each key of matching type (key type, curve, the key's own alg) in document order; a token with a kid is checked only against the key with that kid, so keys without kid never verify it."
        )
    }

    /// Whether the keys can verify the algorithms Federate accepts from this provider.
    private static func coverage(_ keySet: JSONWebKeySet, metadata: ProviderMetadata) -> DoctorCheck {
        let accepted = metadata.defaultIDTokenAlgorithms.sorted()
        let covered = accepted.filter { algorithm in keySet.keys.contains { $0.permits(algorithm) } }
        let missing = accepted.filter { !covered.contains($0) }
        let details: JSONValue = .object([
            "accepted": .array(accepted.map { .string($0.rawValue) }), "without_key": .array(missing.map { .string($0.rawValue) }),
        ])
        if missing.isEmpty {
            return DoctorCheck(
                "keys.algorithms", .ok,
                "Every algorithm Federate accepts from this provider (\(accepted.map(\.rawValue).joined(separator: ", "))) has a key that can verify it.",
                federate: "Federate binds a token's alg to the key's type and own alg: a key never verifies an algorithm it does not fit.",
                details: details)
        }
        if covered.isEmpty {
            let hmacOnly = AlgorithmDiagnosis.asymmetric(metadata).isEmpty && !AlgorithmDiagnosis.hmac(metadata).isEmpty
            return DoctorCheck(
                "keys.algorithms", hmacOnly ? .warning : .failure,
                "No usable key can verify \(accepted.map(\.rawValue).joined(separator: ", ")), the algorithms Federate accepts from this provider.",
                federate: "Federate refuses the provider's ID tokens (unknown_key or key_algorithm_mismatch): no key fits their algorithm.",
                details: details)
        }
        return DoctorCheck(
            "keys.algorithms", .warning,
            "No usable key can verify \(missing.map(\.rawValue).joined(separator: ", ")), although the provider advertises it; \(covered.map(\.rawValue).joined(separator: ", ")) can be verified.",
            federate:
                "Federate refuses tokens signed with an algorithm no key fits (unknown_key or key_algorithm_mismatch); the others verify.",
            details: details)
    }
}
