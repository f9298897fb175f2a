public import HTTPTypes

/// A request as Federate's server logic reads it, whatever the framework: the method, the
/// path and query of the target, and the header fields. An integration (FederateHummingbird,
/// FederateVapor) makes one per request; bodies are passed separately to the routes that read one.
public struct ServerRequest: Sendable {
    /// The method.
    package var method: HTTPTypes.HTTPRequest.Method
    /// The target's path, percent-encoded as received, without the query (`/auth/google/callback`).
    package var path: String
    /// The target's query, without the `?`; `nil` when it has none.
    package var query: String?
    /// The header fields.
    package var headers: HTTPFields
    /// The address the connection comes from (`203.0.113.7`, `2001:db8::1`), for the rate
    /// limits of anonymous routes; `nil` when the integration does not know it (then every
    /// such request counts as one client).
    var clientAddress: String?

    /// Creates a request; `clientAddress` is the connection's peer address (both integrations
    /// pass it).
    public init(
        method: HTTPTypes.HTTPRequest.Method, path: String, query: String? = nil, headers: HTTPFields = [:], clientAddress: String? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.clientAddress = clientAddress
    }

    /// The value of the first cookie named exactly `name` in the `Cookie` fields, `nil` without one.
    package func cookie(_ name: String) -> String? {
        for header in headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " || $0 == "\t" }
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                if trimmed[..<equals].utf8.elementsEqual(name.utf8) { return String(trimmed[trimmed.index(after: equals)...]) }
            }
        }
        return nil
    }

    /// The cookies whose names start with `prefix`, by name, first value of a name only, in order.
    func cookies(prefixed prefix: String) -> [(name: String, value: String)] {
        var found: [(name: String, value: String)] = []
        var seen = Set<String>()
        for header in headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " || $0 == "\t" }
                guard trimmed.hasPrefix(prefix), let equals = trimmed.firstIndex(of: "=") else { continue }
                let name = String(trimmed[..<equals])
                if seen.insert(name).inserted { found.append((name, String(trimmed[trimmed.index(after: equals)...]))) }
            }
        }
        return found
    }

    /// The query's parameters, form-decoded (`+` is a space), first value of a name only.
    func queryParameters() -> [String: String] {
        guard let query, !query.isEmpty else { return [:] }
        var parameters: [String: String] = [:]
        for (name, value) in FormDecoding.pairs(query) where parameters[name] == nil {
            parameters[name] = value
        }
        return parameters
    }

    /// The one value of header `name`, `nil` when it is absent.
    func header(_ name: HTTPField.Name) -> String? {
        headers[name]
    }
}

/// `application/x-www-form-urlencoded` pairs, decoded as browsers encode them.
enum FormDecoding {
    static func pairs(_ text: String) -> [(String, String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    /// Percent-decoding with `+` as a space; a malformed escape is kept as written.
    static func decode(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                if iterator.count >= 2, let high = hex(iterator[iterator.startIndex]), let low = hex(iterator[iterator.startIndex + 1]) {
                    bytes.append(high << 4 | low)
                    iterator = iterator.dropFirst(2)
                } else {
                    bytes.append(byte)
                }
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
