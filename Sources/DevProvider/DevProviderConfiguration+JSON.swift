public import Federate

extension DevProviderConfiguration {
    /// Reads a JSON configuration (documented in `Docs/DevProvider.md`):
    ///
    /// ```json
    /// {"flavor": "generic", "project_id": "dev-project", "auto_approve": "alice", "requires_dpop_nonce": false,
    ///  "clients": [{"id": "...", "secret": "...", "redirect_uris": ["..."], "faults": ["..."],
    ///               "jwks": {"keys": [...]}, "team_id": "...", "auth_methods": ["..."],
    ///               "authorization_error": "...", "legacy_issuer": false,
    ///               "minimal_id_tokens": false}],
    ///  "users": [{"sub": "...", "email": "...", "email_verified": true, "name": "...",
    ///             "hd": "...", "refused_scopes": ["..."], "is_private_email": false,
    ///             "authentication_method": "password|otp|passkey|securityKey",
    ///             "login": "octocat", "other_emails": [{"email": "...", "verified": false}]}]}   // login, other_emails: GitHub flavour
    /// ```
    ///
    /// `requires_dpop_nonce` (``requiresDPoPNonce``) makes DPoP token and UserInfo requests carry
    /// a nonce the provider issued. Unknown faults, flavours and authentication methods are
    /// errors, not ignored.
    public init(json bytes: [UInt8], defaultFlavor: DevFlavor = .generic) throws(FederateError) {
        let object: [String: JSONValue]
        do {
            object = try JSONParser().parseObject(bytes)
        } catch {
            throw FederateError(.invalidConfiguration, "the dev provider configuration is not a JSON object")
        }
        var flavor = defaultFlavor
        if let name = object["flavor"]?.stringValue {
            guard let named = DevFlavor(rawValue: name) else { throw FederateError(.invalidConfiguration, "unknown flavour '\(name)'") }
            flavor = named
        }
        var clients: [DevClient] = []
        for entry in object["clients"]?.arrayValue ?? [] {
            clients.append(try Self.client(entry))
        }
        var users: [DevUser] = []
        for entry in object["users"]?.arrayValue ?? [] {
            guard let subject = entry["sub"]?.stringValue, let email = entry["email"]?.stringValue else {
                throw FederateError(.invalidConfiguration, "a user needs sub and email")
            }
            var method: DevAuthenticationMethod?
            if let name = entry["authentication_method"]?.stringValue {
                guard let named = DevAuthenticationMethod(rawValue: name) else {
                    throw FederateError(
                        .invalidConfiguration, "authentication_method is one of \(DevAuthenticationMethod.allCases.map(\.rawValue))")
                }
                method = named
            }
            users.append(
                DevUser(
                    subject: subject, email: email, emailVerified: entry["email_verified"]?.boolValue ?? true,
                    name: entry["name"]?.stringValue ?? subject, hostedDomain: entry["hd"]?.stringValue,
                    refusedScopes: Set(Self.strings(entry["refused_scopes"])),
                    isPrivateEmail: entry["is_private_email"]?.boolValue ?? false,
                    authenticationMethod: method, gitHubLogin: entry["login"]?.stringValue,
                    otherEmails: try Self.emails(entry["other_emails"])))
        }
        guard !clients.isEmpty, !users.isEmpty else {
            throw FederateError(.invalidConfiguration, "declare at least one client and one user")
        }
        self.init(
            flavor: flavor, clients: clients, users: users, autoApproveSubject: object["auto_approve"]?.stringValue,
            projectID: object["project_id"]?.stringValue ?? "dev-project")
        if let flag = object["requires_dpop_nonce"] {
            guard case .bool(let on) = flag else { throw FederateError(.invalidConfiguration, "requires_dpop_nonce is true or false") }
            requiresDPoPNonce = on
        }
    }

    private static func strings(_ value: JSONValue?) -> [String] { value?.arrayValue?.compactMap(\.stringValue) ?? [] }

    /// GitHub flavour: `[{"email": "...", "verified": true}]`.
    private static func emails(_ value: JSONValue?) throws(FederateError) -> [DevEmail] {
        guard let value else { return [] }
        guard let entries = value.arrayValue else {
            throw FederateError(.invalidConfiguration, "other_emails is a list of {email, verified}")
        }
        var emails: [DevEmail] = []
        for entry in entries {
            guard let address = entry["email"]?.stringValue, case .bool(let verified)? = entry["verified"] else {
                throw FederateError(.invalidConfiguration, "other_emails is a list of {email, verified}")
            }
            emails.append(DevEmail(address, verified: verified))
        }
        return emails
    }

    private static func client(_ entry: JSONValue) throws(FederateError) -> DevClient {
        guard let id = entry["id"]?.stringValue else { throw FederateError(.invalidConfiguration, "a client needs an id") }
        var faults: Set<DevFault> = []
        for name in strings(entry["faults"]) {
            guard let fault = DevFault(rawValue: name) else { throw FederateError(.invalidConfiguration, "unknown fault '\(name)'") }
            faults.insert(fault)
        }
        var methods: Set<DevClientAuthMethod>?
        if let names = entry["auth_methods"]?.arrayValue {
            methods = []
            for name in names.compactMap(\.stringValue) {
                guard let method = DevClientAuthMethod(rawValue: name) else {
                    throw FederateError(.invalidConfiguration, "unknown authentication method '\(name)'")
                }
                methods?.insert(method)
            }
        }
        var keys: JSONWebKeySet?
        if let jwks = entry["jwks"] {
            keys = try JSONWebKeySet(jwks: JSONSerializer.bytes(jwks))
        }
        return DevClient(
            id: id, secret: entry["secret"]?.stringValue, redirectURIs: strings(entry["redirect_uris"]), faults: faults, publicKeys: keys,
            teamID: entry["team_id"]?.stringValue, authMethods: methods, authorizationError: entry["authorization_error"]?.stringValue,
            legacyIssuer: entry["legacy_issuer"]?.boolValue ?? false, minimalIDTokens: entry["minimal_id_tokens"]?.boolValue ?? false)
    }
}
