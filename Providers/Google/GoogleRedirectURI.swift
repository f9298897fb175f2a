public import FederateTokens

/// A redirect URI for Google's installed-app (desktop and mobile) flow, validated by Google's
/// rules before any request is sent.
///
/// - Loopback: `http://127.0.0.1:PORT[/path]` or `http://[::1]:PORT[/path]` (any port, chosen
///   at run time; `localhost` is refused, RFC 8252 §8.3).
/// - Custom scheme: `SCHEME:/path` or `SCHEME:` where the scheme is the reverse DNS of a
///   domain (it must contain a period) or `com.googleusercontent.apps.<id>` derived from the
///   client ID; a path, if any, starts with exactly one slash. UWP apps' schemes are at most
///   39 characters.
public struct GoogleRedirectURI: Sendable, Hashable {
    /// Which kind of redirect URI.
    package enum Kind: Sendable, Hashable {
        /// A loopback listener on the user's machine.
        case loopback(port: Int)
        /// A custom URI scheme the app registered.
        case customScheme(String)
    }

    /// The URI as sent.
    public let uri: String
    /// Its kind.
    package let kind: Kind

    /// The longest custom scheme a UWP app may register.
    static let maximumUWPSchemeLength = 39

    /// Validates `uri`. `forUWP` applies the 39-character scheme limit. Throws
    /// `FederateError/Code/invalidRedirectURI`.
    public init(_ uri: String, forUWP: Bool = false) throws(FederateError) {
        self.uri = uri
        if uri.hasPrefix("http://") || uri.hasPrefix("https://") {
            kind = .loopback(port: try Self.loopbackPort(uri))
            return
        }
        guard let colon = uri.firstIndex(of: ":") else {
            throw FederateError(.invalidRedirectURI, "a custom-scheme redirect URI is SCHEME:/path")
        }
        let scheme = String(uri[..<colon]), path = uri[uri.index(after: colon)...]
        guard Self.isValidScheme(scheme), scheme.contains(".") else {
            throw FederateError(
                .invalidRedirectURI, "the scheme must be the reverse DNS of a domain (with a period), such as com.example.app")
        }
        guard path.isEmpty || (path.hasPrefix("/") && !path.hasPrefix("//")) else {
            throw FederateError(.invalidRedirectURI, "the path of a custom-scheme redirect URI starts with exactly one slash")
        }
        guard !path.contains("?"), !path.contains("#") else {
            throw FederateError(.invalidRedirectURI, "a custom-scheme redirect URI has no query or fragment")
        }
        if forUWP, scheme.count > Self.maximumUWPSchemeLength {
            throw FederateError(.invalidRedirectURI, "UWP app schemes are at most \(Self.maximumUWPSchemeLength) characters")
        }
        kind = .customScheme(scheme)
    }

    /// The custom scheme Google derives from an iOS/Android client ID:
    /// `123-abc.apps.googleusercontent.com` → `com.googleusercontent.apps.123-abc`.
    package static func scheme(forClientID clientID: String) throws(FederateError) -> String {
        let suffix = ".apps.googleusercontent.com"
        guard clientID.hasSuffix(suffix), clientID.count > suffix.count else {
            throw FederateError(.invalidConfiguration, "a Google client ID ends with \(suffix)")
        }
        return "com.googleusercontent.apps." + clientID.dropLast(suffix.count)
    }

    /// The redirect URI `SCHEME:/path` on the scheme derived from `clientID`.
    public static func forClientID(_ clientID: String, path: String = "/oauth2redirect") throws(FederateError) -> GoogleRedirectURI {
        try GoogleRedirectURI(try scheme(forClientID: clientID) + ":" + path)
    }

    private static func loopbackPort(_ uri: String) throws(FederateError) -> Int {
        guard uri.hasPrefix("http://") else {
            throw FederateError(.invalidRedirectURI, "installed apps redirect to http://127.0.0.1 or http://[::1] (or a custom scheme)")
        }
        let rest = uri.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host: Substring, port: Substring
        if authority.hasPrefix("[::1]:") {
            (host, port) = (authority.prefix(5), authority.dropFirst(6))
        } else if authority.hasPrefix("127.0.0.1:") {
            (host, port) = (authority.prefix(9), authority.dropFirst(10))
        } else {
            throw FederateError(
                .invalidRedirectURI, "a loopback redirect URI uses 127.0.0.1 or [::1] with a port, not localhost or another host")
        }
        guard !host.isEmpty, let number = Int(port), (1...65_535).contains(number), port.allSatisfy(\.isASCII) else {
            throw FederateError(.invalidRedirectURI, "the loopback redirect URI needs a port 1-65535")
        }
        return number
    }

    /// RFC 3986 scheme: a letter, then letters, digits, `+`, `-`, `.`.
    private static func isValidScheme(_ scheme: String) -> Bool {
        guard let first = scheme.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
        return scheme.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0))
        }
    }
}

extension FederateError.Code {
    /// A redirect URI breaks the provider's rules for it.
    public static let invalidRedirectURI: Self = "invalid_redirect_uri"
}
