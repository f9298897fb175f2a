import Federate

/// `federate doctor`'s algorithm checks: `id_token_signing_alg_values_supported` against what
/// Federate accepts (`ProviderMetadata.defaultIDTokenAlgorithms`, `JWSAlgorithm`).
enum AlgorithmDiagnosis {
    /// The advertised asymmetric algorithms Federate implements: what it verifies with the key set.
    static func asymmetric(_ metadata: ProviderMetadata) -> [JWSAlgorithm] {
        unique(metadata.idTokenSigningAlgValuesSupported.compactMap(JWSAlgorithm.init(rawValue:)).filter { !$0.isSymmetric })
    }

    /// The advertised HMAC algorithms (HS256/384/512).
    static func hmac(_ metadata: ProviderMetadata) -> [JWSAlgorithm] {
        unique(metadata.idTokenSigningAlgValuesSupported.compactMap(JWSAlgorithm.init(rawValue:)).filter(\.isSymmetric))
    }

    private static func unique(_ list: [JWSAlgorithm]) -> [JWSAlgorithm] {
        Array(Set(list)).sorted()
    }

    /// The findings `algorithms.accepted`, `algorithms.hmac`, `algorithms.none` and `algorithms.unknown`.
    static func checks(_ metadata: ProviderMetadata) -> [DoctorCheck] {
        let advertised = metadata.idTokenSigningAlgValuesSupported
        let accepted = Self.asymmetric(metadata), hmacAlgorithms = Self.hmac(metadata)
        let unknown = advertised.filter { JWSAlgorithm(rawValue: $0) == nil && $0 != "none" }
        let details: JSONValue = .object([
            "advertised": .array(advertised.prefix(64).map { .string(DoctorText.clipped($0, limit: 40)) }),
            "accepted": .array(accepted.map { .string($0.rawValue) }),
            "hmac": .array(hmacAlgorithms.map { .string($0.rawValue) }),
        ])
        var checks: [DoctorCheck] = []
        let acceptedNames = accepted.map(\.rawValue).joined(separator: ", ")
        if !accepted.isEmpty {
            checks.append(
                DoctorCheck(
                    "algorithms.accepted", .ok, "The provider advertises \(acceptedNames), which Federate verifies with its key set.",
                    federate:
                        "Federate allows exactly these algorithms for this provider's ID tokens (RS256 alone when the provider advertises none it implements).",
                    details: details))
        } else if !hmacAlgorithms.isEmpty {
            checks.append(
                DoctorCheck(
                    "algorithms.accepted", .warning,
                    "The provider advertises only HMAC algorithms (\(hmacAlgorithms.map(\.rawValue).joined(separator: ", "))) for ID tokens.",
                    federate:
                        "Federate verifies HMAC-signed ID tokens only with the client secret (a confidential client, OpenID Connect Core §10.1), never with a key from the key set; without a secret it expects RS256, which the provider does not advertise, and refuses its tokens.",
                    details: details))
        } else {
            checks.append(
                DoctorCheck(
                    "algorithms.accepted", .failure,
                    "None of the advertised algorithms (\(DoctorText.list(advertised))) is one Federate implements.",
                    federate:
                        "Federate falls back to RS256, which the provider does not advertise: it will refuse the provider's ID tokens (disallowed_algorithm or unsupported_algorithm).",
                    details: details))
        }
        if !hmacAlgorithms.isEmpty, !accepted.isEmpty {
            checks.append(
                DoctorCheck(
                    "algorithms.hmac", .ok, "The provider also advertises \(hmacAlgorithms.map(\.rawValue).joined(separator: ", ")).",
                    federate:
                        "Federate accepts HMAC-signed ID tokens only for a client with a secret, keyed with that secret; a public client, `federate verify` and bearer verification refuse them."
                ))
        }
        if advertised.contains("none") {
            checks.append(
                DoctorCheck(
                    "algorithms.none", .warning, "The provider advertises 'none' (unsigned ID tokens).",
                    federate: "Federate never accepts an unsigned token: 'none' is not an algorithm it has (unsupported_algorithm)."))
        }
        if !unknown.isEmpty {
            checks.append(
                DoctorCheck(
                    "algorithms.unknown", .warning,
                    "The provider advertises algorithms Federate does not implement: \(DoctorText.list(unknown)).",
                    federate:
                        "Federate refuses ID tokens signed with them (unsupported_algorithm); make sure the client is registered for one of the accepted algorithms."
                ))
        }
        return checks
    }
}
