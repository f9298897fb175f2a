public import FederateRelyingParty
public import FederateTokens
public import Foundation

/// Verifies Firebase Authentication ID tokens on your own server, as the Firebase Admin SDKs do.
///
/// Header: `alg` RS256 and a `kid` naming one of the certificates at Google's securetoken
/// x509 map (cached by `Cache-Control: max-age`). Payload: `iss`
/// `https://securetoken.google.com/<project>`, `aud` the project, `exp` in the future, `iat`
/// and `auth_time` in the past, `sub` (the uid) non-empty and at most 128 characters.
public struct FirebaseIDTokenVerifier: Sendable {
    /// Google's certificate map for Firebase ID tokens.
    public static let certificatesURL = "https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"

    /// The largest clock tolerance accepted.
    public static let maximumClockTolerance: Duration = .seconds(300)

    /// The Firebase project ID.
    public let projectID: String
    /// The underlying verifier.
    public let verifier: IDTokenVerifier
    /// Looks a uid up for the optional revocation check (see ``verify(_:checkRevoked:)``).
    public let userLookup: (@Sendable (String) async throws -> FirebaseUserState?)?

    /// Creates a verifier for `projectID`.
    ///
    /// - Parameters:
    ///   - projectID: the Firebase project ID (the tokens' `aud`); `nil` is `invalid_configuration`.
    ///   - clockTolerance: the clock skew allowed, 0 to 300 seconds (Firebase's SDKs use 0 to 300; default 5).
    ///   - keys: the key provider; without it, a `RemoteKeySet` on the x509 map fetched over `httpClient`.
    ///   - httpClient: the transport for Google's keys, when `keys` is not given.
    ///   - issuerBase: `https://securetoken.google.com/` unless testing against a stand-in.
    ///   - userLookup: the user's revocation state by uid, for `checkRevoked`.
    ///   - clock: the time tokens are checked at, and the fetched keys' cache expires by.
    ///   - observability: where verifications are counted and traced (Docs/Operations.md).
    public init(
        projectID: String?, clockTolerance: Duration = .seconds(5), keys: (any KeySetProvider)? = nil,
        httpClient: (any HTTPClient)? = nil, issuerBase: String = "https://securetoken.google.com/",
        userLookup: (@Sendable (String) async throws -> FirebaseUserState?)? = nil, clock: FederateClock = .system,
        observability: Observability = Observability()
    ) throws(FederateError) {
        guard let projectID, !projectID.isEmpty else {
            throw FederateError(.projectIDMissing, "no Firebase project ID: pass one, or set it in the service-account JSON or GOOGLE_CLOUD_PROJECT")
        }
        guard (.zero...Self.maximumClockTolerance).contains(clockTolerance) else {
            throw FederateError(.invalidConfiguration, "the clock tolerance is 0 to 300 seconds")
        }
        self.userLookup = userLookup
        let provider = try RemoteKeySet.keys(
            keys, orFetch: Self.certificatesURL, format: .x509Map, over: httpClient, clock: clock, observability: observability)
        self.projectID = projectID
        self.verifier = IDTokenVerifier(
            policy: IDTokenPolicy(
                issuers: [issuerBase + projectID], audiences: [projectID], allowedAlgorithms: [.rs256],
                clockTolerance: clockTolerance, requiredClaims: ["auth_time"]),
            keys: provider, clock: clock, observability: observability)
    }

    /// Verifies `token` and returns the Firebase reading of it.
    ///
    /// With `checkRevoked`, the uid is looked up (a lookup that fails with another error than a
    /// `FederateError` gives `account_store_failed`): a disabled user fails with `user_disabled`,
    /// and a token whose `auth_time` is before the user's `tokensValidAfter` with
    /// `id_token_revoked`. An expired token fails with `id_token_expired`.
    public func verify(_ token: String, checkRevoked: Bool = false) async throws(FederateError) -> FirebaseToken {
        let jws = try CompactJWS(parsing: token, limits: verifier.policy.limits)
        guard jws.header.keyID?.isEmpty == false else {
            throw FederateError(.unknownKey, "a Firebase ID token must name its key ('kid')")
        }
        let idToken: IDToken
        do throws(FederateError) {
            idToken = try await verifier.verify(token)
        } catch where error.code == .tokenExpired {
            throw FederateError(.idTokenExpired, "the Firebase ID token has expired: get a fresh one from the client SDK")
        }
        guard idToken.subject.utf8.count <= 128 else { throw FederateError(.invalidClaim, "'sub' exceeds 128 characters") }
        let token = FirebaseToken(idToken: idToken)
        if checkRevoked {
            guard let userLookup else {
                throw FederateError(.invalidConfiguration, "checkRevoked needs a userLookup")
            }
            let found: FirebaseUserState?
            do {
                found = try await userLookup(token.uid)
            } catch {
                throw .wrapping(error, as: .accountStoreFailed, "the user lookup for the revocation check failed")
            }
            guard let state = found else {
                throw FederateError(.userNotFound, "no user with this uid")
            }
            guard !state.disabled else { throw FederateError(.userDisabled, "the user is disabled") }
            if let validAfter = state.tokensValidAfter, let authTime = token.authTime, authTime < validAfter {
                throw FederateError(.idTokenRevoked, "the user's tokens were revoked after this sign-in")
            }
        }
        return token
    }
}

/// What the revocation check needs to know about a user.
public struct FirebaseUserState: Sendable, Hashable {
    /// Whether the user is disabled.
    public var disabled: Bool
    /// Tokens from sign-ins before this instant are revoked.
    public var tokensValidAfter: Date?

    /// Creates a state.
    public init(disabled: Bool = false, tokensValidAfter: Date? = nil) {
        self.disabled = disabled
        self.tokensValidAfter = tokensValidAfter
    }
}

extension FederateError.Code {
    /// Firebase: no project ID was given or found.
    public static let projectIDMissing: Self = "project_id_missing"
    /// Firebase: the ID token has expired.
    public static let idTokenExpired: Self = "id_token_expired"
    /// Firebase: the user's tokens were revoked after this sign-in.
    public static let idTokenRevoked: Self = "id_token_revoked"
    // `user_disabled` and `user_not_found` are the core's account codes (FederateError.swift).
}

/// A verified Firebase ID token.
public struct FirebaseToken: Sendable {
    /// The verified token.
    public let idToken: IDToken
    /// The Firebase uid (`sub`).
    public var uid: String { idToken.subject }
    /// `firebase.sign_in_provider` (`password`, `google.com`, `apple.com`, `custom`, …).
    public var signInProvider: String? { idToken.claims["firebase"]?["sign_in_provider"]?.stringValue }
    /// `firebase.identities`: the provider IDs and their subject lists.
    public var identities: [String: JSONValue] { idToken.claims["firebase"]?["identities"]?.objectValue ?? [:] }
    /// When the user signed in (`auth_time`), for revocation checks against `tokensValidAfter`.
    public var authTime: Date? { idToken.authTime }
}

/// Finds the Firebase project ID the way the Admin SDKs do.
public enum FirebaseProjectID {
    /// In order: `explicit`, `project_id` of the service-account JSON, `GOOGLE_CLOUD_PROJECT`,
    /// then `GCLOUD_PROJECT`. `nil` when none is set.
    public static func resolve(
        explicit: String? = nil, serviceAccountJSON: [UInt8]? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        if let explicit, !explicit.isEmpty { return explicit }
        if let serviceAccountJSON, let object = try? JSONParser().parseObject(serviceAccountJSON),
            case .string(let project)? = object["project_id"], !project.isEmpty
        {
            return project
        }
        for name in ["GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT"] {
            if let value = environment[name], !value.isEmpty { return value }
        }
        return nil
    }
}

extension FirebaseIDTokenVerifier: BearerTokenVerifier {
    /// `firebase`.
    public var providerID: String { "firebase" }

    /// Verifies a Firebase ID token (without the revocation check; a nonce is not part of
    /// Firebase ID tokens and is ignored).
    public func verifyBearer(_ token: String, expecting expectations: IDTokenExpectations) async throws(FederateError) -> BearerIdentity {
        BearerIdentity(providerID: providerID, idToken: try await verify(token).idToken)
    }
}
