import FederateRelyingParty
import FederateTokens
import Foundation

/// What Firebase ID tokens and session cookies share (the Admin SDKs' one
/// `FirebaseTokenVerifier`): RS256 with a `kid` from a certificate map, `iss` a base plus the
/// project, `aud` the project, `sub` at most 128 characters, `auth_time`, the tenant when one
/// is expected, the emulator's unsigned tokens when (only when) one is configured, and the
/// optional revocation check. The two verifiers differ in issuer base, key URL and codes.
struct FirebaseJWTCheck: Sendable {
    /// What the token is called in messages (`ID token`, `session cookie`).
    let name: String
    let projectID: String
    let verifier: IDTokenVerifier
    let emulator: FirebaseEmulator?
    let userLookup: (@Sendable (String) async throws -> FirebaseUserState?)?
    let expiredCode: FederateError.Code
    let revokedCode: FederateError.Code

    init(
        name: String, projectID: String?, clockTolerance: Duration, keys: (any KeySetProvider)?, httpClient: (any HTTPClient)?,
        certificatesURL: String, issuerBase: String, tenants: IdentifierSet?, emulator: FirebaseEmulator?,
        userLookup: (@Sendable (String) async throws -> FirebaseUserState?)?, clock: FederateClock, observability: Observability,
        expiredCode: FederateError.Code, revokedCode: FederateError.Code
    ) throws(FederateError) {
        guard let projectID, !projectID.isEmpty else {
            throw FederateError(
                .projectIDMissing, "no Firebase project ID: pass one, or set it in the service-account JSON or GOOGLE_CLOUD_PROJECT")
        }
        guard (.zero...FirebaseIDTokenVerifier.maximumClockTolerance).contains(clockTolerance) else {
            throw FederateError(.invalidConfiguration, "the clock tolerance is 0 to 300 seconds")
        }
        var rules: ClaimRules = []
        if let tenants { rules.append(try FirebaseTenantRule(tenants)) }
        // The emulator needs no keys: it signs nothing (and signed tokens are refused in its mode).
        let provider: any KeySetProvider =
            emulator != nil && keys == nil && httpClient == nil
            ? JSONWebKeySet.empty
            : try RemoteKeySet.keys(
                keys, orFetch: certificatesURL, format: .x509Map, over: httpClient, clock: clock, observability: observability)
        self.name = name
        self.projectID = projectID
        self.emulator = emulator
        self.userLookup = userLookup
        self.expiredCode = expiredCode
        self.revokedCode = revokedCode
        // A Firebase token must name its key (`kid`): the verifier refuses one that does not.
        self.verifier = IDTokenVerifier(
            policy: IDTokenPolicy(
                issuers: [issuerBase + projectID], audiences: [projectID], allowedAlgorithms: [.rs256],
                clockTolerance: clockTolerance, requiredClaims: ["auth_time"], additionalRules: rules),
            keys: provider, clock: clock, observability: observability, requiresKeyID: true)
    }

    /// Verifies `token`, and the user's state with `checkRevoked`.
    nonisolated(nonsending) func verify(_ token: String, checkRevoked: Bool) async throws(FederateError) -> FirebaseToken {
        let verified: FirebaseToken
        do throws(FederateError) {
            verified = try await verifySignedOrEmulated(token)
        } catch  where error.code == .tokenExpired {
            throw FederateError(expiredCode, "the Firebase \(name) has expired: get a fresh one from the client SDK")
        }
        // The Admin SDKs count JavaScript characters (UTF-16 code units).
        guard verified.uid.utf16.count <= 128 else { throw FederateError(.invalidClaim, "'sub' exceeds 128 characters") }
        if checkRevoked { try await checkRevocation(of: verified) }
        return verified
    }

    private nonisolated(nonsending) func verifySignedOrEmulated(_ token: String) async throws(FederateError) -> FirebaseToken {
        if let emulator {
            let policy = verifier.policy
            let claims = try emulator.verify(
                token, rules: policy.rules(for: IDTokenExpectations()), limits: policy.limits, clock: verifier.clock,
                clockTolerance: policy.clockTolerance)
            return FirebaseToken(emulatedClaims: claims)
        }
        return FirebaseToken(idToken: try await verifier.verify(token))
    }

    private func checkRevocation(of token: FirebaseToken) async throws(FederateError) {
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
            throw FederateError(revokedCode, "the user's tokens were revoked after this sign-in")
        }
    }
}
