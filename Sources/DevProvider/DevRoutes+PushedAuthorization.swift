import Federate
import Foundation
import Hummingbird

/// An authorization request refused before a redirect URI could be trusted: answered with a page.
struct DevRefusal: Error {
    let response: Response
}

/// Why a request object was refused (the `error_description`).
struct DevRequestObjectRefusal: Error {
    let reason: String
}

extension DevRoutes {
    /// How long a pushed request's `request_uri` lives.
    static let pushedRequestLifetime: Duration = .seconds(60)

    /// `POST /par` (RFC 9126): authenticates the client, checks the request (its `client_id`,
    /// a registered `redirect_uri`, `response_type=code`; a request object when sent), keeps it
    /// for 60 seconds and answers 201 with `request_uri` and `expires_in`.
    func pushAuthorization(form: String, authorization: String?) async -> Response {
        guard let parameters = try? FormURLEncoding.decode(form) else { return oauthError("invalid_request", "malformed form") }
        let client: DevClient
        switch await authenticate(parameters, authorization: authorization, endpoint: baseURL + endpoints.pushedAuthorization) {
        case .success(let authenticated): client = authenticated
        case .failure(let failure): return invalidClient(failure)
        }
        guard parameters["client_id"].map({ $0.exactlyEquals(client.id) }) ?? true else {
            return oauthError("invalid_request", "client_id differs from the authenticated client")
        }
        guard parameters["request_uri"] == nil else { return oauthError("invalid_request", "request_uri cannot be pushed (RFC 9126 §2.1)") }
        var request = parameters.filter { !["client_assertion", "client_assertion_type", "client_secret"].contains($0.key) }
        if let object = parameters["request"] {
            switch await requestObjectParameters(object, client: client, outer: request) {
            case .success(let claims): request = claims
            case .failure(let refusal): return oauthError("invalid_request_object", refusal.reason)
            }
        }
        guard let redirectURI = request["redirect_uri"], client.accepts(redirectURI: redirectURI) else {
            return oauthError("invalid_request", "redirect_uri is not registered for this client")
        }
        guard request["response_type"] == "code" else { return oauthError("unsupported_response_type", "only response_type=code") }
        request["client_id"] = client.id
        let uri = "urn:ietf:params:oauth:request_uri:" + DevRandom.token()
        let expiresAt = configuration.clock.now.adding(Self.pushedRequestLifetime)
        state.pushedRequests.withLock { requests in
            requests = requests.filter { $0.value.expiresAt > configuration.clock.now }
            requests[ExactString(uri)] = DevPushedRequest(clientID: client.id, parameters: request, expiresAt: expiresAt)
        }
        return json(["request_uri": .string(uri), "expires_in": .integer(Self.pushedRequestLifetime.wholeSeconds)], status: .created)
    }

    /// The parameters an authorization request stands for: a pushed request's (`request_uri`),
    /// a request object's (`request`), or those sent. Only the picker's `user` and `cancel`
    /// come from outside a pushed request or a request object. When pushed requests are
    /// required, any other request is refused.
    func resolveAuthorizationParameters(_ raw: [String: String]) async -> Result<[String: String], DevRefusal> {
        func refuse(_ title: String, _ text: String) -> Result<[String: String], DevRefusal> {
            .failure(DevRefusal(response: page(status: .badRequest, title: title, body: "<p>\(html(text))</p>")))
        }
        var resolved: [String: String]
        if let uri = raw["request_uri"] {
            let now = configuration.clock.now
            guard let pushed = state.pushedRequests.withLock({ $0[ExactString(uri)] }), pushed.expiresAt > now else {
                return refuse("Request expired", "request_uri is unknown, used or expired: the app must push the request again.")
            }
            guard let id = raw["client_id"], id.exactlyEquals(pushed.clientID) else {
                return refuse("Unknown client", "client_id must be the client that pushed the request.")
            }
            resolved = pushed.parameters
        } else if configuration.requirePushedAuthorizationRequests, servesClientFlows {
            return refuse("Pushed request required", "This provider accepts only pushed authorization requests (RFC 9126).")
        } else if let object = raw["request"] {
            guard let client = client(raw["client_id"]) else {
                return refuse("Unknown client", "No client with this client_id is registered.")
            }
            switch await requestObjectParameters(object, client: client, outer: raw) {
            case .success(let claims): resolved = claims
            case .failure(let refusal): return refuse("Invalid request object", refusal.reason)
            }
        } else {
            return .success(raw)
        }
        for name in ["user", "cancel"] { resolved[name] = raw[name] }
        return .success(resolved)
    }

    /// A pushed request is used once: gone when its code is issued.
    func consumePushedRequest(_ raw: [String: String]) {
        guard let uri = raw["request_uri"] else { return }
        _ = state.pushedRequests.withLock { $0.removeValue(forKey: ExactString(uri)) }
    }

    /// A request object's parameters (RFC 9101), verified through the one JWT pipeline
    /// (`ClaimRules.requestObject`): signed by one of the client's registered keys, or HS256
    /// with its secret; its `client_id` the client; `response_type` and `scope` sent outside it
    /// equal to those inside. Claims become string parameters (numbers as digits).
    func requestObjectParameters(
        _ token: String, client: DevClient, outer: [String: String]
    ) async -> Result<[String: String], DevRequestObjectRefusal> {
        var algorithms: Set<JWSAlgorithm> = client.publicKeys == nil ? [] : [.rs256, .es256, .ps256, .edDSA]
        if client.secret != nil { algorithms.insert(.hs256) }
        let verifier = JWTVerifier(
            rules: .requestObject(clientID: client.id, audiences: [issuer, baseURL]), allowedAlgorithms: algorithms,
            keys: client.publicKeys ?? JSONWebKeySet.empty, hmacSecret: client.secret.map { HMACSecret(utf8: $0) },
            clockTolerance: .seconds(5),
            clock: configuration.clock)
        let verified: VerifiedJWT
        do {
            verified = try await verifier.verify(token)
        } catch {
            return .failure(DevRequestObjectRefusal(reason: "the request object is refused: \(error.code): \(error.message)"))
        }
        var parameters: [String: String] = [:]
        for (name, value) in verified.claims.dictionary where !["iss", "aud", "exp", "iat", "nbf", "jti"].contains(name) {
            switch value {
            case .string(let string): parameters[name] = string
            case .integer(let number): parameters[name] = String(number)
            default: return .failure(DevRequestObjectRefusal(reason: "claim '\(name.prefix(40))' is neither a string nor an integer"))
            }
        }
        guard parameters["client_id"].map({ $0.exactlyEquals(client.id) }) ?? false else {
            return .failure(DevRequestObjectRefusal(reason: "the request object's client_id is not the client"))
        }
        for name in ["response_type", "scope"] {
            if let value = outer[name], value != parameters[name] {
                return .failure(DevRequestObjectRefusal(reason: "\(name) differs inside and outside the request object"))
            }
        }
        return .success(parameters)
    }
}
