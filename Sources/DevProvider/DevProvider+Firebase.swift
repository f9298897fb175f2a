import Federate
public import Foundation
import Hummingbird

extension DevProvider {
    /// Firebase flavour: the session-cookie key URL (Google's
    /// `/identitytoolkit/v3/relyingparty/publicKeys`, the same `{kid: PEM}` certificate map).
    public var sessionCookieKeysURL: String? {
        configuration.flavor == .firebase ? baseURL + DevRoutes.firebaseSessionCookieKeys : nil
    }

    /// Firebase flavour: the issuer base of session cookies, standing in for
    /// `https://session.firebase.google.com/`: `http://127.0.0.1:PORT/session/`.
    public var sessionCookieIssuerBase: String { baseURL + "/session/" }

    /// Firebase flavour: a session cookie for `user`, as `createSessionCookie` makes one: `iss`
    /// ``sessionCookieIssuerBase`` plus the project, `aud` the project, `auth_time`, lifetime
    /// `lifetime`, `firebase.tenant` when `tenant` is given; signed by a key of the certificate map.
    public func firebaseSessionCookie(
        for user: DevUser, tenant: String? = nil, authTime: Date? = nil, lifetime: Duration = .seconds(3600)
    ) throws -> String {
        let claims = firebaseClaims(
            for: user, issuer: sessionCookieIssuerBase + configuration.projectID, tenant: tenant, authTime: authTime, lifetime: lifetime)
        return try state.keys.withLock { $0.current.rsa }.sign(claims: claims, algorithm: .rs256, header: ["typ": "JWT"])
    }

    /// Firebase flavour: an ID token for `user` of Identity Platform tenant `tenant` (`firebase.tenant`).
    func firebaseIDToken(for user: DevUser, ofTenant tenant: String, authTime: Date?) throws -> String {
        let claims = firebaseClaims(for: user, issuer: issuer, tenant: tenant, authTime: authTime, lifetime: configuration.tokenLifetime)
        return try state.keys.withLock { $0.current.rsa }.sign(claims: claims, algorithm: .rs256, header: ["typ": "JWT"])
    }

    /// Firebase flavour, acting as the Auth emulator: an unsigned (`alg: none`, empty
    /// signature) token as the emulator mints it, with `iss` `issuerBase` plus the project
    /// (`https://securetoken.google.com/` for ID tokens, as the emulator writes it). Only a
    /// verifier configured with a `FirebaseEmulator` accepts it.
    public func firebaseEmulatorToken(
        for user: DevUser, issuerBase: String = "https://securetoken.google.com/", tenant: String? = nil, authTime: Date? = nil
    ) -> String {
        let claims = firebaseClaims(
            for: user, issuer: issuerBase + configuration.projectID, tenant: tenant, authTime: authTime,
            lifetime: configuration.tokenLifetime)
        return Base64URL.encode(JSONSerializer.bytes(["alg": "none", "typ": "JWT"])) + "."
            + Base64URL.encode(JSONSerializer.bytes(.object(claims))) + "."
    }

    private func firebaseClaims(
        for user: DevUser, issuer: String, tenant: String?, authTime: Date?, lifetime: Duration
    ) -> [String: JSONValue] {
        let now = SafeNumber.clampedInt64(configuration.clock.now.timeIntervalSince1970)
        var firebase: [String: JSONValue] = [
            "sign_in_provider": .string(configuration.firebaseSignInProvider),
            "identities": .object(["email": [.string(user.email)]]),
        ]
        if let tenant { firebase["tenant"] = .string(tenant) }
        return [
            "iss": .string(issuer), "aud": .string(configuration.projectID), "sub": .string(user.subject), "user_id": .string(user.subject),
            "iat": .integer(now), "exp": .integer(now &+ lifetime.wholeSeconds), "email": .string(user.email),
            "auth_time": .integer(SafeNumber.clampedInt64((authTime ?? configuration.clock.now).timeIntervalSince1970)),
            "firebase": .object(firebase),
        ]
    }
}

extension DevRoutes {
    /// Google's session-cookie key path.
    static let firebaseSessionCookieKeys = "/identitytoolkit/v3/relyingparty/publicKeys"

    /// Firebase flavour: the session-cookie certificate map (the same keys as ID tokens'; Google
    /// serves them at their own URL).
    func registerFirebaseSessionCookieKeys(on router: Router<BasicRequestContext>) {
        router.get(RouterPath(Self.firebaseSessionCookieKeys)) { _, _ in self.keys(self.state.certificateMap()) }
    }
}
