import FederateTokens

/// An RFC 8693 token exchange: the token this service holds for someone (the subject), and
/// optionally its own (the actor), traded for a token for another audience or resource.
///
/// Holds tokens: its `description` is redacted.
public struct TokenExchangeRequest: Sendable, CustomStringConvertible {
    /// The token types RFC 8693 §3 registers.
    public enum TokenType {
        /// `urn:ietf:params:oauth:token-type:access_token`.
        public static let accessToken = "urn:ietf:params:oauth:token-type:access_token"
        /// `urn:ietf:params:oauth:token-type:refresh_token`.
        public static let refreshToken = "urn:ietf:params:oauth:token-type:refresh_token"
        /// `urn:ietf:params:oauth:token-type:id_token`.
        public static let idToken = "urn:ietf:params:oauth:token-type:id_token"
        /// `urn:ietf:params:oauth:token-type:jwt`.
        public static let jwt = "urn:ietf:params:oauth:token-type:jwt"
    }

    /// `grant_type` of a token exchange.
    package static let grantType = "urn:ietf:params:oauth:grant-type:token-exchange"

    /// `subject_token`: the token that represents the party on whose behalf the request is made.
    package var subjectToken: String
    /// `subject_token_type`, an absolute URI (``TokenType``).
    package var subjectTokenType: String
    /// `actor_token`: the token of the party acting (delegation), if any.
    package var actorToken: String?
    /// `actor_token_type`, required with an actor token.
    package var actorTokenType: String?
    /// `requested_token_type`, if a particular type is wanted.
    package var requestedTokenType: String?
    /// `resource` values (absolute URIs of the services the token is for).
    package var resources: [String]
    /// `audience` values (logical names of those services).
    package var audiences: [String]
    /// `scope` values.
    package var scopes: [String]

    /// Creates a request.
    public init(
        subjectToken: String, subjectTokenType: String = TokenType.accessToken, actorToken: String? = nil, actorTokenType: String? = nil,
        requestedTokenType: String? = nil, resources: [String] = [], audiences: [String] = [], scopes: [String] = []
    ) {
        self.subjectToken = subjectToken
        self.subjectTokenType = subjectTokenType
        self.actorToken = actorToken
        self.actorTokenType = actorTokenType
        self.requestedTokenType = requestedTokenType
        self.resources = resources
        self.audiences = audiences
        self.scopes = scopes
    }

    /// The form parameters (RFC 8693 §2.1), checked: tokens non-empty, token types printable
    /// ASCII URIs with a scheme, `actor_token_type` exactly with an actor token, each resource
    /// an absolute URI without a fragment (§2.1). Throws `invalid_configuration`.
    func form() throws(FederateError) -> [(String, String)] {
        guard !subjectToken.isEmpty else { throw FederateError(.invalidConfiguration, "a token exchange needs a subject_token") }
        var form: [(String, String)] = [
            ("grant_type", Self.grantType), ("subject_token", subjectToken),
            ("subject_token_type", try Self.checkedType(subjectTokenType, "subject_token_type")),
        ]
        switch (actorToken, actorTokenType) {
        case (let token?, let type?):
            guard !token.isEmpty else { throw FederateError(.invalidConfiguration, "actor_token is empty") }
            form += [("actor_token", token), ("actor_token_type", try Self.checkedType(type, "actor_token_type"))]
        case (nil, nil):
            break
        default:
            throw FederateError(.invalidConfiguration, "actor_token and actor_token_type go together (RFC 8693 §2.1)")
        }
        if let requestedTokenType {
            form.append(("requested_token_type", try Self.checkedType(requestedTokenType, "requested_token_type")))
        }
        for resource in resources { form.append(("resource", try ServiceTokenClient.checkedResource(resource))) }
        for audience in audiences {
            guard !audience.isEmpty, audience.utf8.count <= 2048 else {
                throw FederateError(.invalidConfiguration, "an audience is 1-2048 bytes")
            }
            form.append(("audience", audience))
        }
        if let scope = try ServiceTokenClient.scopeParameter(scopes) { form.append(("scope", scope)) }
        return form
    }

    static func checkedType(_ type: String, _ name: String) throws(FederateError) -> String {
        guard (1...512).contains(type.utf8.count), type.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), type.contains(":") else {
            throw FederateError(.invalidConfiguration, "\(name) is an absolute URI (urn:ietf:params:oauth:token-type:...)")
        }
        return type
    }

    /// Redacted.
    public var description: String {
        "TokenExchangeRequest(subject: \(subjectTokenType), actor: \(actorTokenType ?? "-"), requested: \(requestedTokenType ?? "-"), tokens redacted)"
    }
}
