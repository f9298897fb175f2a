import FederateTokens
public import Foundation

/// A user account: one person, with one or more linked provider identities.
public struct User: Sendable, Hashable, CustomStringConvertible {
    /// The stable user ID (random, URL-safe).
    public var uid: String
    /// The account's email, if known.
    public var email: String?
    /// Whether the email was verified by a provider.
    public var emailVerified: Bool
    /// The display name.
    public var displayName: String?
    /// A picture URL.
    public var photoURL: String?
    /// Whether the user is disabled (cannot sign in; sessions stop verifying).
    public var disabled: Bool
    /// When the account was created.
    public var createdAt: Date
    /// When the user last signed in or reauthenticated.
    public var lastSignInAt: Date?
    /// Sessions issued before this instant are revoked (``AccountService/revokeSessions(uid:)``).
    public var tokensValidAfter: Date?
    /// Whether this is a guest account (``AccountService/signInAsGuest()``): no provider
    /// identity yet, a lifetime of `AccountServiceConfiguration.guestLifetime` from
    /// ``createdAt``, and sessions too weak for sensitive operations. Linking a provider
    /// upgrades it in place: same `uid`, and it is a guest no more.
    public var isGuest: Bool
    /// The linked provider identities, in linking order.
    public var identities: [ProviderIdentity]

    /// Creates a user.
    package init(
        uid: String, email: String?, emailVerified: Bool, displayName: String?, photoURL: String?, disabled: Bool = false,
        createdAt: Date, lastSignInAt: Date?, tokensValidAfter: Date? = nil, isGuest: Bool = false, identities: [ProviderIdentity]
    ) {
        self.uid = uid
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.photoURL = photoURL
        self.disabled = disabled
        self.createdAt = createdAt
        self.lastSignInAt = lastSignInAt
        self.tokensValidAfter = tokensValidAfter
        self.isGuest = isGuest
        self.identities = identities
    }

    /// The provider IDs of the linked identities.
    public var providerIDs: [String] { identities.map(\.providerID) }

    /// The linked identity of `providerID`, if any.
    package func identity(providerID: String) -> ProviderIdentity? {
        identities.first { $0.providerID.exactlyEquals(providerID) }
    }

    /// The user once a returning sign-in with `latest` (the identity as a credential now
    /// describes it) is recorded at `date`: that identity's email and profile replace the
    /// stored ones; it keeps the date it was linked (and any tokens a 0.1 store left in the
    /// clear, until they are sealed); ``lastSignInAt`` becomes `date`. `nil`
    /// when the user has no identity with `latest`'s provider ID and subject.
    ///
    /// The rule every store's `UserStore.recordReturningSignIn(_:at:)` follows, written once.
    package func signedIn(with latest: ProviderIdentity, at date: Date) -> User? {
        guard let index = identityIndex(providerID: latest.providerID, subject: latest.subject) else { return nil }
        var identity = latest
        identity.linkedAt = identities[index].linkedAt
        identity.plaintextTokens = identities[index].plaintextTokens
        var user = self
        user.identities[index] = identity
        user.lastSignInAt = date
        return user
    }

    /// Where the identity (`providerID`, `subject`) is in ``identities``, compared byte for byte.
    func identityIndex(providerID: String, subject: String) -> Int? {
        identities.firstIndex { $0.providerID.exactlyEquals(providerID) && $0.subject.exactlyEquals(subject) }
    }

    /// No tokens; the email is left out of logs too.
    public var description: String {
        "User(uid: \(uid), providers: \(providerIDs), disabled: \(disabled)\(isGuest ? ", guest" : ""))"
    }

    /// What makes this user's email unique under one account per email: the normalized
    /// email when it is **verified**, else `nil`. An unverified email is a label the provider
    /// did not vouch for: it never blocks, joins or reveals another account, and a verified
    /// sign-in with the same address is not refused because of it. Every store indexes this.
    package var uniqueEmailKey: String? {
        guard emailVerified, let email else { return nil }
        return Self.normalizedEmail(email)
    }

    /// The form of an email used for uniqueness (one account per email), then compared byte
    /// for byte: ASCII spaces, tabs and line breaks trimmed, and the ASCII letters A–Z
    /// lower-cased — nothing else. Unicode case mapping is deliberately not applied: it folds
    /// look-alikes together (`"\u{212A}"`, KELVIN SIGN, lower-cases to `"k"`), which would let
    /// `\u{212A}evin@example.com` claim `kevin@example.com`'s account. Non-ASCII addresses keep
    /// their exact bytes.
    package static func normalizedEmail(_ email: String) -> String {
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        let bytes = email.utf8.drop(while: blank).reversed().drop(while: blank).reversed()
        return String(decoding: bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
