public import FederateTokens
import Foundation

extension AccountService {
    /// A valid access token of user `uid`'s identity at `providerID`, from the tokens kept for
    /// it (``ProviderTokenVault``), to call the provider's API on the user's behalf.
    ///
    /// While the kept access token has more than `ProviderTokenVault.refreshLeeway` left it
    /// is returned as it is: one store read, nothing sent to the provider (a token whose expiry
    /// the provider did not say is returned until a sign-in replaces it). Otherwise it is
    /// refreshed, once, however many callers and server instances ask at the same moment: the
    /// callers of one process share one refresh, and between processes the store's lease
    /// decides (`ProviderTokenStore.claimTokenRefresh(providerID:subject:version:lease:now:)`,
    /// a compare-and-swap); the others wait for its outcome and read it. The new tokens —
    /// above all a rotated refresh token — are stored before the access token is returned to
    /// anyone, and a refresh runs to its end even if its caller is cancelled.
    ///
    /// Throws `provider_sign_in_required` when no tokens are kept for the identity, or the
    /// provider refused the refresh token (`invalid_grant`: the identity is marked, and nothing
    /// is sent to the provider again until the person signs in with it); `no_such_provider`
    /// when the user has no identity of `providerID`; `user_not_found`, `user_disabled`;
    /// `invalid_configuration` when the service keeps no tokens of `providerID`; the
    /// provider's error when a refresh failed otherwise (the next call tries again).
    public func accessToken(for uid: String, providerID: String) async throws(FederateError) -> String {
        guard let vault = providerTokens, vault.provider(providerID) != nil else {
            throw FederateError(.invalidConfiguration, "the account service keeps no tokens of \(providerID)")
        }
        guard let record = try await storage.keptTokens(uid: uid, providerID: providerID) else {
            throw try await noKeptTokens(uid: uid, providerID: providerID)
        }
        if let token = try usableAccessToken(record, vault: vault, now: clock.now) { return token }
        let key = "\(record.providerID.utf8.count):\(record.providerID)\(record.subject)"
        return try await vault.flights.run(key) { () async throws(FederateError) -> String in
            try await refreshKeptTokens(uid: uid, providerID: providerID, from: record, vault: vault)
        }
    }

    /// Re-seals with the ring's current key up to `batchSize` records sealed with an older
    /// key; returns how many it re-sealed. After adding a new key first in the vault's
    /// `SealingKeyRing`, call it until it returns 0, then remove the old keys. A record being
    /// refreshed meanwhile is left for the next call (the refresh seals with the new key).
    @discardableResult
    public func reencryptProviderTokens(batchSize: Int = 500) async throws(FederateError) -> Int {
        guard let vault = providerTokens else { return 0 }
        var resealed = 0
        for record in try await storage.keptTokens(notSealedWith: vault.keys.currentKeyID, limit: batchSize) {
            let tokens = try vault.keys.open(record)
            var next = try vault.seal(
                tokens, providerID: record.providerID, subject: record.subject, version: record.version, now: record.updatedAt)
            next.accessTokenExpiresAt = record.accessTokenExpiresAt
            if try await storage.resealKeptTokens(next, previousKeyID: record.keyID, now: clock.now) { resealed += 1 }
        }
        return resealed
    }

    /// Upgrading a store written by Federate 0.1, which kept the tokens of providers not kept
    /// for use in the clear on the identity's row: seals up to `batchSize` of those rows' tokens
    /// into their identity's record and clears the rows (without a vault, which stores no
    /// provider tokens, it only clears them); returns how many rows it changed. Call it until it
    /// returns 0 (`federate serve` does at start). It never opens a sealed record, so a key
    /// missing from the ring cannot stop it.
    @discardableResult
    public func sealPlaintextProviderTokens(batchSize: Int = 500) async throws(FederateError) -> Int {
        let plaintext = try await storage.plaintextProviderTokens(limit: batchSize)
        guard !plaintext.isEmpty else { return 0 }
        let sealed = try providerTokens.map { (vault) throws(FederateError) in
            try plaintext.map { (entry) throws(FederateError) in
                try vault.seal(entry.tokens, providerID: entry.providerID, subject: entry.subject, version: 1, now: clock.now)
            }
        }
        try await storage.clearPlaintextTokens(of: plaintext, keeping: sealed ?? [])
        return plaintext.count
    }

    // MARK: Internals

    /// Keeps `credential`'s tokens for user `uid`, sealed, when the service has a vault: a new
    /// refresh token replaces the kept one; without one (Google sends it on the first consent
    /// only), the kept one stays, or, before any is sealed, the one a 0.1 store kept in the
    /// clear on the identity's row (`legacy`). Compare-and-swap on the record's version, so a
    /// refresh running meanwhile is never overwritten with an older refresh token.
    func keepTokens(of credential: Credential, uid: String, replacing legacy: ProviderTokens? = nil) async throws(FederateError) {
        guard let vault = providerTokens, !credential.tokens.isEmpty else { return }
        for _ in 0..<4 {
            let stored = try await storage.keptTokens(uid: uid, providerID: credential.providerID)
            var tokens = credential.tokens
            if tokens.refreshToken == nil, let stored, stored.subject.exactlyEquals(credential.subject), !stored.needsSignIn {
                tokens.refreshToken = try? vault.keys.open(stored).refreshToken
            } else if tokens.refreshToken == nil, stored == nil {
                tokens.refreshToken = legacy?.refreshToken
            }
            let sealed = try vault.seal(tokens, providerID: credential.providerID, subject: credential.subject, version: 0, now: clock.now)
            let expected = stored.flatMap { $0.subject.exactlyEquals(credential.subject) ? $0.version : nil }
            if try await storage.replaceKeptTokens(sealed, expectedVersion: expected) { return }
        }
        throw FederateError(.storeUnavailable, "the kept provider tokens kept changing while being replaced; try again")
    }

    /// The access token of `record` when it is usable at `now`; `nil` when it must be refreshed.
    private func usableAccessToken(_ record: SealedProviderTokens, vault: ProviderTokenVault, now: Date) throws(FederateError) -> String? {
        guard !record.needsSignIn else {
            throw FederateError(.providerSignInRequired, "\(record.providerID) refused the kept refresh token: sign in with it again")
        }
        if let expiresAt = record.accessTokenExpiresAt, expiresAt.timeIntervalSince(now) <= vault.refreshLeeway.inSeconds { return nil }
        return try vault.keys.open(record).accessToken
    }

    /// Why nothing is kept for `uid` at `providerID`: the user or identity is missing, or no tokens are.
    private func noKeptTokens(uid: String, providerID: String) async throws(FederateError) -> FederateError {
        let user = try await activeUser(uid)
        guard user.identity(providerID: providerID) != nil else {
            return FederateError(.noSuchProvider, "the user has no \(providerID) identity")
        }
        return FederateError(.providerSignInRequired, "no \(providerID) tokens are kept for this user: sign in with it again")
    }

    /// Refreshes the identity's tokens unless another instance does (then waits for it), until
    /// a usable access token is stored.
    private func refreshKeptTokens(
        uid: String, providerID: String, from initial: SealedProviderTokens, vault: ProviderTokenVault
    ) async throws(FederateError) -> String {
        var record = initial
        var pause = Duration.milliseconds(5)
        // Another holder gets the lease's length, and a little more, before this gives up: the
        // waits add up to at least that much (counted in polls: a test's clock may stand still).
        var waited = Duration.zero
        let patience = vault.leaseDuration + .seconds(5)
        while true {
            let now = clock.now
            if let token = try usableAccessToken(record, vault: vault, now: now) { return token }
            if record.lease.map({ $0.until < now }) ?? true {
                let lease = RefreshLease(id: SecureRandom.token(byteCount: 16), until: now.adding(vault.leaseDuration))
                if try await storage.claimTokenRefresh(
                    providerID: record.providerID, subject: record.subject, version: record.version, lease: lease, now: now),
                    let token = try await refresh(record, holding: lease, vault: vault)
                {
                    return token
                }
            }
            guard waited < patience else {
                throw FederateError(.storeUnavailable, "another instance has been refreshing these provider tokens too long; try again")
            }
            try? await Task.sleep(for: pause)
            waited += pause
            pause = min(pause * 2, .milliseconds(100))
            guard let next = try await storage.keptTokens(uid: uid, providerID: providerID) else {
                throw try await noKeptTokens(uid: uid, providerID: providerID)
            }
            record = next
        }
    }

    /// The refresh itself, by the lease's holder: the provider's answer is stored (retrying a
    /// store that cannot answer now: the old refresh token may be spent) before the access
    /// token is returned. `nil` when the record changed meanwhile: read it again.
    private func refresh(
        _ record: SealedProviderTokens, holding lease: RefreshLease, vault: ProviderTokenVault
    ) async throws(FederateError) -> String? {
        let release = { (needsSignIn: Bool) async in
            try? await self.storage.releaseTokenRefresh(
                providerID: record.providerID, subject: record.subject, leaseID: lease.id, needsSignIn: needsSignIn)
        }
        let kept: ProviderTokens
        do throws(FederateError) { kept = try vault.keys.open(record) } catch {
            await release(false)
            throw error
        }
        guard let provider = vault.provider(record.providerID), let refresher = provider.capabilities.tokenRefresh,
            let refreshToken = kept.refreshToken
        else {
            await release(true)
            throw FederateError(
                .providerSignInRequired, "the kept \(record.providerID) access token expired and cannot be refreshed: sign in with it again"
            )
        }
        var fresh: ProviderTokens
        do throws(FederateError) {
            fresh = try await refresher.refreshTokens(refreshToken, subject: record.subject)
            metrics.providerTokens.increment("refresh", record.providerID, "ok")
        } catch  where error.code == .invalidGrant || error.code == .refreshedIDTokenMismatch {
            // Dead for good, or the provider answered for someone else: only a sign-in helps.
            metrics.providerTokens.increment("refresh", record.providerID, error.code.rawValue)
            await release(true)
            let refusal = error.code == .invalidGrant ? "refused the kept refresh token" : "refreshed the kept tokens for another subject"
            throw FederateError(.providerSignInRequired, "\(record.providerID) \(refusal): sign in with it again", cause: error)
        } catch {
            metrics.providerTokens.increment("refresh", record.providerID, error.code.rawValue)
            await release(false)
            throw error
        }
        let rotated = fresh.refreshToken.map { !$0.exactlyEquals(refreshToken) } ?? false
        if fresh.refreshToken == nil { fresh.refreshToken = refreshToken }
        guard let accessToken = fresh.accessToken else {
            await release(false)
            throw FederateError(.invalidTokenResponse, "the provider's refresh response has no access token")
        }
        let next = try vault.seal(fresh, providerID: record.providerID, subject: record.subject, version: record.version, now: clock.now)
        var pause = Duration.milliseconds(50)
        for attempt in 1...6 {
            do throws(FederateError) {
                if try await storage.finishTokenRefresh(next, leaseID: lease.id) { return accessToken }
                break
            } catch  where error.code == .storeUnavailable && attempt < 6 {
                try? await Task.sleep(for: pause)
                pause = pause * 2
            }
        }
        // The lease or the version moved on: a sign-in stored newer tokens, or the identity
        // was unlinked. These tokens are no one's: revoke a rotated refresh token (the one a
        // provider that keeps it still uses is left alone), and read what is stored.
        if rotated { try? await provider.revoke(ProviderTokens(refreshToken: fresh.refreshToken)) }
        return nil
    }

    /// Revokes sealed tokens at their provider (RFC 7009) after their identity was unlinked or
    /// its user deleted, when the provider's tokens are kept for use (the vault knows it); a
    /// failure is counted (`federate_provider_token_operations_total`), not thrown. Returns
    /// the tokens of the other providers, opened, for the caller to revoke.
    @discardableResult
    func revokeKept(_ records: [SealedProviderTokens]) async -> [RevocableTokens] {
        guard let vault = providerTokens else { return [] }
        var others: [RevocableTokens] = []
        for record in records {
            guard let tokens = try? vault.keys.open(record) else {
                metrics.providerTokens.increment("revoke", record.providerID, "unopenable")
                continue
            }
            guard let provider = vault.provider(record.providerID) else {
                others.append(RevocableTokens(providerID: record.providerID, subject: record.subject, tokens: tokens))
                continue
            }
            do throws(FederateError) {
                try await provider.revoke(tokens)
                metrics.providerTokens.increment("revoke", record.providerID, "ok")
            } catch {
                metrics.providerTokens.increment("revoke", record.providerID, error.code.rawValue)
            }
        }
        return others
    }
}
