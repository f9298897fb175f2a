public import FederateTokens

extension AccountService {
    /// Merges two accounts that a ``link(_:with:)`` found to be one person's: the link's
    /// `credential_already_in_use` carries a merge ticket (``AccountErrorContext/mergeTicket``)
    /// naming the account that linked, the account that owns the credential's identity, and
    /// the identity. `session` is a session of the account that remains (the target, one of
    /// the two); the other (the source) is merged into it and deleted.
    ///
    /// What it requires:
    /// - the ticket, unexpired (`AccountServiceConfiguration.mergeTicketLifetime`): the
    ///   credential's proof was obtained that recently;
    /// - a recent sign-in on the target (``requireRecentLogin(_:within:)``; a guest's session never is);
    /// - when the source is the account that linked, that it is a guest: a guest's session is
    ///   all it has, while a full account would be given away on the strength of an old
    ///   session. Merge into the account that linked instead, after signing in there again.
    ///
    /// In one atomic step of the store (`UserStore.mergeUser(_:into:ifIdentity:subject:belongsTo:at:)`):
    /// the source's identities (with their kept tokens) move to the target, the source's
    /// sessions are revoked and the source is deleted. Then, just after the commit, the
    /// application's hook (`onMerge`) moves the application's data by `uid`; if it throws, the
    /// merge stands and this throws `merge_hook_failed`: ``resumePendingMerges()`` calls the
    /// hook again. Concurrent merges, links and deletions end with exactly one owner per
    /// identity: the loser gets `user_not_found` (an account is gone),
    /// `credential_already_in_use` (the identity moved) or `provider_already_linked` (both
    /// accounts have an identity of one provider: unlink one first).
    public func merge(ticket: String, into session: AccountSession) async throws(FederateError) -> AccountMerge {
        let now = clock.now
        let opened = try await mergeTickets.open(ticket, now: now)
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
                throw FederateError(.userNotFound, "the account to merge no longer exists")
            }
            guard linking.isGuest else {
                throw FederateError(
                    .requiresRecentLogin,
                    "only a guest is merged into the credential's account: merge the credential's account into this one, signed in here recently"
                )
            }
        }
        defer { revocations.invalidate() }
        let merge = try await storage.mergeUser(
            source, into: target, ifIdentity: opened.providerID, subject: opened.subject, belongsTo: opened.ownerUID, at: now)
        revocations.invalidate()
        try await finish(merge)
        return merge
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
