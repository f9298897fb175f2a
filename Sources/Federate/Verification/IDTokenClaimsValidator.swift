import Foundation

/// Applies an ``IDTokenPolicy`` and ``IDTokenExpectations`` to a verified payload
/// (OpenID Connect Core §3.1.3.7).
struct IDTokenClaimsValidator {
    let policy: IDTokenPolicy
    let expectations: IDTokenExpectations

    func validate(
        claims: [String: JSONValue], header: JOSEHeader, signature: JWSSignatureVerifier.Result
    ) throws(FederateError) -> IDToken {
        let now = expectations.now ?? Date().timeIntervalSince1970
        let tolerance = policy.clockTolerance

        let issuer = try requiredString("iss", in: claims)
        guard policy.issuers.contains(issuer) else {
            throw FederateError(.issuerMismatch, "issuer '\(issuer.prefix(200))' is not accepted")
        }

        let subject = try requiredString("sub", in: claims)
        guard !subject.isEmpty else { throw FederateError(.invalidClaim, "'sub' is empty") }
        guard subject.utf8.count <= 255 else { throw FederateError(.invalidClaim, "'sub' exceeds 255 characters") }

        let audiences = try audienceList(claims)
        guard audiences.contains(where: policy.audiences.contains) else {
            throw FederateError(.audienceMismatch, "'aud' does not contain an accepted client ID")
        }
        let authorizedParty = try optionalString("azp", in: claims)
        let acceptedParties = policy.authorizedParties ?? policy.audiences
        if let authorizedParty {
            guard acceptedParties.contains(authorizedParty) else {
                throw FederateError(.azpMismatch, "'azp' '\(authorizedParty.prefix(200))' is not an accepted client")
            }
        } else if audiences.count > 1 {
            throw FederateError(.azpMismatch, "'aud' has several values, so 'azp' is required")
        }

        let expiresAt = try requiredNumber("exp", in: claims)
        guard now < expiresAt + tolerance else {
            throw FederateError(.tokenExpired, "the token expired at \(Int64(expiresAt)) (now \(Int64(now)))")
        }
        let issuedAt = try requiredNumber("iat", in: claims)
        guard issuedAt <= now + tolerance else {
            throw FederateError(.issuedInFuture, "'iat' \(Int64(issuedAt)) is in the future (now \(Int64(now)))")
        }
        let notBefore = try optionalNumber("nbf", in: claims)
        if let notBefore, notBefore > now + tolerance {
            throw FederateError(.notYetValid, "the token is not valid before \(Int64(notBefore)) (now \(Int64(now)))")
        }

        let nonce = try optionalString("nonce", in: claims)
        if let expected = expectations.nonce {
            guard let nonce else { throw FederateError(.nonceMismatch, "the token has no 'nonce' but one was sent") }
            guard ConstantTime.equals(nonce, expected) else {
                throw FederateError(.nonceMismatch, "'nonce' differs from the one sent")
            }
        }

        let authTime = try optionalNumber("auth_time", in: claims)
        if let maxAge = expectations.maxAge ?? policy.maxAge {
            guard let authTime else { throw FederateError(.missingClaim, "'auth_time' is required when max_age is set") }
            guard now <= authTime + maxAge + tolerance else {
                throw FederateError(.authTooOld, "the user authenticated at \(Int64(authTime)), more than \(Int64(maxAge)) s ago")
            }
        }
        if let authTime, authTime > now + tolerance {
            throw FederateError(.invalidClaim, "'auth_time' is in the future")
        }

        if let atHash = try optionalString("at_hash", in: claims), let accessToken = expectations.accessToken {
            guard TokenHash.matches(atHash, value: accessToken, algorithm: signature.algorithm) else {
                throw FederateError(.atHashMismatch, "'at_hash' does not match the access token")
            }
        }
        if let cHash = try optionalString("c_hash", in: claims), let code = expectations.authorizationCode {
            guard TokenHash.matches(cHash, value: code, algorithm: signature.algorithm) else {
                throw FederateError(.cHashMismatch, "'c_hash' does not match the authorization code")
            }
        }
        for name in policy.requiredClaims where claims[name] == nil {
            throw FederateError(.missingClaim, "required claim '\(name)' is missing")
        }

        return IDToken(
            header: header, algorithm: signature.algorithm, keyID: signature.keyID, claims: claims,
            issuer: issuer, subject: subject, audiences: audiences, authorizedParty: authorizedParty,
            expiresAt: Date(timeIntervalSince1970: expiresAt), issuedAt: Date(timeIntervalSince1970: issuedAt),
            notBefore: notBefore.map(Date.init(timeIntervalSince1970:)), authTime: authTime.map(Date.init(timeIntervalSince1970:)),
            nonce: nonce
        )
    }

    private func requiredString(_ name: String, in claims: [String: JSONValue]) throws(FederateError) -> String {
        guard let value = try optionalString(name, in: claims) else {
            throw FederateError(.missingClaim, "required claim '\(name)' is missing")
        }
        return value
    }

    private func optionalString(_ name: String, in claims: [String: JSONValue]) throws(FederateError) -> String? {
        guard let value = claims[name] else { return nil }
        guard case .string(let s) = value else { throw FederateError(.invalidClaim, "'\(name)' is not a string") }
        return s
    }

    private func requiredNumber(_ name: String, in claims: [String: JSONValue]) throws(FederateError) -> Double {
        guard let value = try optionalNumber(name, in: claims) else {
            throw FederateError(.missingClaim, "required claim '\(name)' is missing")
        }
        return value
    }

    private func optionalNumber(_ name: String, in claims: [String: JSONValue]) throws(FederateError) -> Double? {
        guard let value = claims[name] else { return nil }
        guard let number = value.doubleValue else { throw FederateError(.invalidClaim, "'\(name)' is not a JSON number") }
        return number
    }

    private func audienceList(_ claims: [String: JSONValue]) throws(FederateError) -> [String] {
        switch claims["aud"] {
        case nil:
            throw FederateError(.missingClaim, "required claim 'aud' is missing")
        case .string(let single)?:
            return [single]
        case .array(let entries)?:
            var list: [String] = []
            for entry in entries {
                guard case .string(let s) = entry else { throw FederateError(.invalidClaim, "'aud' entries must be strings") }
                list.append(s)
            }
            guard !list.isEmpty else { throw FederateError(.invalidClaim, "'aud' is an empty array") }
            return list
        default:
            throw FederateError(.invalidClaim, "'aud' is neither a string nor an array of strings")
        }
    }
}
