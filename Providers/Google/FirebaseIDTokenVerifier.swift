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
    package static let certificatesURL = "https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"

    /// The largest clock tolerance accepted.
    static let maximumClockTolerance: Duration = .seconds(300)

    /// The Firebase project ID.
    package var projectID: String { check.projectID }
    /// The underlying verifier (for signed tokens).
    package var verifier: IDTokenVerifier { check.verifier }
    /// Looks a uid up for the optional revocation check (see ``verify(_:checkRevoked:)``).
    package var userLookup: (@Sendable (String) async throws -> FirebaseUserState?)? { check.userLookup }
    /// The Auth emulator whose unsigned tokens are accepted, when one was configured.
    package var emulator: FirebaseEmulator? { check.emulator }
    private let check: FirebaseJWTCheck

    /// Creates a verifier for `projectID`.
    ///
    /// - Parameters:
    ///   - projectID: the Firebase project ID (the tokens' `aud`); `nil` is `invalid_configuration`.
    ///   - clockTolerance: the clock skew allowed, 0 to 300 seconds (Firebase's SDKs use 0 to 300; default 5).
    ///   - keys: the key provider; without it, a `RemoteKeySet` on the x509 map fetched over `httpClient`.
    ///   - httpClient: the transport for Google's keys, when `keys` is not given.
    ///   - issuerBase: `https://securetoken.google.com/` unless testing against a stand-in.
    ///   - tenants: when set, `firebase.tenant` must be one of these (the Admin SDKs'
    ///     tenant-aware `verifyIdToken`): another tenant's token, or a project-level user's
    ///     (no tenant), is `tenant_not_allowed`. `nil` (the default) accepts any, as project-level `verifyIdToken` does.
    ///   - emulator: the Auth emulator; when set, only its unsigned tokens are accepted (``FirebaseEmulator``). Never by default.
    ///   - userLookup: the user's revocation state by uid, for `checkRevoked`.
    ///   - clock: the time tokens are checked at, and the fetched keys' cache expires by.
    ///   - observability: where verifications are counted and traced (Docs/Operations.md).
    public init(
        projectID: String?, clockTolerance: Duration = .seconds(5), keys: (any KeySetProvider)? = nil,
        httpClient: (any HTTPClient)? = nil, issuerBase: String = "https://securetoken.google.com/", tenants: IdentifierSet? = nil,
        emulator: FirebaseEmulator? = nil, userLookup: (@Sendable (String) async throws -> FirebaseUserState?)? = nil,
        clock: FederateClock = .system, observability: Observability = Observability()
    ) throws(FederateError) {
        check = try FirebaseJWTCheck(
            name: "ID token", projectID: projectID, clockTolerance: clockTolerance, keys: keys, httpClient: httpClient,
            certificatesURL: Self.certificatesURL, issuerBase: issuerBase, tenants: tenants, emulator: emulator, userLookup: userLookup,
            clock: clock, observability: observability, expiredCode: .idTokenExpired, revokedCode: .idTokenRevoked)
    }

    /// Verifies `token` and returns the Firebase reading of it.
    ///
    /// With `checkRevoked`, the uid is looked up (a lookup that fails with another error than a
    /// `FederateError` gives `account_store_failed`): a disabled user fails with `user_disabled`,
    /// and a token whose `auth_time` is before the user's `tokensValidAfter` with
    /// `id_token_revoked`. An expired token fails with `id_token_expired`; a token of a tenant
    /// not expected with `tenant_not_allowed`. (``verify(_:)`` is the `TokenVerifier` reading:
    /// no revocation check, no emulator token.)
    public nonisolated(nonsending) func verify(_ token: String, checkRevoked: Bool) async throws(FederateError) -> FirebaseToken {
        try await check.verify(token, checkRevoked: checkRevoked)
    }
}

/// What the revocation check needs to know about a user.
public struct FirebaseUserState: Sendable, Hashable {
    /// Whether the user is disabled.
    package var disabled: Bool
    /// Tokens from sign-ins before this instant are revoked.
    package var tokensValidAfter: Date?

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

/// A verified Firebase ID token or session cookie.
public struct FirebaseToken: Sendable {
    /// The verified token; `nil` for an Auth emulator token, which nothing signed.
    public let idToken: IDToken?
    /// Every claim of the payload, read from its text when asked for.
    public let claims: JSONMembers

    /// A signed token that passed the rules.
    init(idToken: IDToken) {
        self.idToken = idToken
        self.claims = idToken.claims
    }

    /// An emulator token that passed the rules.
    init(emulatedClaims claims: JSONMembers) {
        self.idToken = nil
        self.claims = claims
    }

    /// Whether the token came from the Auth emulator (unsigned; accepted only because an
    /// emulator was configured).
    var isEmulated: Bool { idToken == nil }
    /// The Firebase uid (`sub`).
    public var uid: String { claims["sub"]?.stringValue ?? "" }
    /// `firebase.sign_in_provider` (`password`, `google.com`, `apple.com`, `custom`, …).
    public var signInProvider: String? { claims["firebase"]?["sign_in_provider"]?.stringValue }
    /// `firebase.identities`: the provider IDs and their subject lists.
    package var identities: [String: JSONValue] { claims["firebase"]?["identities"]?.objectValue ?? [:] }
    /// `firebase.tenant`: the Identity Platform tenant the user belongs to, if any.
    public var tenant: String? { claims["firebase"]?["tenant"]?.stringValue }
    /// When the user signed in (`auth_time`), for revocation checks against `tokensValidAfter`.
    public var authTime: Date? { claims["auth_time"].flatMap(NumericDate.init(json:))?.date }
}

/// Finds the Firebase project ID the way the Admin SDKs do.
package enum FirebaseProjectID {
    /// In order: `explicit`, `project_id` of the service-account JSON, `GOOGLE_CLOUD_PROJECT`,
    /// then `GCLOUD_PROJECT`. `nil` when none is set.
    package static func resolve(
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

extension FirebaseIDTokenVerifier: TokenVerifier {
    /// Verifies a Firebase ID token without the revocation check: provider `firebase`, the
    /// token in `VerifiedToken.idToken`. An Auth emulator token is not a verified ID token
    /// (it is unsigned): in emulator mode this throws `invalid_configuration`; use
    /// ``verify(_:checkRevoked:)``.
    public nonisolated(nonsending) func verify(_ token: String) async throws(FederateError) -> VerifiedToken {
        try Self.verified(try await check.verify(token, checkRevoked: false))
    }

    private static func verified(_ token: FirebaseToken) throws(FederateError) -> VerifiedToken {
        guard let idToken = token.idToken else {
            throw FederateError(.invalidConfiguration, "an Auth emulator token is not a verified ID token: use verify(_:checkRevoked:)")
        }
        return VerifiedToken(idToken: idToken, providerID: "firebase")
    }
}
