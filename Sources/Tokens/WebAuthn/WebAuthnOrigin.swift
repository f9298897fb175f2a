/// The configuration's checks of RP IDs and origins (`WebAuthnConfiguration`).
enum WebAuthnOrigin {
    /// A domain of lowercase ASCII labels: not empty, no empty label, at most 253 bytes, not an
    /// IP address (no all-digit last label, no `:`), and more than one label unless `localhost`.
    static func checkRelyingPartyID(_ id: String) throws(FederateError) {
        let labels = id.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard !id.isEmpty, id.utf8.count <= 253,
            labels.allSatisfy({ !$0.isEmpty && $0.count <= 63 && $0.allSatisfy(isHostByte) })
        else {
            throw FederateError(.invalidConfiguration, "the RP ID '\(id.prefix(64))' is not a lowercase domain name")
        }
        if let last = labels.last, last.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            throw FederateError(.invalidConfiguration, "the RP ID '\(id.prefix(64))' is an IP address; WebAuthn needs a domain")
        }
        guard labels.count > 1 || id == "localhost" else {
            throw FederateError(.invalidConfiguration, "the RP ID '\(id.prefix(64))' is a single label")
        }
    }

    /// `https://host[:port]`, or `http://localhost[:port]`; with `relyingPartyID`, a host that is
    /// the RP ID or a subdomain of it.
    static func check(_ origin: String, relyingPartyID: String?) throws(FederateError) {
        let refused = FederateError(
            .invalidConfiguration, "the origin '\(origin.prefix(100))' is not https://host[:port] (or http://localhost[:port])")
        let secure = origin.hasPrefix("https://")
        guard secure || origin.hasPrefix("http://") else { throw refused }
        let authority = origin.utf8.dropFirst(secure ? 8 : 7)
        let parts = authority.split(separator: UInt8(ascii: ":"), maxSplits: 1, omittingEmptySubsequences: false)
        guard let hostBytes = parts.first else { throw refused }
        let host = String(decoding: hostBytes, as: UTF8.self)
        guard !host.isEmpty, host.utf8.allSatisfy(isHostByte),
            !host.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).contains(where: \.isEmpty)
        else { throw refused }
        if parts.count == 2 {
            let port = parts[1]
            guard (1...5).contains(port.count), port.first != UInt8(ascii: "0"),
                port.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let value = Int(String(decoding: port, as: UTF8.self)), value <= 65535
            else { throw refused }
        }
        guard secure || host == "localhost" else {
            throw FederateError(.invalidConfiguration, "the origin '\(origin.prefix(100))' is http:// on another host than localhost")
        }
        if let relyingPartyID, !(host == relyingPartyID || host.hasSuffix("." + relyingPartyID)) {
            throw FederateError(
                .invalidConfiguration, "the origin '\(origin.prefix(100))' is not within the RP ID '\(relyingPartyID.prefix(64))'")
        }
    }

    /// Lowercase letters, digits, `-` and `.`.
    private static func isHostByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }
}
