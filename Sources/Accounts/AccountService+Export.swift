public import FederateTokens
import Foundation

extension AccountService {
    /// Everything the store holds about user `uid`, as one JSON object, for a data-access
    /// request (GDPR article 15) or a move to another system. Secrets are left out: provider
    /// tokens appear only as whether they are kept and when they expire, never their value, and
    /// session-signing keys are no one's data. `user_not_found` when absent. Its members:
    ///
    /// - `format`: `federate.account-export.v1`; `exported_at`;
    /// - `user`: `uid`, `email`, `email_verified`, `display_name`, `photo_url`, `disabled`,
    ///   `guest`, `created_at`, `last_sign_in_at`, `tokens_valid_after` (seconds since 1970);
    /// - `identities`: each `provider_id`, `subject`, `email`, `email_verified`, `display_name`,
    ///   `photo_url`, `username`, `linked_at`, and `kept_tokens` (`null`, or
    ///   `access_token_expires_at`, `needs_sign_in`, `updated_at`);
    /// - `signed_out_sessions`: `session_id`, `expires_at`;
    /// - `pending_merges`: merges into this user whose application hook has not run
    ///   (`source_uid`, `merged_at`);
    /// - `passkeys`: each `credential_id` (base64url), `algorithm` (COSE), `backup_eligible`,
    ///   `backup_state`, `transports`, `name`, `created_at`, `last_used_at`; never the public key.
    ///
    /// The erasure that goes with it is ``deleteUser(uid:)``.
    public func exportAccount(uid: String) async throws(FederateError) -> JSONValue {
        guard let records = try await storage.accountRecords(uid: uid) else { throw FederateError(.userNotFound, "no user with this uid") }
        let user = records.user
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        func time(_ date: Date?) -> JSONValue { date.map { .integer(Self.seconds($0)) } ?? .null }
        let identities: [JSONValue] = user.identities.map { identity in
            let kept = records.keptTokens.first {
                $0.providerID.exactlyEquals(identity.providerID) && $0.subject.exactlyEquals(identity.subject)
            }
            return [
                "provider_id": .string(identity.providerID), "subject": .string(identity.subject), "email": text(identity.email),
                "email_verified": .bool(identity.emailVerified), "display_name": text(identity.profile.displayName),
                "photo_url": text(identity.profile.photoURL), "username": text(identity.profile.username),
                "linked_at": time(identity.linkedAt),
                "kept_tokens": kept.map { kept -> JSONValue in
                    [
                        "access_token_expires_at": time(kept.accessTokenExpiresAt), "needs_sign_in": .bool(kept.needsSignIn),
                        "updated_at": time(kept.updatedAt),
                    ]
                } ?? .null,
            ]
        }
        return [
            "format": "federate.account-export.v1", "exported_at": time(clock.now),
            "user": [
                "uid": .string(user.uid), "email": text(user.email), "email_verified": .bool(user.emailVerified),
                "display_name": text(user.displayName), "photo_url": text(user.photoURL), "disabled": .bool(user.disabled),
                "guest": .bool(user.isGuest), "created_at": time(user.createdAt), "last_sign_in_at": time(user.lastSignInAt),
                "tokens_valid_after": time(user.tokensValidAfter),
            ],
            "identities": .array(identities),
            "signed_out_sessions": .array(
                records.signedOutSessions.map { ["session_id": .string($0.sessionID), "expires_at": time($0.expiresAt)] }),
            "pending_merges": .array(records.pendingMerges.map { ["source_uid": .string($0.sourceUID), "merged_at": time($0.mergedAt)] }),
            "passkeys": .array(
                records.passkeys.map { passkey -> JSONValue in
                    [
                        "credential_id": .string(Base64URL.encode(passkey.credentialID)), "algorithm": .integer(Int64(passkey.algorithm)),
                        "backup_eligible": .bool(passkey.backupEligible), "backup_state": .bool(passkey.backupState),
                        "transports": .array(passkey.transports.map(JSONValue.string)), "name": text(passkey.name),
                        "created_at": time(passkey.createdAt), "last_used_at": time(passkey.lastUsedAt),
                    ]
                }),
        ]
    }
}
