import Crypto
import FederateTokens
import Foundation

/// What a merge ticket says (``AccountErrorContext/mergeTicket``): the account that tried to
/// link a credential, the account that owns the credential's identity, that identity, and
/// when the credential's proof was obtained. Sealed (AES-256-GCM), so a client can neither
/// read the other account's uid nor change anything, and short-lived
/// (`AccountServiceConfiguration.mergeTicketLifetime`).
struct MergeTicket: Sendable, Equatable {
    let linkingUID: String
    let ownerUID: String
    let providerID: String
    let subject: String
    let issuedAt: Int64
    let expiresAt: Int64
}

/// Seals and opens merge tickets with keys derived from the store's session-signing keys, so
/// every instance on the store opens a ticket any of them sealed, with nothing to configure.
///
/// Format: `mt1.<kid>.<base64url(nonce || ciphertext || tag)>`, with `mt1.<kid>` authenticated.
struct MergeTickets: Sendable {
    let keyRing: SessionKeyRing
    static let maxBytes = 4096

    func seal(_ ticket: MergeTicket, now: Date) async throws(FederateError) -> String {
        let (keyID, key) = try await keyRing.ticketSealingKey(now: now)
        let header = "mt1.\(keyID)"
        let payload: JSONValue = [
            "l": .string(ticket.linkingUID), "o": .string(ticket.ownerUID), "p": .string(ticket.providerID), "s": .string(ticket.subject),
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
        guard parts.count == 3, parts[0].utf8.elementsEqual("mt1".utf8), !parts[1].isEmpty, let combined = Base64URL.decode(parts[2]),
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
            plaintext = try AES.GCM.open(try AES.GCM.SealedBox(combined: combined), using: key, authenticating: Array("mt1.\(keyID)".utf8))
        } catch {
            throw FederateError(.invalidMergeTicket, "the merge ticket does not authenticate")
        }
        guard let members = try? JSONParser(limits: .init(maxBytes: Self.maxBytes, maxDepth: 2)).parseObject(plaintext),
            let linking = members["l"]?.stringValue, let owner = members["o"]?.stringValue, let providerID = members["p"]?.stringValue,
            let subject = members["s"]?.stringValue, let issuedAt = members["iat"]?.int64Value, let expiresAt = members["exp"]?.int64Value
        else { throw FederateError(.invalidMergeTicket, "the merge ticket is malformed") }
        guard Double(expiresAt) > now.timeIntervalSince1970 else {
            throw FederateError(.invalidMergeTicket, "the merge ticket expired: link the credential again")
        }
        return MergeTicket(
            linkingUID: linking, ownerUID: owner, providerID: providerID, subject: subject, issuedAt: issuedAt, expiresAt: expiresAt)
    }
}
