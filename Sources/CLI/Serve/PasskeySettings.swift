import Federate
import Foundation

/// The `"passkeys"` member of `federate serve`'s configuration file: the WebAuthn relying party
/// of the passkey routes (Docs/Passkeys.md).
///
/// ```json
/// "passkeys": {"rp_id": "app.example", "rp_name": "Example", "origins": ["https://app.example"], "user_verification": "preferred"}
/// ```
///
/// Each member is optional: the RP ID is the origin's host, the name `Federate`, the only
/// origin the server's, user verification preferred (always required to reauthenticate).
/// `false` turns passkeys off. Absent, passkeys are on when the origin's host is a name
/// (`http://localhost:8080` qualifies: browsers treat it as a secure context) and off when it
/// is an IP address, which browsers refuse as an RP ID; with `"passkeys": {...}` an IP origin
/// is a configuration error.
struct PasskeySettings {
    /// `false` in the file.
    var disabled = false
    /// Whether the file has a `"passkeys"` object.
    var explicit = false
    var relyingPartyID: String?
    var relyingPartyName = "Federate"
    var origins: [String]?
    var userVerification = WebAuthnUserVerification.preferred

    /// The defaults.
    init() {}

    /// Reads `"passkeys"`: `false`, `true` (the defaults) or an object.
    init(json: JSONValue) throws(FederateError) {
        let usage = "passkeys is false, true or {\"rp_id\", \"rp_name\", \"origins\": [...], \"user_verification\"}"
        switch json {
        case .bool(let on):
            disabled = !on
            explicit = on
        case .object(let object):
            explicit = true
            for key in object.keys where !["rp_id", "rp_name", "origins", "user_verification"].contains(key) {
                throw FederateError(.invalidConfiguration, "passkeys has no member '\(TerminalText.sanitized(key))': \(usage)")
            }
            if let value = object["rp_id"] {
                guard let id = value.stringValue else { throw FederateError(.invalidConfiguration, usage) }
                relyingPartyID = id
            }
            if let value = object["rp_name"] {
                guard let name = value.stringValue, (1...64).contains(name.count) else {
                    throw FederateError(.invalidConfiguration, "passkeys.rp_name is a short text (1-64 characters)")
                }
                relyingPartyName = name
            }
            if let value = object["origins"] {
                let origins = value.arrayValue?.compactMap(\.stringValue) ?? []
                guard !origins.isEmpty, origins.count == value.arrayValue?.count else {
                    throw FederateError(.invalidConfiguration, "passkeys.origins is a list of origins (\"https://app.example\")")
                }
                self.origins = origins
            }
            if let value = object["user_verification"] {
                guard let text = value.stringValue, let verification = WebAuthnUserVerification(rawValue: text) else {
                    throw FederateError(.invalidConfiguration, "passkeys.user_verification is \"required\" or \"preferred\"")
                }
                userVerification = verification
            }
        default:
            throw FederateError(.invalidConfiguration, usage)
        }
    }

    /// The relying party for a server at `origin`; `nil` when passkeys are off (turned off, or
    /// left at the default with an IP-address origin).
    func configuration(origin: String) throws(FederateError) -> WebAuthnConfiguration? {
        guard !disabled else { return nil }
        let host = Self.host(of: origin)
        if relyingPartyID == nil, !explicit, Self.isIPAddress(host) { return nil }
        let id = relyingPartyID ?? host
        guard !Self.isIPAddress(id) else {
            throw FederateError(
                .invalidConfiguration,
                "passkeys need a host name as RP ID, not an IP address: serve at http://localhost:PORT (set \"origin\") or set passkeys.rp_id"
            )
        }
        return try WebAuthnConfiguration(
            relyingPartyID: id, relyingPartyName: relyingPartyName, allowedOrigins: origins ?? [origin],
            userVerification: userVerification)
    }

    /// The host of `origin` (`scheme://host[:port]`), as the transports read it.
    static func host(of origin: String) -> String {
        DestinationPolicy.host(of: origin) ?? origin
    }

    /// An IP address in any spelling (`127.1`, `0x7f.0.0.1`, `[::1]`): never an RP ID.
    static func isIPAddress(_ host: String) -> Bool {
        IPAddress(host: host) != nil
    }
}
