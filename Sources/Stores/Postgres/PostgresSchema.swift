/// The schema, as numbered migrations, with table names qualified by the store's schema.
struct PostgresSchema: Sendable {
    let name: String

    var users: String { "\"\(name)\".users" }
    var identities: String { "\"\(name)\".identities" }
    var revokedSessions: String { "\"\(name)\".revoked_sessions" }
    var sessionKeys: String { "\"\(name)\".session_keys" }
    var endedSessions: String { "\"\(name)\".ended_sessions" }
    var seenEvents: String { "\"\(name)\".seen_events" }
    var revocationEpoch: String { "\"\(name)\".revocation_epoch" }
    var providerTokens: String { "\"\(name)\".provider_tokens" }
    var merges: String { "\"\(name)\".merges" }
    var passkeys: String { "\"\(name)\".passkeys" }
    var versions: String { "\"\(name)\".federate_schema" }
    /// The tables each migration creates, in the migrations' order: those of every migration
    /// the version record says ran must exist, before the next run and after.
    var tablesByMigration: [[String]] {
        [
            [users, identities, revokedSessions, sessionKeys], [], [endedSessions, seenEvents], [revocationEpoch],
            [providerTokens, merges], [passkeys],
        ]
    }

    /// Whether `name` is a plain lower-case identifier (it is spliced into SQL).
    static func isValid(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 63,
            first == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first)
        else {
            return false
        }
        return name.utf8.allSatisfy {
            $0 == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
        }
    }

    var migrations: [[String]] {
        [
            [
                """
                CREATE TABLE \(users) (
                    uid text PRIMARY KEY,
                    email text,
                    email_normalized text,
                    email_verified boolean NOT NULL DEFAULT false,
                    display_name text,
                    photo_url text,
                    disabled boolean NOT NULL DEFAULT false,
                    created_at double precision NOT NULL,
                    last_sign_in_at double precision,
                    tokens_valid_after double precision
                )
                """,
                "CREATE INDEX users_email ON \(users) (email_normalized)",
                """
                CREATE TABLE \(identities) (
                    id bigserial PRIMARY KEY,
                    user_uid text NOT NULL REFERENCES \(users) (uid) ON DELETE CASCADE,
                    provider_id text NOT NULL,
                    subject text NOT NULL,
                    email text,
                    email_verified boolean NOT NULL DEFAULT false,
                    display_name text,
                    photo_url text,
                    username text,
                    linked_at double precision NOT NULL,
                    access_token text,
                    refresh_token text,
                    CONSTRAINT identities_provider_subject UNIQUE (provider_id, subject),
                    CONSTRAINT identities_user_provider UNIQUE (user_uid, provider_id)
                )
                """,
                "CREATE TABLE \(revokedSessions) (sid text PRIMARY KEY, uid text NOT NULL, expires_at double precision NOT NULL)",
                "CREATE TABLE \(sessionKeys) (kid text PRIMARY KEY, private_key bytea NOT NULL, created_at double precision NOT NULL)",
            ],
            // 2: only verified emails count toward one account per email (`User.uniqueEmailKey`).
            ["UPDATE \(users) SET email_normalized = NULL WHERE NOT email_verified"],
            // 3: provider events: sessions ended by a provider (identity or provider session), event IDs seen.
            [
                "CREATE TABLE \(endedSessions) (key text PRIMARY KEY, valid_after double precision NOT NULL, expires_at double precision NOT NULL)",
                "CREATE TABLE \(seenEvents) (id text PRIMARY KEY, expires_at double precision NOT NULL)",
            ],
            // 4: the revocation epoch, advanced with every change that can end a session.
            [
                "CREATE TABLE \(revocationEpoch) (id integer PRIMARY KEY CHECK (id = 1), epoch bigint NOT NULL)",
                "INSERT INTO \(revocationEpoch) (id, epoch) VALUES (1, 0)",
            ],
            // 5: guests, kept provider tokens (sealed; one row per identity), merges whose
            // application hook has not finished; signed-out sessions found by user.
            [
                "ALTER TABLE \(users) ADD COLUMN guest boolean NOT NULL DEFAULT false",
                "CREATE INDEX users_guest_created ON \(users) (created_at) WHERE guest",
                """
                CREATE TABLE \(providerTokens) (
                    provider_id text NOT NULL,
                    subject text NOT NULL,
                    key_id text NOT NULL,
                    sealed bytea NOT NULL,
                    access_expires_at double precision,
                    version double precision NOT NULL,
                    needs_sign_in boolean NOT NULL DEFAULT false,
                    lease_id text,
                    lease_until double precision,
                    updated_at double precision NOT NULL,
                    PRIMARY KEY (provider_id, subject),
                    FOREIGN KEY (provider_id, subject) REFERENCES \(identities) (provider_id, subject) ON DELETE CASCADE
                )
                """,
                "CREATE INDEX provider_tokens_key ON \(providerTokens) (key_id)",
                "CREATE TABLE \(merges) (source_uid text PRIMARY KEY, target_uid text NOT NULL, merged_at double precision NOT NULL)",
                "CREATE INDEX merges_target ON \(merges) (target_uid)",
                "CREATE INDEX revoked_sessions_uid ON \(revokedSessions) (uid)",
            ],
            // 6: passkeys, one row per credential ID (its exact bytes), found by user.
            [
                """
                CREATE TABLE \(passkeys) (
                    credential_id bytea PRIMARY KEY,
                    user_uid text NOT NULL REFERENCES \(users) (uid) ON DELETE CASCADE,
                    public_key bytea NOT NULL,
                    algorithm double precision NOT NULL,
                    sign_count double precision NOT NULL,
                    backup_eligible boolean NOT NULL,
                    backup_state boolean NOT NULL,
                    transports text NOT NULL,
                    name text,
                    created_at double precision NOT NULL,
                    last_used_at double precision
                )
                """,
                "CREATE INDEX passkeys_user ON \(passkeys) (user_uid)",
            ],
        ]
    }

    var createUniqueEmail: String { "CREATE UNIQUE INDEX IF NOT EXISTS users_email_unique ON \(users) (email_normalized)" }
    var dropUniqueEmail: String { "DROP INDEX IF EXISTS \"\(name)\".users_email_unique" }
}
