public import Foundation

/// How ``AccountService`` issues and judges sessions.
public struct AccountServiceConfiguration: Sendable {
    /// The `iss` of session tokens (and the only one accepted).
    public var issuer: String
    /// How long a session token is valid.
    public var sessionLifetime: TimeInterval
    /// The default window of ``AccountService/requireRecentLogin(_:within:)``: how old
    /// `auth_time` may be for a sensitive operation (Firebase does not publish its own).
    public var recentLoginWindow: TimeInterval
    /// After this age the signing key is replaced by a new one (old keys keep verifying
    /// until every token they signed has expired).
    public var keyRotationInterval: TimeInterval
    /// How long keys read from the store are cached before they are read again (another
    /// server instance may have rotated). An unknown `kid` always triggers a reread.
    public var keyCacheDuration: TimeInterval
    /// Tolerated clock skew for `iat` of session tokens issued by other server instances.
    public var clockTolerance: TimeInterval

    /// Creates a configuration.
    public init(
        issuer: String = "federate", sessionLifetime: TimeInterval = 24 * 3600, recentLoginWindow: TimeInterval = 300,
        keyRotationInterval: TimeInterval = 7 * 24 * 3600, keyCacheDuration: TimeInterval = 60, clockTolerance: TimeInterval = 5
    ) {
        self.issuer = issuer
        self.sessionLifetime = sessionLifetime
        self.recentLoginWindow = recentLoginWindow
        self.keyRotationInterval = keyRotationInterval
        self.keyCacheDuration = keyCacheDuration
        self.clockTolerance = clockTolerance
    }

    /// Sessions for a day, recent login within 5 minutes, keys rotated weekly.
    public static let standard = AccountServiceConfiguration()
}
