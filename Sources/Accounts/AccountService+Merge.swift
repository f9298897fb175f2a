public import FederateTokens
import Foundation

extension AccountService {
    /// Merges two accounts that a ``link(_:with:authenticatedAfter:session:)`` found to be one
    /// person's: the link's `credential_already_in_use` carries a merge ticket
    /// (``AccountErrorContext/mergeTicket``) naming the account that linked, the account that
    /// owns the credential's identity, and the identity. `session` is a session of the account
    /// that remains (the target, one of the two); the other (the source) is merged into it and
    /// deleted.
    ///
    /// What it requires, each refusal with its own code:
    /// - the ticket, unexpired (`AccountServiceConfiguration.mergeTicketLifetime`), not used
    ///   before on any instance, and issued to this very session (``moveMergeTicket(_:from:to:)``
    ///   carries it to the session of a sign-in in the same browser): else `invalid_merge_ticket`;
    /// - a recent sign-in on the target (``requireRecentLogin(_:within:)``; a guest's session
    ///   never is): `requires_recent_login`;
    /// - when the source is the account that linked, that it is a guest
    ///   (`merge_source_not_guest`): a guest's session is all it has, while a full account would
    ///   be given away on the strength of an old session. Merge the other way instead;
    /// - when the source is the credential's owner (a full account), that the link's credential
    ///   proved a sign-in at the provider during the link's flow
    ///   (`merge_requires_fresh_sign_in`): the merge absorbs a whole account, so it needs what
    ///   deleting that account would. An OAuth 2.0 provider without ID tokens never proves one.
    ///
    /// In one atomic step of the store (`UserStore.mergeUser(_:into:ifIdentity:subject:belongsTo:at:)`):
    /// the source's identities (with their kept tokens) move to the target, the source's
    /// sessions are revoked and the source is deleted. Then, just after the commit, the
    /// application's hook (`onMerge`) moves the application's data by `uid`; if it throws, the
    /// merge stands and this throws `merge_hook_failed`: ``resumePendingMerges()`` calls the
    /// hook again. Concurrent merges, links and deletions end with exactly one owner per
    /// identity: the loser gets `invalid_merge_ticket` (the ticket was used, or an account it
    /// names is gone), `credential_already_in_use` (the identity moved) or
    /// `provider_already_linked` (both accounts have an identity of one provider: unlink one first).
    public func merge(ticket: String, into session: AccountSession) async throws(FederateError) -> AccountMerge {
        let now = clock.now
        let opened = try await mergeTickets.open(ticket, now: now)
        guard !opened.sessionID.isEmpty, ConstantTime.equals(opened.sessionID, session.sessionID) else {
            throw FederateError(.invalidMergeTicket, "the merge ticket was issued to another session: link the credential again")
        }
        let target = session.uid
        let source: String
        if opened.linkingUID.exactlyEquals(target) {
            source = opened.ownerUID
        } else if opened.ownerUID.exactlyEquals(target) {
            source = opened.linkingUID
        } else {
            throw FederateError(.invalidMergeTicket, "the merge ticket does not name this account")
        }
        try requireRecentLogin(session)
        if source.exactlyEquals(opened.linkingUID) {
            guard let linking = try await storage.user(uid: source) else {
                throw FederateError(.invalidMergeTicket, "the account to merge no longer exists")
            }
            guard linking.isGuest else {
                throw FederateError(
                    .mergeSourceNotGuest,
                    "only a guest is merged into the credential's account: merge the credential's account into the one that linked instead"
                )
            }
        } else if !opened.provesFreshSignIn {
            throw FederateError(
                .mergeRequiresFreshSignIn,
                "the link's credential did not prove a sign-in at \(opened.providerID) during the link: link again and sign in there")
        }
        // Single use on every instance: the ticket's ID is consumed through the store first.
        guard
            try await storage.consumeEventID(
                "merge " + opened.id, expiresAt: Date(timeIntervalSince1970: Double(opened.expiresAt)), now: now)
        else {
            throw FederateError(.invalidMergeTicket, "the merge ticket was used already")
        }
        defer { revocations.invalidate() }
        let merge: AccountMerge
        do throws(FederateError) {
            merge = try await storage.mergeUser(
                source, into: target, ifIdentity: opened.providerID, subject: opened.subject, belongsTo: opened.ownerUID, at: now)
        } catch  where error.code == .userNotFound {
            throw FederateError(.invalidMergeTicket, "an account the merge ticket names no longer exists", cause: error)
        }
        revocations.invalidate()
        try await finish(merge)
        return merge
    }

    /// The merge ticket `ticket`, issued to `old`, issued to `new` instead: a browser that
    /// holds a ticket and signs in (a guest that signs in with the identity it tried to link)
    /// or reauthenticates takes its ticket to its new session. `nil` when the ticket does not
    /// open, has expired, or was not issued to `old`. FederateServer's callback does this.
    public func moveMergeTicket(_ ticket: String, from old: AccountSession, to new: AccountSession) async -> String? {
        let now = clock.now
        guard let opened = try? await mergeTickets.open(ticket, now: now), !opened.sessionID.isEmpty,
            ConstantTime.equals(opened.sessionID, old.sessionID)
        else { return nil }
        return try? await mergeTickets.seal(opened.moved(to: new.sessionID), now: now)
    }

    /// Runs the application's merge hook again for every merge it has not finished (it threw,
    /// or the process stopped first), oldest first; returns how many it finished. Call it when
    /// the application starts, or after `merge_hook_failed`.
    @discardableResult
    public func resumePendingMerges() async throws(FederateError) -> Int {
        var finished = 0
        for merge in try await storage.pendingMerges() {
            try await finish(merge)
            finished += 1
        }
        return finished
    }

    /// Calls the hook for `merge`, then forgets it.
    private func finish(_ merge: AccountMerge) async throws(FederateError) {
        if let mergeHook {
            do {
                try await mergeHook(merge)
            } catch {
                throw FederateError(
                    .mergeHookFailed,
                    "the accounts were merged, but the application's merge hook failed: resumePendingMerges() runs it again",
                    cause: error)
            }
        }
        try await storage.finishMerge(sourceUID: merge.sourceUID)
    }
}
