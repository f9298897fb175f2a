public import Federate
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

    /// The Firebase project ID.
    public let projectID: String
    /// The underlying verifier.
    public let verifier: IDTokenVerifier

    /// Creates a verifier for `projectID`.
    ///
    /// - Parameters:
    ///   - clockTolerance: seconds of clock skew allowed (Firebase's SDKs use 0 to 300; default 5).
    ///   - keys: the key provider (default: a ``RemoteKeySet`` on the x509 map).
    ///   - issuerBase: `https://securetoken.google.com/` unless testing against a stand-in.
    public init(
        projectID: String, clockTolerance: Double = 5, keys: (any KeySetProvider)? = nil,
        issuerBase: String = "https://securetoken.google.com/"
    ) throws(FederateError) {
        guard !projectID.isEmpty else { throw FederateError(.invalidConfiguration, "the Firebase project ID is empty") }
        let provider: any KeySetProvider
        if let keys { provider = keys } else { provider = try RemoteKeySet(url: Self.certificatesURL, format: .x509Map) }
        self.projectID = projectID
        self.verifier = IDTokenVerifier(
            policy: IDTokenPolicy(
                issuers: [issuerBase + projectID], audiences: [projectID], allowedAlgorithms: [.rs256],
                clockTolerance: clockTolerance, requiredClaims: ["auth_time"]),
            keys: provider)
    }

    /// Verifies `token` and returns the Firebase reading of it.
    public func verify(_ token: String, now: Double? = nil) async throws -> FirebaseToken {
        let jws = try CompactJWS(parsing: token, limits: verifier.policy.limits)
        guard jws.header.keyID?.isEmpty == false else {
            throw FederateError(.unknownKey, "a Firebase ID token must name its key ('kid')")
        }
        let idToken = try await verifier.verify(token, expecting: IDTokenExpectations(now: now))
        guard idToken.subject.utf8.count <= 128 else { throw FederateError(.invalidClaim, "'sub' exceeds 128 characters") }
        return FirebaseToken(idToken: idToken)
    }
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
