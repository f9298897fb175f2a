public import FederateTokens
import Foundation

/// Where the requests made for one provider may connect: the private-network rule.
///
/// A provider whose issuer is on loopback (`localhost`, 127.0.0.0/8, `::1`: development) may
/// use any address. Any other provider may not reach a loopback, link-local, private or
/// unspecified address (``PrivateNetworkAllowList`` names the exceptions), neither by naming one
/// in an endpoint it publishes (checked when its discovery document is parsed, every spelling
/// of an address counting as the address) nor through a name that resolves to one (checked
/// by the transport on the address it connects to). Otherwise a remote document could steer
/// Federate's requests, with the client's secret, to services on the server's own network.
///
/// Every ``HTTPRequest`` carries one (``HTTPRequest/destination``); a transport must refuse to
/// send a request whose policy does not permit the address it connected to
/// (``permits(host:address:)``), with `FederateError/Code/privateAddressRefused`.
public struct DestinationPolicy: Sendable, Hashable, CustomStringConvertible {
    /// The exceptions, when only public addresses are allowed; `nil` allows any address.
    let publicOnlyExceptions: PrivateNetworkAllowList?

    /// Any address: the policy of a provider whose issuer is on loopback.
    static let anyAddress = DestinationPolicy(publicOnlyExceptions: nil)

    /// Public addresses only, except those `allowList` names.
    static func publicAddresses(except allowList: PrivateNetworkAllowList = .none) -> DestinationPolicy {
        DestinationPolicy(publicOnlyExceptions: allowList)
    }

    private init(publicOnlyExceptions: PrivateNetworkAllowList?) {
        self.publicOnlyExceptions = publicOnlyExceptions
    }

    /// The policy of the requests made for `issuer`: `anyAddress` when its host is on
    /// loopback, else public addresses only, except those `allowList` names.
    public init(issuer: String, allowing allowList: PrivateNetworkAllowList = .none) {
        self.publicOnlyExceptions = Self.isLoopback(host: Self.host(of: issuer) ?? "") ? nil : allowList
    }

    /// Whether any address is allowed (the issuer is on loopback).
    package var allowsAnyAddress: Bool { publicOnlyExceptions == nil }

    /// The policy of a request to `url`, one endpoint of the provider: the rule is per endpoint.
    /// "Any address" (a provider on loopback) holds only for a URL whose own host is on loopback;
    /// a URL that names another host reaches public addresses only. So an endpoint configured
    /// beside a loopback one (an OAuth 2.0 server's token endpoint on a name that resolves to
    /// 127.0.0.1) never receives the client's secret there.
    func forEndpoint(_ url: String) -> DestinationPolicy {
        guard allowsAnyAddress, !Self.isLoopback(host: Self.host(of: url) ?? "") else { return self }
        return .publicAddresses()
    }

    /// Whether a connection to `address` (4 or 16 bytes, network order), made for a URL whose
    /// host is `host`, is allowed.
    public func permits(host: String, address: [UInt8]) -> Bool {
        guard let allowList = publicOnlyExceptions else { return true }
        guard let address = IPAddress(bytes: address) else { return false }
        return address.scope == .public || allowList.permits(host: host) || allowList.permits(address: address)
    }

    /// The refusal of a connection to `address` made for `origin` (a URL's origin, never more).
    package func refusal(origin: String, address: [UInt8]) -> FederateError {
        let scope = IPAddress(bytes: address)?.scope.rawValue ?? "unknown"
        let shown = IPAddress(bytes: address)?.description ?? "?"
        return FederateError(
            .privateAddressRefused,
            "\(origin) reached \(shown), a \(scope) address, and this provider's issuer is not on loopback: nothing was sent; add the host or network to the provider's private-network allow-list if that is intended"
        )
    }

    /// Throws `FederateError/Code/privateAddressRefused` when `host`, as written (a name that
    /// is loopback by definition, or an address in any spelling), is not allowed.
    func checkLiteral(host: String, field: String) throws(FederateError) {
        guard let allowList = publicOnlyExceptions, !allowList.permits(host: host) else { return }
        let scope: IPAddress.Scope
        if let address = IPAddress(host: host) {
            scope = address.scope
        } else if Self.isLoopbackName(host) {
            scope = .loopback
        } else {
            return
        }
        guard scope != .public else { return }
        throw FederateError(
            .privateAddressRefused,
            "\(field) names a \(scope.rawValue) address ('\(host.prefix(100))') and the issuer is not on loopback: add it to the provider's private-network allow-list if that is intended"
        )
    }

    public var description: String {
        guard let allowList = publicOnlyExceptions else { return "any address" }
        return allowList.isEmpty ? "public addresses only" : "public addresses only, except \(allowList)"
    }

    /// Whether a URL host is on loopback: `localhost` or a name under it (RFC 6761), or a
    /// loopback address in any spelling (`127.1`, `[::ffff:127.0.0.1]`, `0x7f.0.0.1`).
    static func isLoopback(host: String) -> Bool {
        if let address = IPAddress(host: host) { return address.scope == .loopback }
        return isLoopbackName(host)
    }

    private static func isLoopbackName(_ host: String) -> Bool {
        guard let name = PrivateNetworkAllowList.normalizedName(host) else { return false }
        return name == "localhost" || name.hasSuffix(".localhost")
    }

    /// The host of an absolute URL, as Foundation's URL parser (and so the transports) read it, or `nil`.
    package static func host(of url: String) -> String? {
        URLComponents(string: url)?.host
    }
}

extension FederateError.Code {
    /// A provider whose issuer is not on loopback named, or resolved to, a loopback, link-local, private or unspecified address (Docs/Security.md): nothing was sent there. Add the host or network to that provider's private-network allow-list if it is intended.
    public static let privateAddressRefused: Self = "private_address_refused"
}
