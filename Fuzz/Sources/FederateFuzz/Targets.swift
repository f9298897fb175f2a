import Crypto
import Federate
import FederateApple
import FederateGoogle
import Foundation

/// What each fuzz target feeds its input to, and the invariants it checks on the way.
enum Targets {
    /// Compact JWS parsing, then full ID-token verification against a fixed key set (RSA and
    /// EC keys) with every algorithm allowed and an HMAC secret configured. Nothing the fuzzer
    /// makes can carry a valid signature, so an accepted token is a bug.
    static func compactJWS(_ bytes: [UInt8]) {
        let token = String(decoding: bytes, as: UTF8.self)
        guard let jws = try? CompactJWS(parsing: token) else { return }
        // Parsing is canonical: the signing input is exactly the first two segments.
        precondition(token.utf8.starts(with: jws.signingInput), "signing input is not the token's prefix")
        if let verified = synchronously({ try? await Fixtures.verifier.verify(token, expecting: Fixtures.expectations) }) {
            // Only the seed tokens Fixtures signed itself can verify.
            precondition(Fixtures.signedTokens.contains(token), "a token the fixtures never signed verified: \(verified)")
        }
    }

    /// JWKS documents: whatever the set keeps must be usable and its kids unique.
    static func keySet(_ bytes: [UInt8]) {
        guard let set = try? JSONWebKeySet(jwks: bytes) else { return }
        var seen = Set<String>()
        for key in set.keys {
            if let id = key.keyID { precondition(seen.insert(id).inserted, "duplicate kid kept: \(id)") }
        }
    }

    /// Google's x509 certificate maps.
    static func x509Map(_ bytes: [UInt8]) {
        _ = try? JSONWebKeySet(x509Map: bytes)
    }

    /// Discovery documents, validated for a fixed issuer: an accepted document declares it.
    static func discovery(_ bytes: [UInt8]) {
        guard let metadata = try? ProviderMetadata(document: bytes, expectedIssuer: Fixtures.issuer) else { return }
        precondition(metadata.issuer == Fixtures.issuer, "accepted a document for another issuer")
    }

    /// Token-endpoint responses: an accepted one has a Bearer or DPoP access token (never `N_A`
    /// outside a token exchange).
    static func tokenResponse(_ bytes: [UInt8]) {
        guard let response = try? TokenResponse(parsing: bytes) else { return }
        let type = response.tokenType.lowercased()
        precondition(!response.accessToken.isEmpty && (type == "bearer" || type == "dpop"))
        // Redaction: the description must not depend on the secrets. (Checking that it does not
        // contain the token is not enough: a token may equal `token_type`, "Bearer", and
        // legitimately appear there; the 10-million-input pass found one.)
        var swapped = response.members
        for secret in ["access_token", "refresh_token", "id_token"] where swapped[secret] != nil {
            swapped[secret] = .string("swapped-secret-value")
        }
        if let other = try? TokenResponse(members: swapped) {
            precondition("\(response)" == "\(other)", "description depends on a token")
        }
    }

    /// Callback parsing (query, fragment, form_post body) and validation against a fixed
    /// pending authorization: only the right state can yield a code.
    static func callback(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        var responses: [AuthorizationResponse] = []
        if let query = try? AuthorizationResponse(query: text) { responses.append(query) }
        if let fragment = try? AuthorizationResponse(fragment: text) { responses.append(fragment) }
        if let form = try? AuthorizationResponse(formBody: bytes) { responses.append(form) }
        if let url = try? AuthorizationResponse(redirectURL: text) { responses.append(url) }
        for response in responses {
            if (try? response.validate(against: Fixtures.pending, metadata: Fixtures.metadata, now: Fixtures.now)) != nil {
                precondition(response.parameters["state"] == Fixtures.pending.state, "a code was accepted with another state")
            }
        }
    }

    /// Sealed pending-authorization cookies: only values sealed with the fixture key open.
    static func sealedPending(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let opened = try? Fixtures.sealer.open(text, now: Fixtures.now) {
            precondition(Fixtures.sealedValues.contains(text), "opened a value the fixtures never sealed: \(opened)")
        }
    }

    /// Apple's one-time `user` JSON, alone and inside a `form_post` callback body.
    static func appleUser(_ bytes: [UInt8]) {
        if let user = try? AppleUser(json: String(decoding: bytes, as: UTF8.self)) {
            _ = user.displayName
        }
        _ = try? AppleCallback(formBody: bytes)
    }

    /// Apple notification claims (after signature verification, which the `jws` target covers):
    /// the `events` member is a JSON string decoded into a typed event.
    static func appleNotification(_ bytes: [UInt8]) {
        guard let claims = try? JSONParser().parseObject(bytes) else { return }
        if let note = try? AppleNotificationVerifier.decode(claims: JSONMembers(claims)) {
            precondition(!note.subject.isEmpty, "a notification without a subject was accepted")
        }
    }
}
