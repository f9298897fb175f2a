/// How many verified tokens a verifier remembers, so that a token presented again (an app's
/// bearer token, request after request) skips its signature check.
///
/// ``IDTokenVerifier`` and ``AccessTokenVerifier`` take one (`cache:`); ``default`` is on.
/// What a cache changes is the cost of a repeated token, never which tokens are accepted:
///
/// - an entry is the token's exact UTF-8 bytes (its signing input kept and compared byte for
///   byte, its signature by SHA-256 and never kept: two tokens that differ in one byte, even as
///   canonically equivalent Unicode, are two entries), in one verifier's own cache;
/// - a hit runs the verifier's claim rules again at the clock's current time (`exp`, `nbf`,
///   `iat`, `auth_time` with the verifier's tolerance, and any rule of your own; not the
///   built-in ones that read only the token's bytes), and counts only while the key
///   set the signature was checked with is still the current one: a rotation or any refresh of
///   the key set makes each cached token verify in full once more;
/// - a refusal is never cached; a DPoP proof is checked on every request (only the token's
///   verdict is remembered); introspected tokens keep their own cache (`IntrospectionCachePolicy`).
///
/// Bounded by ``maximumEntries`` and ``maximumBytes``; a token longer than
/// ``maximumTokenBytes`` is never cached. A new token enters a probationary part of the cache
/// and moves to its protected part only when presented a second time, so a flood of one-time
/// tokens evicts other one-time tokens, not the tokens in repeated use.
public struct VerifiedTokenCacheConfiguration: Sendable, Hashable {
    /// The most tokens remembered; `0` turns the cache off.
    public var maximumEntries: Int
    /// The most bytes the remembered tokens may take, each entry counted as twice its token's
    /// length (its signing input, then its parsed header and claims) plus ``entryOverheadBytes``.
    public var maximumBytes: Int
    /// The longest token remembered, in bytes; a longer one is verified in full every time.
    public var maximumTokenBytes: Int

    /// What each entry is counted as beyond twice its token's length (the signature's digest,
    /// links, the parsed claims' index).
    public static let entryOverheadBytes = 256

    /// A cache of at most `maximumEntries` tokens (`0`: off) taking at most `maximumBytes`,
    /// remembering tokens up to `maximumTokenBytes` long. Negative values count as `0`.
    public init(maximumEntries: Int = 10_000, maximumBytes: Int = 32 * 1024 * 1024, maximumTokenBytes: Int = 8 * 1024) {
        self.maximumEntries = max(0, maximumEntries)
        self.maximumBytes = max(0, maximumBytes)
        self.maximumTokenBytes = max(0, maximumTokenBytes)
    }

    /// On: 10,000 tokens, at most 32 MiB, tokens up to 8 KiB.
    public static var `default`: VerifiedTokenCacheConfiguration { VerifiedTokenCacheConfiguration() }

    /// Off: every token is verified in full every time.
    public static var disabled: VerifiedTokenCacheConfiguration { VerifiedTokenCacheConfiguration(maximumEntries: 0) }

    /// Whether anything can be remembered.
    public var isEnabled: Bool {
        maximumEntries > 0 && maximumTokenBytes > 0 && maximumBytes >= Self.entryOverheadBytes
    }
}
