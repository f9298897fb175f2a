public import FederateTokens

extension OpenIDClient {
    /// This client, asking for tokens meant for `resources` (RFC 8707 resource indicators): each
    /// goes as a `resource` parameter on its authorization requests, code exchanges and
    /// refreshes, so the authorization server issues access tokens whose audience is those
    /// resources (an MCP server, an API) and nothing else. Empty (the default) sends none.
    ///
    /// `invalid_configuration` for a resource that is not an absolute URI, carries a fragment
    /// (RFC 8707 §2), or holds a space or a character outside printable ASCII; at most
    /// `maximumResources`.
    public func withResources(_ resources: [String]) throws(FederateError) -> OpenIDClient {
        guard resources.count <= Self.maximumResources else {
            throw FederateError(.invalidConfiguration, "at most \(Self.maximumResources) resource indicators")
        }
        for resource in resources { try Self.checkResource(resource) }
        var copy = self
        var seen = Set<[UInt8]>()
        copy.resources = resources.filter { seen.insert(Array($0.utf8)).inserted }
        return copy
    }

    /// The most resource indicators one client sends.
    static let maximumResources = 16

    /// An absolute URI (a scheme, then `:`), no fragment, 1–2,048 bytes of printable ASCII without spaces.
    static func checkResource(_ resource: String) throws(FederateError) {
        let bytes = Array(resource.utf8)
        guard (1...2048).contains(bytes.count), bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), !bytes.contains(UInt8(ascii: "#")),
            let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, bytes[0].isASCIILetter,
            bytes[..<colon].allSatisfy({ $0.isASCIILetter || (0x30...0x39).contains($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }),
            colon + 1 < bytes.count
        else {
            throw FederateError(.invalidConfiguration, "a resource indicator is an absolute URI without a fragment (RFC 8707 §2)")
        }
    }

    /// The `resource` parameters of this client's requests.
    var resourceParameters: [(String, String)] { resources.map { ("resource", $0) } }
}

extension UInt8 {
    fileprivate var isASCIILetter: Bool { (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self) }
}
