public import FederateRelyingParty
public import FederateTokens
public import Foundation

/// A Sign in with Apple server-to-server notification, verified and decoded.
public struct AppleNotification: Sendable, Hashable {
    /// What happened.
    public enum EventType: Sendable, Hashable {
        /// The user stopped forwarding email to their private relay address.
        case emailDisabled
        /// The user resumed forwarding.
        case emailEnabled
        /// The user stopped using Sign in with Apple with the app.
        case consentRevoked
        /// The user deleted their Apple account.
        case accountDelete
        /// A type Apple added later, kept as sent.
        case other(String)

        init(_ name: String) {
            switch name {
            case "email-disabled": self = .emailDisabled
            case "email-enabled": self = .emailEnabled
            case "consent-revoked": self = .consentRevoked
            case "account-delete": self = .accountDelete
            default: self = .other(name)
            }
        }
    }

    /// The event type.
    public let type: EventType
    /// The user (`sub` in the event).
    public let subject: String
    /// When it happened (`event_time`, milliseconds since 1970 in Apple's payloads).
    public let eventTime: Date
    /// The email concerned, for the email events.
    public let email: String?
    /// `is_private_email`, when sent.
    package let isPrivateEmail: Bool?
    /// The notification JWT's `jti`, if any, to drop repeated deliveries.
    public let notificationID: String?
}

/// Verifies the `{"payload": JWT}` bodies Apple POSTs: the JWT is checked with Apple's keys
/// (RS256, `iss`, `aud` the app's ID, `iat`, `exp` when present), then its `events` claim —
/// a JSON *string* — is decoded. Deliveries can repeat: use ``AppleNotification/notificationID``
/// or the event's content to make handling idempotent.
public struct AppleNotificationVerifier: Sendable {
    /// Verifies the payload JWT: RS256 by Apple's keys, `iss` Apple, `aud` one of the
    /// client IDs, `iat` present and not in the future, `exp` when present. Notifications
    /// carry the user in `events`, not in a top-level `sub`.
    package let verifier: JWTVerifier

    /// Creates a verifier for notifications addressed to `clientIDs`, with `keys` or with
    /// Apple's keys fetched over `httpClient`; notifications are checked at `clock`'s time.
    public init(
        clientIDs: IdentifierSet, endpoints: AppleEndpoints = .apple, keys: (any KeySetProvider)? = nil,
        httpClient: (any HTTPClient)? = nil, clock: FederateClock = .system
    ) throws(FederateError) {
        let provider = try RemoteKeySet.keys(keys, orFetch: endpoints.keysURL, over: httpClient, clock: clock)
        verifier = JWTVerifier(issuers: [endpoints.issuer], audiences: clientIDs, allowedAlgorithms: [.rs256], keys: provider, clock: clock)
    }

    /// Verifies and decodes a request body.
    public nonisolated(nonsending) func verify(body: [UInt8]) async throws(FederateError) -> AppleNotification {
        let payload: String
        do {
            let object = try JSONParser(limits: .init(maxBytes: 64 * 1024, maxDepth: 4)).parseObject(body)
            guard case .string(let jwt)? = object["payload"] else { throw FederateError(.malformedToken, "no payload") }
            payload = jwt
        } catch {
            throw FederateError(.malformedToken, "an Apple notification body is {\"payload\": JWT}")
        }
        let token = try await verifier.verify(payload)
        return try Self.decode(claims: token.claims)
    }

    /// Decodes the verified claims' `events` string. Throws `FederateError/Code/invalidClaim`.
    package static func decode(claims: JSONMembers) throws(FederateError) -> AppleNotification {
        let events: [String: JSONValue]
        switch claims["events"] {
        case .string(let json)?:
            do {
                events = try JSONParser(limits: .init(maxBytes: 16 * 1024, maxDepth: 4)).parseObject(Array(json.utf8))
            } catch {
                throw FederateError(.invalidClaim, "'events' is not a JSON object string")
            }
        case .object(let object)?:
            events = object  // tolerated: some relays decode it already
        default:
            throw FederateError(.missingClaim, "the notification has no 'events'")
        }
        guard case .string(let type)? = events["type"], !type.isEmpty else { throw FederateError(.invalidClaim, "events.type is missing") }
        guard case .string(let subject)? = events["sub"], !subject.isEmpty else {
            throw FederateError(.invalidClaim, "events.sub is missing")
        }
        guard let milliseconds = events["event_time"]?.doubleValue ?? events["event_time"]?.stringValue.flatMap(Double.init),
            let eventTime = NumericDate(secondsSince1970: milliseconds / 1000)
        else {
            throw FederateError(.invalidClaim, "events.event_time is missing or not a time in milliseconds from 0 to 2^53 s")
        }
        let isPrivateEmail = try events["is_private_email"].map { (value) throws(FederateError) -> Bool in
            guard let flag = AppleClaims.bool(value) else { throw FederateError(.invalidClaim, "events.is_private_email is not a boolean") }
            return flag
        }
        return AppleNotification(
            type: .init(type), subject: subject, eventTime: eventTime.date,
            email: events["email"]?.stringValue, isPrivateEmail: isPrivateEmail, notificationID: claims["jti"]?.stringValue)
    }
}
