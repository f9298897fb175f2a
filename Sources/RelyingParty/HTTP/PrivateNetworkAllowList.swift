public import FederateTokens

/// The loopback, link-local, private and unspecified destinations one provider may use
/// although its issuer is not on loopback: the only way around the private-network rule
/// (``DestinationPolicy``, Docs/Security.md).
///
/// Each entry is a host name (`idp.corp.example`: that name, whatever it resolves to) or an
/// address or network in CIDR notation (`10.20.0.5`, `10.0.0.0/8`, `fd00::/8`: any host that
/// is, or resolves to, an address in it). Names are compared in ASCII lower case without a
/// trailing dot; there are no wildcards.
///
/// ```swift
/// let allowList = try PrivateNetworkAllowList(["10.0.0.0/8", "keycloak.corp.example"])
/// let profile = StandardOpenIDProfile(privateNetworkAllowList: allowList)
/// ```
public struct PrivateNetworkAllowList: Sendable, Hashable, CustomStringConvertible {
    /// An empty list: no private destination for a provider whose issuer is not on loopback.
    public static let none = PrivateNetworkAllowList(names: [], networks: [])

    private let names: [String]
    private let networks: [Network]

    struct Network: Hashable, Sendable {
        let address: IPAddress
        let prefixLength: Int
    }

    private init(names: [String], networks: [Network]) {
        self.names = names
        self.networks = networks
    }

    /// Reads entries: host names, addresses, or networks in CIDR notation. Throws
    /// `FederateError/Code/invalidConfiguration` for an entry that is none of these.
    public init(_ entries: [String]) throws(FederateError) {
        var names: Set<String> = [], networks: Set<Network> = []
        for entry in entries {
            let parts = entry.split(separator: "/", omittingEmptySubsequences: false)
            if parts.count == 2 {
                guard let address = IPAddress(host: String(parts[0])), parts[1].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                    let length = Int(parts[1]), length >= 0, length <= address.bytes.count * 8
                else {
                    throw FederateError(
                        .invalidConfiguration, "private-network allow-list entry '\(entry.prefix(100))' is not a network in CIDR notation")
                }
                networks.insert(Network(address: address, prefixLength: length))
            } else if parts.count == 1, let address = IPAddress(host: entry) {
                networks.insert(Network(address: address, prefixLength: address.bytes.count * 8))
            } else if parts.count == 1, let name = Self.normalizedName(entry), !name.isEmpty, name.utf8.count <= 253,
                name.utf8.allSatisfy({ Self.isNameByte($0) })
            {
                names.insert(name)
            } else {
                throw FederateError(
                    .invalidConfiguration,
                    "private-network allow-list entry '\(entry.prefix(100))' is not a host name, an address or a network")
            }
        }
        self.init(names: names.sorted(), networks: networks.sorted { $0.description < $1.description })
    }

    /// Whether the list is empty.
    package var isEmpty: Bool { names.isEmpty && networks.isEmpty }

    /// The entries, normalised, names first.
    package var entries: [String] { names + networks.map(\.description) }

    /// The entries, comma-separated.
    public var description: String { entries.isEmpty ? "(none)" : entries.joined(separator: ", ") }

    /// Whether `host` (a URL host: a name, or an address in any spelling) is on the list.
    func permits(host: String) -> Bool {
        if let address = IPAddress(host: host) { return permits(address: address) }
        guard let name = Self.normalizedName(host) else { return false }
        return names.contains(name)
    }

    /// Whether `address` is in one of the listed networks.
    func permits(address: IPAddress) -> Bool {
        networks.contains { address.isIn($0.address, prefixLength: $0.prefixLength) }
    }

    /// A host name in ASCII lower case without its one trailing dot; `nil` when not ASCII.
    static func normalizedName(_ host: String) -> String? {
        guard host.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return name
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}

extension PrivateNetworkAllowList.Network: CustomStringConvertible {
    var description: String { "\(address)/\(prefixLength)" }
}
