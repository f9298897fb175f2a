public import FederateTokens
import Foundation

/// Checks that a URL Federate will call (issuer, discovery, key set, token endpoint) is
/// HTTPS, or plain HTTP on a loopback host for local development.
public enum EndpointSecurity {
    /// Validates `url` for the named `field`; throws `FederateError/Code/insecureEndpoint`
    /// or `FederateError/Code/invalidURL`.
    public static func validate(_ url: String, field: String) throws(FederateError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else {
            throw FederateError(.invalidURL, "\(field) is not an absolute URL with a host")
        }
        guard components.user == nil, components.password == nil else {
            throw FederateError(.invalidURL, "\(field) must not carry user information")
        }
        switch scheme {
        case "https":
            return
        case "http" where isLoopback(host: host):
            return
        default:
            throw FederateError(.insecureEndpoint, "\(field) must use https (plain http is allowed for loopback hosts only): \(url.prefix(200))")
        }
    }

    /// Whether a host name is a loopback address: `localhost`, 127.0.0.0/8 or `::1`.
    public static func isLoopback(host: String) -> Bool {
        let h = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if h == "localhost" || h == "::1" || h == "0:0:0:0:0:0:0:1" { return true }
        let octets = h.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets[0] == "127" else { return false }
        return octets.allSatisfy { part in UInt8(part).map { _ in !part.isEmpty } ?? false }
    }
}
