public import FederateTokens
import Foundation

/// Asks an authorization server whether an access token is active (RFC 7662), as a resource
/// server does for opaque tokens, with the client (the API) authenticating as
/// ``ClientAuthentication`` says.
///
/// ```swift
/// let introspection = try IntrospectionClient(
///     metadata: metadata, clientID: "orders-api", authentication: .clientSecretBasic(secret: secret),
///     resource: "https://api.example.com", httpClient: http)
/// let verified = try await introspection.verify(token)
/// ```
///
/// - Results are cached by the SHA-256 of the token (``IntrospectionCachePolicy``): an active
///   one no longer than the token has left and the policy's ceiling, an inactive one briefly.
///   Concurrent verifications of one token share one call. The token is never stored or logged.
/// - An active result is refused when its `exp` passed, its `nbf` is ahead, its `iss` is not
///   the expected issuer, its `aud` (when present) lacks the API's resource identifier, or it
///   is bound in a way this server cannot check (`cnf.x5t#S256`, `token_type` `DPoP` without
///   `cnf.jkt`: `TokenBinding`, `token_binding_mismatch`).
/// - A failing endpoint (transport error, non-200 status, a body that is not RFC 7662) is
///   `FederateError.Code.introspectionFailed`, with the cause; it is not cached.
public struct IntrospectionClient: TokenVerifier {
    /// The introspection endpoint.
    package let endpoint: String
    /// The client ID the API authenticates with.
    package let clientID: String
    /// How the API authenticates.
    package let authentication: ClientAuthentication
    /// The API's resource identifier: an active result whose `aud` is present must contain it.
    package let resource: String?
    /// The authorization server's issuer: an active result whose `iss` is present must equal it.
    package let issuer: String?
    /// The provider the tokens come from, as callers' identities name it.
    package let providerID: String?
    /// The caching rules.
    package let cachePolicy: IntrospectionCachePolicy
    /// The leeway for `exp` and `nbf`.
    package let clockTolerance: Duration
    /// The time results are checked and cached at.
    package let clock: FederateClock
    /// Where the requests may connect: the provider's (`ProviderMetadata/destination`) for an
    /// advertised endpoint; by default the endpoint is its own issuer.
    package let destination: DestinationPolicy
    private let httpClient: any HTTPClient
    private let cache: IntrospectionCache

    /// Creates a client for `endpoint` (HTTPS, or HTTP on a loopback host).
    package init(
        endpoint: String, clientID: String, authentication: ClientAuthentication, resource: String? = nil, issuer: String? = nil,
        providerID: String? = nil, cachePolicy: IntrospectionCachePolicy = IntrospectionCachePolicy(),
        clockTolerance: Duration = .seconds(60),
        httpClient: any HTTPClient, clock: FederateClock = .system, destination: DestinationPolicy? = nil
    ) throws(FederateError) {
        let destination = destination ?? DestinationPolicy(issuer: endpoint)
        try EndpointSecurity.validate(endpoint, field: "introspection_endpoint", destination: destination)
        self.destination = destination
        self.endpoint = endpoint
        self.clientID = clientID
        self.authentication = authentication
        self.resource = resource
        self.issuer = issuer
        self.providerID = providerID
        self.cachePolicy = cachePolicy
        self.clockTolerance = clockTolerance
        self.httpClient = httpClient
        self.clock = clock
        self.cache = IntrospectionCache(clock: clock, maximumEntries: cachePolicy.maximumEntries)
    }

    /// Creates a client for the endpoint a provider advertises (`introspection_endpoint`),
    /// expecting its issuer; `FederateError.Code.endpointNotAvailable` when it advertises none.
    public init(
        metadata: ProviderMetadata, clientID: String, authentication: ClientAuthentication, resource: String? = nil,
        providerID: String? = nil,
        cachePolicy: IntrospectionCachePolicy = IntrospectionCachePolicy(), clockTolerance: Duration = .seconds(60),
        httpClient: any HTTPClient, clock: FederateClock = .system
    ) throws(FederateError) {
        guard let endpoint = metadata.introspectionEndpoint else {
            throw FederateError(.endpointNotAvailable, "the provider advertises no introspection_endpoint")
        }
        try self.init(
            endpoint: endpoint, clientID: clientID, authentication: authentication, resource: resource, issuer: metadata.issuer,
            providerID: providerID, cachePolicy: cachePolicy, clockTolerance: clockTolerance, httpClient: httpClient, clock: clock,
            destination: metadata.destination)
    }

    /// How many calls to the endpoint this client has made (cache misses).
    var endpointCalls: Int { cache.callCount }

    /// The endpoint's answer for `token`, from the cache when it holds one. An inactive token
    /// is a response with ``IntrospectionResponse/active`` `false`, not an error.
    func introspect(_ token: String) async throws(FederateError) -> IntrospectionResponse {
        let request = self
        let policy = cachePolicy
        let clock = self.clock
        return try await cache.value(
            for: IntrospectionCache.key(for: token),
            fetch: {
                do throws(FederateError) {
                    return .success(try await request.call(token))
                } catch {
                    return .failure(error)
                }
            },
            lifetime: { response in Self.lifetime(of: response, policy: policy, now: clock.now) }
        ).get()
    }

    /// Introspects `token` and returns the caller it vouches for; an inactive token is
    /// `FederateError.Code.tokenInactive`.
    public nonisolated(nonsending) func verify(_ token: String) async throws(FederateError) -> VerifiedToken {
        let response = try await introspect(token)
        try check(response)
        return VerifiedToken(
            kind: .introspection, providerID: providerID, issuer: response.issuer ?? issuer, subject: response.subject,
            clientID: response.clientID, scopes: response.scopes, expiresAt: response.expiresAt?.date, confirmation: response.confirmation,
            claims: JSONMembers(response.members), tokenType: response.tokenType)
    }

    /// The checks an active response must pass to admit a caller.
    func check(_ response: IntrospectionResponse) throws(FederateError) {
        guard response.active else { throw FederateError(.tokenInactive, "the authorization server reports the token inactive") }
        let now = clock.now.timeIntervalSince1970, tolerance = clockTolerance.inSeconds
        if let expiresAt = response.expiresAt, now >= expiresAt.secondsSince1970 + tolerance {
            throw FederateError(.tokenExpired, "the token expired at \(expiresAt)")
        }
        if let notBefore = response.notBefore, notBefore.secondsSince1970 > now + tolerance {
            throw FederateError(.notYetValid, "the token is not valid before \(notBefore)")
        }
        if let expected = issuer, let actual = response.issuer, !actual.exactlyEquals(expected) {
            throw FederateError(.issuerMismatch, "introspection 'iss' '\(actual.prefix(200))' is not the expected issuer")
        }
        if let resource, let audiences = response.audiences, !audiences.contains(where: { $0.exactlyEquals(resource) }) {
            throw FederateError(.audienceMismatch, "introspection 'aud' does not contain this API's resource identifier")
        }
        // The rule JWT access tokens follow too (`ConfirmationRule`): a binding no presentation can check refuses the token.
        try response.binding.requireCheckable()
    }

    /// How long `response` may be cached: active, up to `exp` and the ceiling; inactive, briefly.
    static func lifetime(of response: IntrospectionResponse, policy: IntrospectionCachePolicy, now: Date) -> Duration {
        guard response.active else { return policy.inactiveLifetime }
        guard let expiresAt = response.expiresAt else { return policy.activeCeiling }
        let remaining = expiresAt.secondsSince1970 - now.timeIntervalSince1970
        guard remaining > 0 else { return .zero }
        return remaining < policy.activeCeiling.inSeconds ? .seconds(remaining) : policy.activeCeiling
    }

    /// One call to the endpoint. Never logs or keeps the token.
    private func call(_ token: String) async throws(FederateError) -> IntrospectionResponse {
        var form: [(String, String)] = [("token", token), ("token_type_hint", "access_token")]
        var headers: [(name: String, value: String)] = [
            ("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json"),
        ]
        try authentication.apply(clientID: clientID, endpoint: endpoint, form: &form, headers: &headers, now: clock.now)
        let response: HTTPResponse
        do {
            response = try await httpClient.exchange(
                HTTPRequest(
                    method: "POST", url: endpoint, headers: headers, body: Array(FormURLEncoding.encode(form).utf8),
                    maxResponseBytes: 64 * 1024,
                    destination: destination))
        } catch {
            throw FederateError(.introspectionFailed, "the introspection endpoint could not be reached (\(error.code))", cause: error)
        }
        guard response.status == 200 else {
            let refusal = OpenIDClient.errorFromResponse(response, endpoint: "introspection endpoint")
            throw FederateError(
                .introspectionFailed, "the introspection endpoint answered HTTP \(response.status) (\(refusal.code))", cause: refusal)
        }
        return try IntrospectionResponse(json: response.body)
    }
}

extension FederateError.Code {
    /// The introspection endpoint (RFC 7662) failed: unreachable, a status other than 200, or
    /// a body that is not an introspection response (`active` missing or not a Boolean). The
    /// token's validity is unknown: answer 503 and retry later; the cause has the details.
    public static let introspectionFailed: Self = "introspection_failed"
    /// The authorization server reports the token inactive (RFC 7662 `active: false`):
    /// expired, revoked, or never issued. Answer 401 `invalid_token`.
    public static let tokenInactive: Self = "token_inactive"
}
