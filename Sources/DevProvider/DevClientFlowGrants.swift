import Federate
import Foundation

/// A pushed authorization request (RFC 9126) waiting for the browser: its parameters, for
/// one client, until it expires.
struct DevPushedRequest: Sendable {
    let clientID: String
    let parameters: [String: String]
    let expiresAt: Date
}

/// A device authorization (RFC 8628) waiting for its user to answer on the verification page.
struct DevDeviceGrant: Sendable {
    enum Answer: Sendable {
        case pending
        case approved(DevUser, authTime: Date)
        case denied
    }

    let clientID: String
    let userCode: String
    let scopes: [String]
    let expiresAt: Date
    /// The current polling interval (raised 5 seconds on each `slow_down`).
    var interval: Duration
    /// When the device last polled.
    var lastPoll: Date?
    var answer: Answer
}

extension DevEndpoints {
    /// The pushed-authorization endpoint (RFC 9126).
    var pushedAuthorization: String { "/par" }
    /// The device-authorization endpoint (RFC 8628).
    var deviceAuthorization: String { "/device_authorization" }
    /// The page where a user enters a device's code and approves it.
    var deviceVerification: String { "/device" }
}
