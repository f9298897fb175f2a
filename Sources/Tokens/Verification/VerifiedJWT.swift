/// A JWT whose signature verified and whose claims passed its kind's rules; also what each
/// ``ClaimRule`` reads while the rules run.
///
/// The typed readers below are the one place a claim's JSON type is checked: a present
/// claim of the wrong type is ``FederateError/Code/invalidClaim`` and an absent required one
/// ``FederateError/Code/missingClaim``, both naming the claim.
public struct VerifiedJWT: Sendable {
    /// The protected header.
    public let header: JOSEHeader
    /// Every claim of the payload, as sent.
    public let claims: [String: JSONValue]
    /// The algorithm that verified the signature.
    public let algorithm: JWSAlgorithm
    /// The `kid` of the verifying key, if it had one.
    public let keyID: String?

    /// Wraps a verified payload.
    public init(header: JOSEHeader, claims: [String: JSONValue], algorithm: JWSAlgorithm, keyID: String?) {
        self.header = header
        self.claims = claims
        self.algorithm = algorithm
        self.keyID = keyID
    }

    /// The claim `name`, if present.
    public subscript(name: String) -> JSONValue? { claims[name] }

    /// The string claim `name`; `nil` when absent, ``FederateError/Code/invalidClaim`` when not a string.
    public func string(_ name: String) throws(FederateError) -> String? {
        guard let value = claims[name] else { return nil }
        guard case .string(let text) = value else { throw FederateError(.invalidClaim, "'\(name)' is not a string") }
        return text
    }

    /// The string claim `name`; ``FederateError/Code/missingClaim`` when absent.
    public func requiredString(_ name: String) throws(FederateError) -> String {
        guard let text = try string(name) else { throw FederateError(.missingClaim, "required claim '\(name)' is missing") }
        return text
    }

    /// The time claim `name` (``NumericDate``); `nil` when absent, ``FederateError/Code/invalidClaim``
    /// when it is not a finite number in 0…2^53.
    public func numericDate(_ name: String) throws(FederateError) -> NumericDate? {
        guard let value = claims[name] else { return nil }
        guard let date = NumericDate(json: value) else {
            throw FederateError(.invalidClaim, "'\(name)' is not a NumericDate (a finite JSON number from 0 to 2^53)")
        }
        return date
    }

    /// The time claim `name`; ``FederateError/Code/missingClaim`` when absent.
    public func requiredNumericDate(_ name: String) throws(FederateError) -> NumericDate {
        guard let date = try numericDate(name) else { throw FederateError(.missingClaim, "required claim '\(name)' is missing") }
        return date
    }

    /// `aud` as a list: a string, or a non-empty array of strings (RFC 7519 §4.1.3). `nil`
    /// when absent; ``FederateError/Code/invalidClaim`` for any other shape or a non-string entry.
    public func audiences() throws(FederateError) -> [String]? {
        switch claims["aud"] {
        case nil:
            return nil
        case .string(let single)?:
            return [single]
        case .array(let entries)?:
            guard !entries.isEmpty else { throw FederateError(.invalidClaim, "'aud' is an empty array") }
            var list: [String] = []
            list.reserveCapacity(entries.count)
            for entry in entries {
                guard case .string(let text) = entry else { throw FederateError(.invalidClaim, "'aud' entries must be strings") }
                list.append(text)
            }
            return list
        default:
            throw FederateError(.invalidClaim, "'aud' is neither a string nor an array of strings")
        }
    }

    /// `aud` checked as ``audiences()`` checks it, without building the list: how many values
    /// it holds and whether one satisfies `predicate`; `nil` when absent. The claim rules call
    /// this on every token.
    package func audienceMatch(_ predicate: (String) -> Bool) throws(FederateError) -> (count: Int, matched: Bool)? {
        switch claims["aud"] {
        case nil:
            return nil
        case .string(let single)?:
            return (1, predicate(single))
        case .array(let entries)?:
            guard !entries.isEmpty else { throw FederateError(.invalidClaim, "'aud' is an empty array") }
            var matched = false
            for entry in entries {
                guard case .string(let text) = entry else { throw FederateError(.invalidClaim, "'aud' entries must be strings") }
                if !matched { matched = predicate(text) }
            }
            return (entries.count, matched)
        default:
            throw FederateError(.invalidClaim, "'aud' is neither a string nor an array of strings")
        }
    }
}
