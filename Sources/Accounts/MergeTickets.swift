import Crypto
import FederateTokens
import Foundation

/// What a merge ticket says (``AccountErrorContext/mergeTicket``): the account that tried to
/// link a credential, the account that owns the credential's identity, that identity, when
/// the credential's proof was obtained, whether that proof was a sign-in during the link's
/// flow, and the session it was issued to. Sealed (AES-256-GCM), so a client can neither
/// read the other account's uid nor change anything, short-lived
/// (`AccountServiceConfiguration.mergeTicketLifetime`) and single use (its `id`).
struct MergeTicket: Sendable, Equatable {
    /// A random ID, consumed through the store when the ticket is used: single use on every instance.
    let id: String
    let linkingUID: String
    let ownerUID: String
    let providerID: String
    let subject: String
    /// Whether the credential proved a sign-in at the provider during the link's flow (the
    /// rule of ``AccountService/reauthenticate(_:with:authenticatedAfter:)``): only then may the
    /// owner, a full account, be absorbed.
    let provesFreshSignIn: Bool
    /// The session the ticket was issued to (`sid`); only that session uses it. Empty when the
    /// link was made without one: such a ticket merges nothing.
    let sessionID: String
    let issuedAt: Int64
    let expiresAt: Int64

    /// The same ticket, issued to session `sessionID` instead.
    func moved(to sessionID: String) -> MergeTicket {
        MergeTicket(
            id: id, linkingUID: linkingUID, ownerUID: ownerUID, providerID: providerID, subject: subject,
            provesFreshSignIn: provesFreshSignIn, sessionID: sessionID, issuedAt: issuedAt, expiresAt: expiresAt)
    }
}

/// Seals and opens merge tickets with keys derived from the store's session-signing keys, so
/// every instance on the store opens a ticket any of them sealed, with nothing to configure.
///
/// Format: `mt2.<kid>.<base64url(nonce || ciphertext || tag)>`, with `mt2.<kid>` authenticated.
/// (`mt1` tickets, which bound no session and proved no freshness, are refused.)
struct MergeTickets: Sendable {
    let keyRing: SessionKeyRing
    static let maxBytes = 4096

    func seal(_ ticket: MergeTicket, now: Date) async throws(FederateError) -> String {
        let (keyID, key) = try await keyRing.ticketSealingKey(now: now)
        let header = "mt2.\(keyID)"
        let payload: JSONValue = [
            "jti": .string(ticket.id), "l": .string(ticket.linkingUID), "o": .string(ticket.ownerUID), "p": .string(ticket.providerID),
            "s": .string(ticket.subject), "f": .bool(ticket.provesFreshSignIn), "sid": .string(ticket.sessionID),
            "iat": .integer(ticket.issuedAt), "exp": .integer(ticket.expiresAt),
        ]
        guard let box = try? AES.GCM.seal(JSONSerializer.bytes(payload), using: key, authenticating: Array(header.utf8)),
            let combined = box.combined
        else {
            throw FederateError(.accountStoreFailed, "sealing a merge ticket failed")
        }
        return header + "." + Base64URL.encode(Array(combined))
    }

    /// The ticket; `invalid_merge_ticket` for anything malformed, tampered, unknown or expired at `now`.
    func open(_ sealed: String, now: Date) async throws(FederateError) -> MergeTicket {
        guard sealed.utf8.count <= Self.maxBytes else { throw FederateError(.invalidMergeTicket, "the merge ticket is too large") }
        let parts = sealed.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].utf8.elementsEqual("mt2".utf8), !parts[1].isEmpty, let combined = Base64URL.decode(parts[2]),
            combined.count > 28
        else {
            throw FederateError(.invalidMergeTicket, "not a merge ticket")
        }
        let keyID = String(parts[1])
        guard let key = try await keyRing.ticketKey(keyID: keyID, now: now) else {
            throw FederateError(.invalidMergeTicket, "the merge ticket was sealed with a key this service does not have")
        }
        let plaintext: Data
        do {
            plaintext = try AES.GCM.open(try AES.GCM.SealedBox(combined: combined), using: key, authenticating: Array("mt2.\(keyID)".utf8))
        } catch {
            throw FederateError(.invalidMergeTicket, "the merge ticket does not authenticate")
        }
        guard let members = try? JSONParser(limits: .init(maxBytes: Self.maxBytes, maxDepth: 2)).parseObject(plaintext),
            let id = members["jti"]?.stringValue, let linking = members["l"]?.stringValue, let owner = members["o"]?.stringValue,
            let providerID = members["p"]?.stringValue, let subject = members["s"]?.stringValue,
            case .bool(let fresh)? = members["f"], let sessionID = members["sid"]?.stringValue,
            let issuedAt = members["iat"]?.int64Value, let expiresAt = members["exp"]?.int64Value
        else { throw FederateError(.invalidMergeTicket, "the merge ticket is malformed") }
        guard Double(expiresAt) > now.timeIntervalSince1970 else {
            throw FederateError(.invalidMergeTicket, "the merge ticket expired: link the credential again")
        }
        return MergeTicket(
            id: id, linkingUID: linking, ownerUID: owner, providerID: providerID, subject: subject, provesFreshSignIn: fresh,
            sessionID: sessionID, issuedAt: issuedAt, expiresAt: expiresAt)
    }
}
