package import FederateTokens
import Foundation

/// Checks a URL Federate will call, open or print (issuer, discovery, key set, every endpoint a
/// provider publishes, a device verification URI).
///
/// The rules, in order:
/// - the URL is printable ASCII without spaces (RFC 3986: `0x21`–`0x7E` only), so that nothing a
///   provider sends can carry a terminal escape, a bidirectional override or a look-alike
///   character into a terminal or a browser (`FederateError/Code/invalidURL`);
/// - it is absolute, with a host and without user information (`FederateError/Code/invalidURL`);
/// - its host, as written, is not a loopback, link-local, private or unspecified address unless
///   the ``DestinationPolicy`` allows it (`FederateError/Code/privateAddressRefused`);
/// - it is `https`, or plain `http` on a loopback host when the provider's issuer is itself on
///   loopback (`FederateError/Code/insecureEndpoint`).
package enum EndpointSecurity {
    /// Validates `url`, for the named `field`, as a URL that is its own issuer: ``validate(_:field:destination:)``
    /// with `DestinationPolicy(issuer: url)`.
    package static func validate(_ url: String, field: String) throws(FederateError) {
        try validate(url, field: field, destination: DestinationPolicy(issuer: url))
    }

    /// Validates `url`, for the named `field`, as a URL of the provider whose requests carry
    /// `destination` (``ProviderMetadata/destination``).
    public static func validate(_ url: String, field: String, destination: DestinationPolicy) throws(FederateError) {
        guard !url.isEmpty, url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw FederateError(.invalidURL, "\(field) is not printable ASCII without spaces (RFC 3986)")
        }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else {
            throw FederateError(.invalidURL, "\(field) is not an absolute URL with a host")
        }
        guard components.user == nil, components.password == nil else {
            throw FederateError(.invalidURL, "\(field) must not carry user information")
        }
        try destination.checkLiteral(host: host, field: field)
        switch scheme {
        case "https":
            break
        case "http" where destination.allowsAnyAddress && isLoopback(host: host):
            break
        default:
            throw FederateError(
                .insecureEndpoint,
                "\(field) must use https (plain http is allowed for loopback hosts of a loopback issuer only): \(url.prefix(200))")
        }
    }

    /// Whether a host is on loopback: `localhost` or a name under it, or a loopback address
    /// (127.0.0.0/8, `::1`) in any spelling (`127.1`, `0x7f.0.0.1`, `[::ffff:127.0.0.1]`, a trailing dot).
    public static func isLoopback(host: String) -> Bool {
        DestinationPolicy.isLoopback(host: host)
    }
}
