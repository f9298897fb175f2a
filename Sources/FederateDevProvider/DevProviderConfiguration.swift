public import Federate
public import Foundation

/// A test user the dev provider can sign in.
public struct DevUser: Sendable, Hashable {
    /// The stable subject (`sub`).
    public var subject: String
    /// The email address.
    public var email: String
    /// Whether the email is verified.
    public var emailVerified: Bool
    /// The display name.
    public var name: String

    /// Creates a user.
    public init(subject: String, email: String, emailVerified: Bool = true, name: String) {
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
    }
}

/// Something the dev provider does wrong on purpose, so tests can prove the relying party notices.
public enum DevFault: String, Sendable, Hashable, CaseIterable {
    /// ID tokens name another issuer.
    case wrongIssuer = "wrong_issuer"
    /// ID tokens are for another client.
    case wrongAudience = "wrong_audience"
    /// ID tokens carry another nonce.
    case wrongNonce = "wrong_nonce"
    /// ID tokens expired an hour ago.
    case expiredToken = "expired_token"
    /// ID tokens are issued an hour in the future.
    case futureToken = "future_token"
    /// ID token signatures are corrupted.
    case badSignature = "bad_signature"
    /// ID tokens name a key that is not published.
    case unknownKeyID = "unknown_kid"
    /// ID tokens lack `sub`.
    case missingSubject = "missing_sub"
    /// The token endpoint answers 500.
    case serverError = "server_error"
    /// The token endpoint answers after 3 seconds.
    case slowResponse = "slow_response"
    /// The token endpoint answers malformed JSON.
    case malformedJSON = "malformed_json"
}

/// A client registered with the dev provider.
public struct DevClient: Sendable, Hashable {
    /// The client ID.
    public var id: String
    /// The secret; `nil` for a public client (`none`).
    public var secret: String?
    /// The registered redirect URIs, matched exactly (a loopback URI matches any port, RFC 8252 §7.3).
    public var redirectURIs: [String]
    /// Faults applied to this client's tokens and token requests.
    public var faults: Set<DevFault>

    /// Creates a client.
    public init(id: String, secret: String? = nil, redirectURIs: [String], faults: Set<DevFault> = []) {
        self.id = id
        self.secret = secret
        self.redirectURIs = redirectURIs
        self.faults = faults
    }

    /// Whether `uri` is one of the registered redirect URIs.
    public func accepts(redirectURI uri: String) -> Bool {
        redirectURIs.contains { registered in
            registered == uri || Self.sameLoopbackIgnoringPort(registered, uri)
        }
    }

    private static func sameLoopbackIgnoringPort(_ registered: String, _ candidate: String) -> Bool {
        guard let r = URLComponents(string: registered), let c = URLComponents(string: candidate),
            r.scheme == "http", c.scheme == "http", let host = r.host, ["127.0.0.1", "::1", "[::1]"].contains(host),
            r.port == nil, c.host == r.host, c.path == r.path, c.query == r.query
        else { return false }
        return true
    }
}

/// What the dev provider serves.
public struct DevProviderConfiguration: Sendable {
    /// The registered clients.
    public var clients: [DevClient]
    /// The test users, in display order.
    public var users: [DevUser]
    /// When set, `/authorize` signs this user in at once (scripted use); `login_hint` still wins.
    public var autoApproveSubject: String?
    /// Lifetime of access and ID tokens.
    public var tokenLifetime: TimeInterval

    /// Creates a configuration.
    public init(clients: [DevClient], users: [DevUser], autoApproveSubject: String? = nil, tokenLifetime: TimeInterval = 3600) {
        self.clients = clients
        self.users = users
        self.autoApproveSubject = autoApproveSubject
        self.tokenLifetime = tokenLifetime
    }

    /// A ready-to-use configuration: client `dev-client` (secret `dev-secret`, loopback
    /// redirects on any port), public client `dev-public`, and two users.
    public static let standard = DevProviderConfiguration(
        clients: [
            DevClient(id: "dev-client", secret: "dev-secret", redirectURIs: ["http://127.0.0.1/callback", "http://[::1]/callback"]),
            DevClient(id: "dev-public", redirectURIs: ["http://127.0.0.1/callback", "http://[::1]/callback"]),
        ],
        users: [
            DevUser(subject: "alice", email: "alice@example.com", name: "Alice Example"),
            DevUser(subject: "bob", email: "bob@example.com", emailVerified: false, name: "Bob Example"),
        ],
        autoApproveSubject: "alice")

    /// Reads a JSON configuration:
    /// `{"clients":[{"id","secret","redirect_uris":[...],"faults":[...]}], "users":[{"sub","email","email_verified","name"}], "auto_approve": "sub"}`.
    public init(json bytes: [UInt8]) throws(FederateError) {
        let object: [String: JSONValue]
        do {
            object = try JSONParser().parseObject(bytes)
        } catch {
            throw FederateError(.invalidConfiguration, "the dev provider configuration is not a JSON object")
        }
        func strings(_ value: JSONValue?) -> [String] { value?.arrayValue?.compactMap(\.stringValue) ?? [] }
        var clients: [DevClient] = []
        for entry in object["clients"]?.arrayValue ?? [] {
            guard let id = entry["id"]?.stringValue else { throw FederateError(.invalidConfiguration, "a client needs an id") }
            var faults: Set<DevFault> = []
            for name in strings(entry["faults"]) {
                guard let fault = DevFault(rawValue: name) else { throw FederateError(.invalidConfiguration, "unknown fault '\(name)'") }
                faults.insert(fault)
            }
            clients.append(DevClient(id: id, secret: entry["secret"]?.stringValue, redirectURIs: strings(entry["redirect_uris"]), faults: faults))
        }
        var users: [DevUser] = []
        for entry in object["users"]?.arrayValue ?? [] {
            guard let subject = entry["sub"]?.stringValue, let email = entry["email"]?.stringValue else {
                throw FederateError(.invalidConfiguration, "a user needs sub and email")
            }
            users.append(DevUser(
                subject: subject, email: email, emailVerified: entry["email_verified"]?.boolValue ?? true,
                name: entry["name"]?.stringValue ?? subject))
        }
        guard !clients.isEmpty, !users.isEmpty else { throw FederateError(.invalidConfiguration, "declare at least one client and one user") }
        self.init(clients: clients, users: users, autoApproveSubject: object["auto_approve"]?.stringValue)
    }
}
