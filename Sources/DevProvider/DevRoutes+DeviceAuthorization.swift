import Federate
import Foundation
import Hummingbird

extension DevDeviceGrant {
    /// The device-code grant type (RFC 8628 §3.4).
    static let grantType = "urn:ietf:params:oauth:grant-type:device_code"
    /// How long a device code lives.
    static let lifetime: Duration = .seconds(600)
    /// The polling interval a device starts with.
    static let interval: Duration = .seconds(5)
    /// The letters of user codes: consonants without look-alikes (RFC 8628 §6.1).
    static let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")

    /// A fresh `XXXX-XXXX` user code.
    static func userCode() -> String {
        var generator = SystemRandomNumberGenerator()
        let letters = (0..<8).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
        return String(letters[0..<4]) + "-" + String(letters[4...])
    }

    /// A typed code as stored: upper case, without dashes and spaces.
    static func normalized(_ code: String) -> String {
        String(code.uppercased().filter { $0 != "-" && $0 != " " })
    }
}

extension DevRoutes {
    /// `POST /device_authorization` (RFC 8628 §3.1–3.2): authenticates the client (a public
    /// client sends its `client_id`) and answers a device code, a user code, the verification
    /// page (plain and with the code), `expires_in` 600 and `interval` 5.
    func startDeviceAuthorization(form: String, authorization: String?) async -> Response {
        guard let parameters = try? FormURLEncoding.decode(form) else { return oauthError("invalid_request", "malformed form") }
        let client: DevClient
        switch await authenticate(parameters, authorization: authorization, endpoint: baseURL + endpoints.deviceAuthorization) {
        case .success(let authenticated): client = authenticated
        case .failure(let failure): return invalidClient(failure)
        }
        let scopes = (parameters["scope"] ?? "openid").split(separator: " ").map(String.init)
        let deviceCode = DevRandom.token(), userCode = DevDeviceGrant.userCode()
        let now = configuration.clock.now
        state.deviceGrants.withLock { grants in
            grants = grants.filter { $0.value.expiresAt > now }
            grants[ExactString(deviceCode)] = DevDeviceGrant(
                clientID: client.id, userCode: DevDeviceGrant.normalized(userCode), scopes: scopes,
                expiresAt: now.adding(DevDeviceGrant.lifetime), interval: DevDeviceGrant.interval, lastPoll: nil, answer: .pending)
        }
        let page = baseURL + endpoints.deviceVerification
        return json([
            "device_code": .string(deviceCode), "user_code": .string(userCode), "verification_uri": .string(page),
            "verification_uri_complete": .string(page + "?" + FormURLEncoding.encode([("user_code", userCode)])),
            "expires_in": .integer(DevDeviceGrant.lifetime.wholeSeconds), "interval": .integer(DevDeviceGrant.interval.wholeSeconds),
        ])
    }

    /// The token endpoint's device-code grant (RFC 8628 §3.4–3.5): `authorization_pending`
    /// until the user answers, `slow_down` (and 5 seconds more) when polled sooner than the
    /// interval, `access_denied` when refused, `expired_token` after 600 s, then the tokens once.
    func deviceToken(_ parameters: [String: String], client: DevClient) throws -> Response {
        guard let deviceCode = parameters["device_code"].map(ExactString.init) else {
            return oauthError("invalid_request", "device_code missing")
        }
        let now = configuration.clock.now
        enum Outcome { case unknown, expired, slowDown, pending, denied, approved(DevUser, Date, [String]) }
        let outcome = state.deviceGrants.withLock { grants -> Outcome in
            guard var grant = grants[deviceCode], grant.clientID == client.id else { return .unknown }
            guard grant.expiresAt > now else {
                grants.removeValue(forKey: deviceCode)
                return .expired
            }
            defer { if grants[deviceCode] != nil { grants[deviceCode] = grant } }
            if let last = grant.lastPoll, now < last.adding(grant.interval) {
                grant.lastPoll = now
                grant.interval += .seconds(5)
                return .slowDown
            }
            grant.lastPoll = now
            switch grant.answer {
            case .pending:
                return .pending
            case .denied:
                grants.removeValue(forKey: deviceCode)
                return .denied
            case .approved(let user, let authTime):
                grants.removeValue(forKey: deviceCode)
                return .approved(user, authTime, grant.scopes)
            }
        }
        switch outcome {
        case .unknown: return oauthError("invalid_grant", "the device code is unknown or used")
        case .expired: return oauthError("expired_token", "the device code expired")
        case .slowDown: return oauthError("slow_down", "poll no more often than the interval")
        case .pending: return oauthError("authorization_pending", "the user has not answered yet")
        case .denied: return oauthError("access_denied", "the user refused")
        case .approved(let user, let authTime, let scopes):
            return try issueTokens(client: client, user: user, scopes: scopes, nonce: nil, authTime: authTime)
        }
    }

    /// `GET /device`: the page where the user types the code (filled in from
    /// `verification_uri_complete`), then picks a test user to approve, or denies.
    func devicePage(query: String) -> Response {
        let parameters = (try? FormURLEncoding.decode(query)) ?? [:]
        let buttons = configuration.users.map { user in
            "<li style=\"margin: .4em 0\"><button style=\"font: inherit; padding: .45em .9em\" name=\"user\" value=\"\(html(user.subject))\">Approve as \(html(user.name)) &lt;\(html(user.email))&gt;</button></li>"
        }.joined()
        return page(
            status: .ok, title: "Federate dev provider: connect a device",
            body: """
                <h1>Connect a device</h1><form method="post" action="\(html(endpoints.deviceVerification))">
                <p><label>Code shown on the device: <input name="user_code" value="\(html(parameters["user_code"] ?? ""))" autocomplete="off"></label></p>
                <ul style="list-style: none; padding: 0">\(buttons)</ul>
                <button id="deny" style="font: inherit; padding: .45em .9em" name="deny" value="1">Deny</button></form>
                <p style="color: #6e6e73">This is Federate's development provider: no passwords, test users only.</p>
                """)
    }

    /// `POST /device`: approves the pending device authorization with this user code as the
    /// chosen user (that signs them in here, as the authorize page does), or denies it.
    func answerDevice(form: String) -> Response {
        guard let parameters = try? FormURLEncoding.decode(form), let typed = parameters["user_code"] else {
            return page(status: .badRequest, title: "Bad request", body: "<p>The form is malformed.</p>")
        }
        let code = DevDeviceGrant.normalized(typed)
        let denied = parameters["deny"] != nil
        let user = user(parameters["user"])
        guard denied || user != nil else { return page(status: .badRequest, title: "Unknown user", body: "<p>Pick a test user.</p>") }
        let now = configuration.clock.now
        if let user, !denied { state.startSSOSession(user.subject, at: now) }
        let answered = state.deviceGrants.withLock { grants -> Bool in
            guard !code.isEmpty, let entry = grants.first(where: { $0.value.userCode.exactlyEquals(code) && $0.value.expiresAt > now }),
                case .pending = entry.value.answer
            else { return false }
            grants[entry.key]?.answer = denied ? .denied : user.map { .approved($0, authTime: now) } ?? .denied
            return true
        }
        guard answered else {
            return page(status: .badRequest, title: "Unknown code", body: "<p>No device is waiting for this code, or it expired.</p>")
        }
        return page(
            status: .ok, title: denied ? "Device denied" : "Device connected",
            body: denied
                ? "<p>The device was denied access. You can close this page.</p>"
                : "<p>The device is signed in. You can close this page and return to it.</p>")
    }
}
