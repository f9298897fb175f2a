extension ExplicitTypeRule {
    /// DPoP proofs (RFC 9449 §4.2): `typ` must be `dpop+jwt`.
    package static let dpopProof = ExplicitTypeRule(accepted: ["dpop+jwt"], allowsAbsent: false)
}

extension ClaimRules {
    /// The rules of a DPoP proof (RFC 9449 §4.3) for one request: `typ` `dpop+jwt`; `jti` a
    /// non-empty string; `htm` the request's method; `htu` its URI (normalized, without
    /// query and fragment); `iat` within `maximumAge` and the clock tolerance; `ath` the hash
    /// of `accessToken` when one is presented; `nonce` one of `acceptedNonces` when the
    /// server requires nonces (`nil`: none required). The key and signature checks
    /// (`jwk` public, asymmetric `alg`) and single use are ``DPoPProofVerifier``'s and the
    /// server's.
    package static func dpopProof(
        method: String, target: HTTPTargetURI, accessToken: String?, acceptedNonces: [String]?, maximumAge: Duration
    ) -> ClaimRules {
        var rules: ClaimRules = [
            ExplicitTypeRule.dpopProof, NonEmptyStringClaimRule("jti"), DPoPMethodRule(method: method), DPoPTargetURIRule(target: target),
            IssuedAtWindowRule(maximumAge: maximumAge),
        ]
        if let accessToken { rules.append(AccessTokenHashRule(accessToken: accessToken)) }
        if let acceptedNonces { rules.append(DPoPNonceRule(accepted: acceptedNonces)) }
        return rules
    }
}
