/// The schema, as numbered migrations. A migration never changes once released.
enum SQLiteSchema {
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE users (
                uid TEXT PRIMARY KEY NOT NULL,
                email TEXT,
                email_normalized TEXT,
                email_verified INTEGER NOT NULL DEFAULT 0,
                display_name TEXT,
                photo_url TEXT,
                disabled INTEGER NOT NULL DEFAULT 0,
                created_at REAL NOT NULL,
                last_sign_in_at REAL,
                tokens_valid_after REAL
            )
            """,
            "CREATE INDEX users_email ON users (email_normalized)",
            """
            CREATE TABLE identities (
                user_uid TEXT NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
                provider_id TEXT NOT NULL,
                subject TEXT NOT NULL,
                email TEXT,
                email_verified INTEGER NOT NULL DEFAULT 0,
                display_name TEXT,
                photo_url TEXT,
                username TEXT,
                linked_at REAL NOT NULL,
                access_token TEXT,
                refresh_token TEXT,
                CONSTRAINT identities_provider_subject UNIQUE (provider_id, subject),
                CONSTRAINT identities_user_provider UNIQUE (user_uid, provider_id)
            )
            """,
            "CREATE TABLE revoked_sessions (sid TEXT PRIMARY KEY NOT NULL, uid TEXT NOT NULL, expires_at REAL NOT NULL)",
            "CREATE TABLE session_keys (kid TEXT PRIMARY KEY NOT NULL, private_key BLOB NOT NULL, created_at REAL NOT NULL)",
        ],
        // 2: only verified emails count toward one account per email (`User.uniqueEmailKey`).
        ["UPDATE users SET email_normalized = NULL WHERE email_verified = 0"],
        // 3: provider events: sessions ended by a provider (identity or provider session), event IDs seen.
        [
            "CREATE TABLE ended_sessions (key TEXT PRIMARY KEY NOT NULL, valid_after REAL NOT NULL, expires_at REAL NOT NULL)",
            "CREATE TABLE seen_events (id TEXT PRIMARY KEY NOT NULL, expires_at REAL NOT NULL)",
        ],
        // 4: the revocation epoch, advanced with every change that can end a session.
        [
            "CREATE TABLE revocation_epoch (id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1), epoch INTEGER NOT NULL)",
            "INSERT INTO revocation_epoch (id, epoch) VALUES (1, 0)",
        ],
        // 5: guests, kept provider tokens (sealed; one row per identity), merges whose
        // application hook has not finished; signed-out sessions found by user.
        [
            "ALTER TABLE users ADD COLUMN guest INTEGER NOT NULL DEFAULT 0",
            "CREATE INDEX users_guest_created ON users (created_at) WHERE guest",
            """
            CREATE TABLE provider_tokens (
                provider_id TEXT NOT NULL,
                subject TEXT NOT NULL,
                key_id TEXT NOT NULL,
                sealed BLOB NOT NULL,
                access_expires_at REAL,
                version REAL NOT NULL,
                needs_sign_in INTEGER NOT NULL DEFAULT 0,
                lease_id TEXT,
                lease_until REAL,
                updated_at REAL NOT NULL,
                PRIMARY KEY (provider_id, subject),
                FOREIGN KEY (provider_id, subject) REFERENCES identities (provider_id, subject) ON DELETE CASCADE
            )
            """,
            "CREATE INDEX provider_tokens_key ON provider_tokens (key_id)",
            "CREATE TABLE merges (source_uid TEXT PRIMARY KEY NOT NULL, target_uid TEXT NOT NULL, merged_at REAL NOT NULL)",
            "CREATE INDEX merges_target ON merges (target_uid)",
            "CREATE INDEX revoked_sessions_uid ON revoked_sessions (uid)",
        ],
        // 6: passkeys, one row per credential ID (its exact bytes), found by user.
        [
            """
            CREATE TABLE passkeys (
                credential_id BLOB PRIMARY KEY NOT NULL,
                user_uid TEXT NOT NULL REFERENCES users (uid) ON DELETE CASCADE,
                public_key BLOB NOT NULL,
                algorithm REAL NOT NULL,
                sign_count REAL NOT NULL,
                backup_eligible INTEGER NOT NULL,
                backup_state INTEGER NOT NULL,
                transports TEXT NOT NULL,
                name TEXT,
                created_at REAL NOT NULL,
                last_used_at REAL
            )
            """,
            "CREATE INDEX passkeys_user ON passkeys (user_uid)",
        ],
    ]

    /// The tables each migration creates, in the migrations' order: those of every migration
    /// the version record says ran must exist, before the next run and after.
    static let tablesByMigration: [[String]] = [
        ["users", "identities", "revoked_sessions", "session_keys"], [], ["ended_sessions", "seen_events"], ["revocation_epoch"],
        ["provider_tokens", "merges"], ["passkeys"],
    ]

    /// The unique index that makes one email one account.
    static let createUniqueEmail = "CREATE UNIQUE INDEX IF NOT EXISTS users_email_unique ON users (email_normalized)"
    static let dropUniqueEmail = "DROP INDEX IF EXISTS users_email_unique"
}
