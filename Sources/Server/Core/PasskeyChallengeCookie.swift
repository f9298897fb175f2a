import Federate
import Foundation

/// The challenge of a passkey ceremony in progress, kept in this browser only: sealed
/// (AES-256-GCM, the server's sealing keys, purpose `passkey1`) in an HttpOnly,
/// `SameSite=Strict` cookie for the challenge's lifetime, and bound to the session that asked
/// for it (none for a sign-in). One ceremony per browser at a time; the challenge itself is
/// single use on every instance (consumed through the account store).
struct PasskeyChallengeCookie: Sendable {
    /// The challenge, as issued.
    let challenge: WebAuthnChallenge
    /// The ID of the session the options were issued to; `nil` for a sign-in.
    let sessionID: String?

    static let purpose = "passkey1"

    static func name(secure: Bool) -> String { secure ? "__Host-federate_passkey" : "federate_passkey" }

    /// The `Set-Cookie` keeping it.
    func cookie(sealer: PendingAuthorizationSealer, now: Date, secure: Bool) throws(FederateError) -> SetCookie {
        var kept: [String: JSONValue] = [
            "c": .string(Base64URL.encode(challenge.bytes)), "k": .string(challenge.ceremony.rawValue),
            "ia": .double(challenge.issuedAt.timeIntervalSince1970), "ea": .double(challenge.expiresAt.timeIntervalSince1970),
            "uv": .string(challenge.userVerification.rawValue),
        ]
        if let handle = challenge.userHandle { kept["uh"] = .string(Base64URL.encode(handle)) }
        if let sessionID { kept["sid"] = .string(sessionID) }
        let maxAge = max(1, Int(challenge.expiresAt.timeIntervalSince(now).rounded(.up)))
        return SetCookie(
            name: Self.name(secure: secure), value: try sealer.seal(.object(kept), purpose: Self.purpose), maxAge: maxAge, path: "/",
            secure: secure, httpOnly: true, sameSite: .strict)
    }

    /// Deletes the cookie.
    static func deleting(secure: Bool) -> SetCookie {
        SetCookie(name: name(secure: secure), value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }

    /// The challenge this browser keeps for `ceremony`, issued to `session` (`nil`: a sign-in).
    /// `webauthn_challenge_mismatch` when there is none, it does not open, or it was issued for
    /// another ceremony or session; its expiry is the relying party's to check.
    static func open(
        _ request: ServerRequest, sealer: PendingAuthorizationSealer, secure: Bool, ceremony: WebAuthnCeremony, session: AccountSession?
    ) throws(FederateError) -> WebAuthnChallenge {
        let mismatch = FederateError(.webauthnChallengeMismatch, "no passkey ceremony of this kind is in progress in this browser")
        guard let sealed = request.cookie(name(secure: secure)), let kept = try? sealer.open(sealed, purpose: purpose),
            case .string(let encoded)? = kept["c"], let bytes = Base64URL.decode(encoded),
            case .string(let kind)? = kept["k"], kind.utf8.elementsEqual(ceremony.rawValue.utf8),
            let issuedAt = kept["ia"]?.doubleValue, let expiresAt = kept["ea"]?.doubleValue,
            case .string(let verification)? = kept["uv"], let userVerification = WebAuthnUserVerification(rawValue: verification)
        else { throw mismatch }
        var issuedTo: String?
        if case .string(let sid)? = kept["sid"] { issuedTo = sid }
        switch (issuedTo, session) {
        case (nil, nil): break
        case (let sid?, let session?) where sid.utf8.elementsEqual(session.sessionID.utf8): break
        default: throw mismatch
        }
        var userHandle: [UInt8]?
        if case .string(let handle)? = kept["uh"] {
            guard let decoded = Base64URL.decode(handle) else { throw mismatch }
            userHandle = decoded
        }
        return WebAuthnChallenge(
            bytes: bytes, ceremony: ceremony, issuedAt: Date(timeIntervalSince1970: issuedAt),
            expiresAt: Date(timeIntervalSince1970: expiresAt), userVerification: userVerification, userHandle: userHandle)
    }
}
