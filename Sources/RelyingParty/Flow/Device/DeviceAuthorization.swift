import FederateTokens
public import Foundation

/// A device authorization in progress (RFC 8628 §3.2): show ``userCode`` and
/// ``verificationURI`` to the person, then poll with
/// `OpenIDClient.waitForDeviceAuthorization(_:sleep:)`.
///
/// Everything the provider sent is checked before it is shown or used: `device_code` 1–4,096
/// printable ASCII characters; `user_code` 1–128 bytes of UTF-8 with no control or format
/// characters (it is printed to a terminal: counted in bytes, so combining marks cannot pile
/// up on one letter); `verification_uri` (and `verification_uri_complete`) printable ASCII
/// without spaces and HTTPS, or HTTP on loopback (`EndpointSecurity`); `expires_in` a whole number of
/// seconds from 1 to a day; `interval` a whole number from 0 to an hour (absent: 5 seconds; 0
/// is read as 1 second, so polling never spins). Anything else is
/// `invalid_device_authorization_response`.
public struct DeviceAuthorization: Sendable, CustomStringConvertible {
    /// The longest `expires_in` accepted: one day.
    package static let maximumLifetime: Int64 = 86_400
    /// The longest `user_code` accepted, in UTF-8 bytes.
    static let maximumUserCodeBytes = 128
    /// The longest `interval` accepted from the provider, and the most `slow_down` can raise it to: one hour.
    static let maximumInterval: Int64 = 3600

    /// `device_code`: secret, sent only to the token endpoint.
    package let deviceCode: String
    /// `user_code`: what the person types at ``verificationURI``.
    public let userCode: String
    /// `verification_uri`: where the person goes.
    public let verificationURI: String
    /// `verification_uri_complete`, if sent: the URI with the code in it (for a QR code).
    public let verificationURIComplete: String?
    /// After this instant the device code is dead (`expired_token`).
    public let expiresAt: Date
    /// How long to wait between polls.
    package let interval: Duration
    /// The scopes requested.
    package let scopes: [String]

    /// Creates the value (normally read from the provider's answer).
    init(
        deviceCode: String, userCode: String, verificationURI: String, verificationURIComplete: String?, expiresAt: Date,
        interval: Duration, scopes: [String]
    ) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresAt = expiresAt
        self.interval = interval
        self.scopes = scopes
    }

    /// Reads a successful answer received at `now` from the provider whose requests carry `destination`.
    init(answer body: [UInt8], receivedAt now: Date, scopes: [String], destination: DestinationPolicy) throws(FederateError) {
        let members: [String: JSONValue]
        do {
            members = try JSONParser().parseObject(body)
        } catch {
            throw FederateError(.invalidDeviceAuthorizationResponse, "the device authorization answer is not a JSON object")
        }
        func fail(_ message: String) -> FederateError { FederateError(.invalidDeviceAuthorizationResponse, message) }
        guard case .string(let deviceCode)? = members["device_code"], (1...4096).contains(deviceCode.utf8.count),
            deviceCode.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { throw fail("device_code is missing or not 1-4096 printable ASCII characters") }
        guard case .string(let userCode)? = members["user_code"], (1...Self.maximumUserCodeBytes).contains(userCode.utf8.count),
            Self.printable(userCode)
        else {
            throw fail("user_code is missing, longer than \(Self.maximumUserCodeBytes) bytes, or holds control or format characters")
        }
        guard case .string(let uri)? = members["verification_uri"] ?? members["verification_url"] else {
            throw fail("verification_uri is missing")
        }
        var complete: String?
        do throws(FederateError) {
            try EndpointSecurity.validate(uri, field: "verification_uri", destination: destination)
            if let value = members["verification_uri_complete"] {
                guard case .string(let string) = value else { throw fail("verification_uri_complete is not a string") }
                try EndpointSecurity.validate(string, field: "verification_uri_complete", destination: destination)
                complete = string
            }
        } catch {
            throw fail(error.message)
        }
        guard
            let lifetime = try ProviderLifetime.seconds(
                "expires_in", in: members, minimum: 1, maximum: Self.maximumLifetime, code: .invalidDeviceAuthorizationResponse)
        else { throw fail("expires_in is missing") }
        let interval =
            try ProviderLifetime.seconds(
                "interval", in: members, minimum: 0, maximum: Self.maximumInterval, code: .invalidDeviceAuthorizationResponse)
            ?? .seconds(5)
        self.init(
            deviceCode: deviceCode, userCode: userCode, verificationURI: uri, verificationURIComplete: complete,
            expiresAt: now.adding(lifetime), interval: max(interval, .seconds(1)), scopes: scopes)
    }

    private static func printable(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: return false
            default: return true
            }
        }
    }

    /// Whether the device code has expired at `now`.
    func isExpired(at now: Date) -> Bool { now >= expiresAt }

    /// Redacted: no device code.
    public var description: String {
        "DeviceAuthorization(user_code: \(userCode), verification_uri: \(verificationURI), expires: \(expiresAt), device_code redacted)"
    }
}
