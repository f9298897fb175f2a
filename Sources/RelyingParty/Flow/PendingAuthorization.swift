package import FederateTokens
package import Foundation

/// Everything needed between the redirect to the provider and the callback.
///
/// It holds secrets (`state`, `nonce`, the PKCE verifier): keep it server-side, or seal it
/// with ``PendingAuthorizationSealer`` before putting it in a cookie. Its `description` is
/// redacted.
public struct PendingAuthorization: Sendable, Hashable, CustomStringConvertible {
    /// The issuer the request went to.
    package let issuer: String
    /// The provider ID (`google.com`, `oidc.example`).
    package let providerID: String
    /// The client ID.
    package let clientID: String
    /// The redirect URI sent (the code exchange must send the same).
    package let redirectURI: String
    /// `state` (secret).
    public let state: String
    /// `nonce` (secret).
    public let nonce: String
    /// The PKCE verifier (secret).
    package let codeVerifier: String
    /// The scopes requested (to tell which were refused).
    package let scopes: [String]
    /// The response mode requested.
    package let responseMode: ResponseMode?
    /// `max_age` requested, if any.
    package let maxAge: Duration?
    /// Why the flow runs.
    package let intent: AuthorizationIntent
    /// The `acr_values` sent, if any: what the step-up asked for.
    package let acrValues: [String]
    /// What the returned ID token must show (`acr`/`amr`), when the request demanded it.
    package let authentication: AuthenticationRequirement?
    /// When the request was built.
    package let createdAt: Date
    /// After this instant the callback is refused.
    package let expiresAt: Date
    /// Where the application sends the browser once the callback is done: a same-site path
    /// it checked when the flow began. Sealed with the rest, not secret.
    package var returnTo: String?
    /// The signed-in user a link or reauthentication flow is for: the callback must come to
    /// the same user's session.
    package var uid: String?

    /// Creates a pending authorization (normally by `OpenIDClient.authorizationRequest(providerID:redirectURI:...)`).
    package init(
        issuer: String, providerID: String, clientID: String, redirectURI: String, state: String, nonce: String,
        codeVerifier: String, scopes: [String], responseMode: ResponseMode?, maxAge: Duration?, intent: AuthorizationIntent,
        createdAt: Date, expiresAt: Date, returnTo: String? = nil, uid: String? = nil, acrValues: [String] = [],
        authentication: AuthenticationRequirement? = nil
    ) {
        self.acrValues = acrValues
        self.authentication = authentication
        self.issuer = issuer
        self.providerID = providerID
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.state = state
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.scopes = scopes
        self.responseMode = responseMode
        self.maxAge = maxAge
        self.intent = intent
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.returnTo = returnTo
        self.uid = uid
    }

    /// Whether the callback is still acceptable at `now`.
    func isExpired(at now: Date) -> Bool { now >= expiresAt }

    /// Redacted: no state, nonce or verifier.
    public var description: String {
        "PendingAuthorization(issuer: \(issuer), provider: \(providerID), intent: \(intent.rawValue), expires: \(expiresAt), secrets redacted)"
    }

    var json: JSONValue {
        var object: [String: JSONValue] = [
            "iss": .string(issuer), "pid": .string(providerID), "cid": .string(clientID), "ru": .string(redirectURI),
            "st": .string(state), "no": .string(nonce), "cv": .string(codeVerifier), "sc": .array(scopes.map(JSONValue.string)),
            "in": .string(intent.rawValue), "ca": .double(createdAt.timeIntervalSince1970), "ea": .double(expiresAt.timeIntervalSince1970),
        ]
        if let returnTo { object["rt"] = .string(returnTo) }
        if let uid { object["ui"] = .string(uid) }
        if let responseMode { object["rm"] = .string(responseMode.rawValue) }
        if let maxAge { object["ma"] = .integer(maxAge.wholeSeconds) }
        if !acrValues.isEmpty { object["av"] = .array(acrValues.map(JSONValue.string)) }
        if let authentication { object["au"] = Self.json(authentication) }
        return .object(object)
    }

    init(json: [String: JSONValue]) throws(FederateError) {
        func string(_ key: String) throws(FederateError) -> String {
            guard case .string(let s)? = json[key] else { throw FederateError(.invalidPendingAuthorization, "field '\(key)' missing") }
            return s
        }
        func number(_ key: String) throws(FederateError) -> Double {
            guard let n = json[key]?.doubleValue else { throw FederateError(.invalidPendingAuthorization, "field '\(key)' missing") }
            return n
        }
        guard let intent = AuthorizationIntent(rawValue: try string("in")) else {
            throw FederateError(.invalidPendingAuthorization, "unknown intent")
        }
        var responseMode: ResponseMode?
        if json["rm"] != nil {
            guard let mode = ResponseMode(rawValue: try string("rm")) else {
                throw FederateError(.invalidPendingAuthorization, "unknown response mode")
            }
            responseMode = mode
        }
        func optionalString(_ key: String) throws(FederateError) -> String? {
            json[key] == nil ? nil : try string(key)
        }
        self.init(
            issuer: try string("iss"), providerID: try string("pid"), clientID: try string("cid"), redirectURI: try string("ru"),
            state: try string("st"), nonce: try string("no"), codeVerifier: try string("cv"),
            scopes: (json["sc"]?.arrayValue ?? []).compactMap(\.stringValue), responseMode: responseMode,
            maxAge: json["ma"]?.int64Value.map { Duration.seconds($0) }, intent: intent,
            createdAt: Date(timeIntervalSince1970: try number("ca")), expiresAt: Date(timeIntervalSince1970: try number("ea")),
            returnTo: try optionalString("rt"), uid: try optionalString("ui"), acrValues: try Self.strings(json["av"]),
            authentication: try json["au"].map(Self.requirement))
    }

    /// A requirement as `[{"a": [acr…]?, "m": [amr…]}]`.
    private static func json(_ requirement: AuthenticationRequirement) -> JSONValue {
        .array(
            requirement.alternatives.map { alternative in
                var members: [String: JSONValue] = ["m": .array(alternative.requiredAMR.sorted().map(JSONValue.string))]
                if let acr = alternative.acceptedACR { members["a"] = .array(acr.sorted().map(JSONValue.string)) }
                return .object(members)
            })
    }

    private static func requirement(_ json: JSONValue) throws(FederateError) -> AuthenticationRequirement {
        guard case .array(let entries) = json else {
            throw FederateError(.invalidPendingAuthorization, "malformed authentication requirement")
        }
        var alternatives: [AuthenticationRequirement.Alternative] = []
        for entry in entries {
            guard case .object(let members) = entry else {
                throw FederateError(.invalidPendingAuthorization, "malformed authentication requirement")
            }
            alternatives.append(
                .init(
                    acceptedACR: try members["a"].map { (value) throws(FederateError) in Set(try strings(value)) },
                    requiredAMR: Set(try strings(members["m"]))))
        }
        return AuthenticationRequirement(anyOf: alternatives)
    }

    private static func strings(_ json: JSONValue?) throws(FederateError) -> [String] {
        guard let json else { return [] }
        guard case .array(let entries) = json else { throw FederateError(.invalidPendingAuthorization, "malformed string list") }
        var strings: [String] = []
        for entry in entries {
            guard case .string(let text) = entry else { throw FederateError(.invalidPendingAuthorization, "malformed string list") }
            strings.append(text)
        }
        return strings
    }
}
