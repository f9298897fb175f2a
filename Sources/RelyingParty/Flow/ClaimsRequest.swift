package import FederateTokens

/// The `claims` authorization parameter (OpenID Connect Core §5.5): individual claims asked
/// for in the ID token or from UserInfo, each voluntary or essential, optionally with the
/// value or values wanted.
///
/// Federate reads one request back: an essential `acr` in the ID token
/// (`requiredAuthentication`, §5.5.1.1), which the returned ID token must satisfy or the
/// sign-in fails with `FederateError.Code.insufficientAuthenticationLevel`:
///
/// ```swift
/// let claims = ClaimsRequest(idToken: ["acr": .init(essential: true, values: ["phrh", "phr"])])
/// ```
///
/// Values are strings (every standard claim one would ask a value of, `acr` first, is one).
public struct ClaimsRequest: Sendable, Hashable {
    /// One requested claim: `null` (voluntary, any value) or `{"essential", "value", "values"}`.
    package struct Claim: Sendable, Hashable {
        /// Whether the claim is essential (the provider must treat not providing it, or not
        /// matching the values, as a failed authentication for `acr`).
        package var essential: Bool
        /// The one value wanted.
        package var value: String?
        /// Values wanted, in order of preference.
        package var values: [String]?

        /// Creates a request for one claim.
        init(essential: Bool = false, value: String? = nil, values: [String]? = nil) {
            self.essential = essential
            self.value = value
            self.values = values
        }

        var json: JSONValue {
            var members: [String: JSONValue] = [:]
            if essential { members["essential"] = .bool(true) }
            if let value { members["value"] = .string(value) }
            if let values { members["values"] = .array(values.map(JSONValue.string)) }
            return members.isEmpty ? .null : .object(members)
        }

        init(json: JSONValue) throws(FederateError) {
            switch json {
            case .null:
                self.init()
            case .object(let members):
                var claim = Claim()
                switch members["essential"] {
                case nil, .null?: break
                case .bool(let essential)?: claim.essential = essential
                default: throw FederateError(.invalidRequest, "'essential' is a Boolean")
                }
                switch members["value"] {
                case nil, .null?: break
                case .string(let value)?: claim.value = value
                default: throw FederateError(.invalidRequest, "a requested claim 'value' must be a string")
                }
                switch members["values"] {
                case nil, .null?: break
                case .array(let entries)?:
                    var values: [String] = []
                    for entry in entries {
                        guard case .string(let value) = entry else {
                            throw FederateError(.invalidRequest, "requested claim 'values' must be strings")
                        }
                        values.append(value)
                    }
                    claim.values = values
                default: throw FederateError(.invalidRequest, "requested claim 'values' must be an array")
                }
                self = claim
            default:
                throw FederateError(.invalidRequest, "a requested claim is null or an object")
            }
        }
    }

    /// The largest `claims` parameter ``init(parsing:)`` reads, in bytes.
    package static let maximumBytes = 4096
    /// The deepest nesting ``init(parsing:)`` reads: `{"id_token": {"acr": {"values": [...]}}}` is 4.
    static let maximumDepth = 4

    /// Claims requested in the ID token (`id_token` member).
    package var idToken: [String: Claim]
    /// Claims requested from UserInfo (`userinfo` member).
    package var userinfo: [String: Claim]

    /// Creates a claims request.
    package init(idToken: [String: Claim] = [:], userinfo: [String: Claim] = [:]) {
        self.idToken = idToken
        self.userinfo = userinfo
    }

    /// An ID token whose `acr` must be one of `values` (essential; the first is preferred).
    public static func essentialACR(_ values: [String]) -> ClaimsRequest {
        ClaimsRequest(idToken: ["acr": Claim(essential: true, values: values)])
    }

    /// Parses a `claims` parameter as a provider receives it: at most ``maximumBytes`` bytes
    /// and ``maximumDepth`` levels; unknown top-level members are ignored (§5.5), a member
    /// or claim of the wrong shape is `FederateError.Code.invalidRequest`.
    package init(parsing text: String) throws(FederateError) {
        guard text.utf8.count <= Self.maximumBytes else {
            throw FederateError(.invalidRequest, "the claims parameter is larger than \(Self.maximumBytes) bytes")
        }
        let members: [String: JSONValue]
        do {
            members = try JSONParser(limits: .init(maxBytes: Self.maximumBytes, maxDepth: Self.maximumDepth)).parseObject(Array(text.utf8))
        } catch {
            throw FederateError(.invalidRequest, "the claims parameter is not a JSON object within \(Self.maximumDepth) levels")
        }
        func section(_ name: String) throws(FederateError) -> [String: Claim] {
            switch members[name] {
            case nil, .null?: return [:]
            case .object(let claims)?:
                var parsed: [String: Claim] = [:]
                for (claim, request) in claims { parsed[claim] = try Claim(json: request) }
                return parsed
            default: throw FederateError(.invalidRequest, "claims member '\(name)' is not an object")
            }
        }
        self.init(idToken: try section("id_token"), userinfo: try section("userinfo"))
    }

    /// The parameter's value: compact JSON, keys sorted.
    var parameterValue: String {
        var members: [String: JSONValue] = [:]
        if !idToken.isEmpty { members["id_token"] = .object(idToken.mapValues(\.json)) }
        if !userinfo.isEmpty { members["userinfo"] = .object(userinfo.mapValues(\.json)) }
        return JSONSerializer.string(.object(members))
    }

    /// What the returned ID token must show when `acr` is requested as essential
    /// (§5.5.1.1): an `acr` equal to `value`, or one of `values`, or, with neither, any `acr`.
    /// `nil` when `acr` is not essential (a voluntary request is a wish the provider may ignore).
    var requiredAuthentication: AuthenticationRequirement? {
        guard let acr = idToken["acr"], acr.essential else { return nil }
        var accepted = Set(acr.values ?? [])
        if let value = acr.value { accepted.insert(value) }
        return .acr(accepted)
    }
}
