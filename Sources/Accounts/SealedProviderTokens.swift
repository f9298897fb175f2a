package import Foundation

/// One identity's kept provider tokens as an ``AccountStore`` holds them: sealed with a key
/// of the vault's `SealingKeyRing` (the store never sees a token), with what coordinating
/// their refresh across server instances needs in the clear.
///
/// Secret: the `description` is redacted.
package struct SealedProviderTokens: Sendable, Hashable, CustomStringConvertible {
    /// The identity's provider ID.
    package var providerID: String
    /// The identity's subject at the provider.
    package var subject: String
    /// The ring key that sealed `sealed`.
    package var keyID: String
    /// AES-256-GCM nonce, ciphertext and tag of the access and refresh tokens.
    package var sealed: [UInt8]
    /// When the access token expires, if the provider said.
    package var accessTokenExpiresAt: Date?
    /// The compare-and-swap counter: every new set of tokens (`ProviderTokenStore.replaceKeptTokens(_:expectedVersion:)`,
    /// `ProviderTokenStore.finishTokenRefresh(_:leaseID:)`) makes it one more; re-encryption leaves it.
    package var version: Int64
    /// The provider refused the refresh token for good (`invalid_grant`): nothing is tried
    /// until the person signs in with the provider again.
    package var needsSignIn: Bool
    /// The instance refreshing these tokens now, if any, and until when.
    package var lease: RefreshLease?
    /// When the tokens last changed.
    package var updatedAt: Date

    /// Creates a record.
    package init(
        providerID: String, subject: String, keyID: String, sealed: [UInt8], accessTokenExpiresAt: Date?, version: Int64,
        needsSignIn: Bool = false,
        lease: RefreshLease? = nil, updatedAt: Date
    ) {
        self.providerID = providerID
        self.subject = subject
        self.keyID = keyID
        self.sealed = sealed
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.version = version
        self.needsSignIn = needsSignIn
        self.lease = lease
        self.updatedAt = updatedAt
    }

    /// Redacted.
    package var description: String {
        "SealedProviderTokens(provider: \(providerID), version: \(version), key: \(keyID), needsSignIn: \(needsSignIn), redacted)"
    }
}

/// Who refreshes an identity's kept tokens now: a random ID per refresh, and the instant the
/// lease ends, after which another instance may take over (the holder stopped).
package struct RefreshLease: Sendable, Hashable {
    /// The lease's random ID.
    package var id: String
    /// When it ends.
    package var until: Date

    /// Creates a lease.
    package init(id: String, until: Date) {
        self.id = id
        self.until = until
    }
}
