import Federate
import FederateDevProvider
import FederateTestSupport
import Foundation
import Synchronization
import Testing
@testable import FederateRelyingParty

/// The device authorization grant (RFC 8628) end to end against the dev provider over real
/// HTTP: the person's part is played by posting the dev provider's verification page.
@Suite("Device authorization")
struct DeviceAuthorizationTests {
    /// A provider and a client on one test clock; `body` gets the clock to advance.
    static func with(_ body: (DevProvider, OpenIDClient, TestClock) async throws -> Void) async throws {
        let clock = TestClock()
        var configuration = DevProviderConfiguration.standard
        configuration.clock = clock.clock
        try await Flavor.with(configuration) { provider in
            let metadata = try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: provider.issuer)
            let client = try OpenIDClient(
                metadata: metadata, clientID: "dev-public", authentication: .none, httpClient: PatientTransport.shared, clock: clock.clock)
            try await body(provider, client, clock)
        }
    }

    /// Posts the verification page as the person does: approve as `user`, or deny.
    static func answer(_ provider: DevProvider, userCode: String, user: String?) async throws -> Int {
        var form = [("user_code", userCode)]
        form.append(user.map { ("user", $0) } ?? ("deny", "1"))
        let response = try await PatientTransport.shared.send(
            HTTPRequest(
                method: "POST", url: provider.baseURL + "/device", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: Array(FormURLEncoding.encode(form).utf8)))
        return response.status
    }

    @Test func approvedOnTheVerificationPageThePollEndsWithAVerifiedIDToken() async throws {
        try await Self.with { provider, client, clock in
            let authorization = try await client.startDeviceAuthorization(scopes: ["email"])
            #expect(authorization.verificationURI == provider.baseURL + "/device")
            #expect(authorization.verificationURIComplete?.contains("user_code=") == true)
            #expect(authorization.userCode.count == 9 && authorization.interval == .seconds(5))
            #expect(authorization.scopes == ["openid", "email"])
            #expect(!"\(authorization)".contains(authorization.deviceCode))

            let page = try await PatientTransport.shared.send(HTTPRequest(url: try #require(authorization.verificationURIComplete)))
            #expect(String(decoding: page.body, as: UTF8.self).contains(authorization.userCode))

            let pending = await #expect(throws: FederateError.self) { try await client.pollDeviceAuthorization(authorization) }
            #expect(pending?.code == .authorizationPending)
            // The user types the code in lower case, without the dash.
            let typed = authorization.userCode.lowercased().replacingOccurrences(of: "-", with: "")
            #expect(try await Self.answer(provider, userCode: typed, user: "bob") == 200)

            let polls = DurationRecorder()
            let tokens = try await client.waitForDeviceAuthorization(authorization) { span in
                polls.append(span)
                clock.advance(by: span)
            }
            #expect(polls.count == 1)
            #expect(tokens.idTokenClaims?.subject == "bob")
            #expect(tokens.idTokenClaims?.audiences == ["dev-public"])
            // The code is spent.
            let spent = await #expect(throws: FederateError.self) { try await client.pollDeviceAuthorization(authorization) }
            #expect(spent?.code == .invalidGrant)
        }
    }

    @Test func pollingTooFastSlowsDownByFiveSeconds() async throws {
        try await Self.with { provider, client, clock in
            let authorization = try await client.startDeviceAuthorization()
            // The first two waits end early (a device whose clock runs fast): the second poll
            // comes 1 s after the first, the provider answers slow_down, and the next wait is 10 s.
            let waits = DurationRecorder()
            let tokens = try await client.waitForDeviceAuthorization(authorization) { span in
                waits.append(span)
                clock.advance(by: waits.count < 3 ? .seconds(1) : span)
                if waits.count == 3 {
                    let status = try await Self.answer(provider, userCode: authorization.userCode, user: "alice")
                    #expect(status == 200)
                }
            }
            #expect(tokens.idTokenClaims?.subject == "alice")
            #expect(waits.values == [.seconds(5), .seconds(5), .seconds(10)])
        }
    }

    @Test func deniedExpiredAndCancelled() async throws {
        try await Self.with { provider, client, clock in
            let denied = try await client.startDeviceAuthorization()
            #expect(try await Self.answer(provider, userCode: denied.userCode, user: nil) == 200)
            let refusal = await #expect(throws: FederateError.self) {
                try await client.waitForDeviceAuthorization(denied) { clock.advance(by: $0) }
            }
            #expect(refusal?.code == .accessDenied)
            #expect(try await Self.answer(provider, userCode: denied.userCode, user: "alice") == 400)

            let expiring = try await client.startDeviceAuthorization()
            let expired = await #expect(throws: FederateError.self) {
                try await client.waitForDeviceAuthorization(expiring) { clock.advance(by: $0 + .seconds(100)) }
            }
            #expect(expired?.code == .expiredToken)

            let abandoned = try await client.startDeviceAuthorization()
            let task = Task { try await client.waitForDeviceAuthorization(abandoned) }
            task.cancel()
            let cancelled = await #expect(throws: FederateError.self) { try await task.value }
            #expect(cancelled?.code == .cancelled)
        }
    }
}

/// Durations a `@Sendable` closure records.
final class DurationRecorder: Sendable {
    private let spans = Mutex<[Duration]>([])
    func append(_ span: Duration) { spans.withLock { $0.append(span) } }
    var count: Int { spans.withLock { $0.count } }
    var values: [Duration] { spans.withLock { $0 } }
}
