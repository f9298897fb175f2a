import Federate
import Foundation
import Testing

@Suite("Loopback redirect listener")
struct LoopbackRedirectListenerTests {
    static func get(_ url: String, method: String = "GET", body: String? = nil) async throws -> HTTPResponse {
        var headers: [(name: String, value: String)] = []
        if body != nil { headers.append(("Content-Type", "application/x-www-form-urlencoded")) }
        return try await AsyncHTTPClientTransport.shared.send(
            HTTPRequest(method: method, url: url, headers: headers, body: body.map { Array($0.utf8) } ?? []))
    }

    @Test func bindsLoopbackAndDeliversTheOneCallback() async throws {
        let listener = try await LoopbackRedirectListener.start()
        defer { listener.close() }
        #expect(listener.redirectURI == "http://127.0.0.1:\(listener.port)/callback")
        #expect(listener.port > 0)

        let favicon = try await Self.get("http://127.0.0.1:\(listener.port)/favicon.ico")
        #expect(favicon.status == 404)

        let page = try await Self.get(listener.redirectURI + "?code=abc&state=xyz")
        #expect(page.status == 200)
        #expect(String(decoding: page.body, as: UTF8.self).contains("Return to the application"))

        let response = try await listener.waitForCallback(timeout: .seconds(5))
        #expect(response.parameters == ["code": "abc", "state": "xyz"])
    }

    @Test func acceptsFormPost() async throws {
        let listener = try await LoopbackRedirectListener.start()
        defer { listener.close() }
        _ = try await Self.get(listener.redirectURI, method: "POST", body: "code=posted&state=s")
        let response = try await listener.waitForCallback(timeout: .seconds(5))
        #expect(response.parameters["code"] == "posted")
    }

    @Test func onlyTheFirstCallbackCounts() async throws {
        let listener = try await LoopbackRedirectListener.start()
        defer { listener.close() }
        _ = try await Self.get(listener.redirectURI + "?code=first&state=s")
        let second = try? await Self.get(listener.redirectURI + "?code=second&state=s")
        #expect(second.map { $0.status != 200 } ?? true)
        #expect(try await listener.waitForCallback(timeout: .seconds(5)).parameters["code"] == "first")
    }

    @Test func timesOut() async throws {
        let listener = try await LoopbackRedirectListener.start()
        defer { listener.close() }
        let error = await #expect(throws: FederateError.self) { try await listener.waitForCallback(timeout: .milliseconds(200)) }
        #expect(error?.code == .callbackTimeout)
    }

    @Test func refusesNonLoopbackHosts() async throws {
        for host in ["0.0.0.0", "localhost", "192.168.1.1", "::"] {
            await #expect(throws: FederateError.self) { try await LoopbackRedirectListener.start(host: host) }
        }
    }

    @Test func listensOnIPv6Loopback() async throws {
        let listener: LoopbackRedirectListener
        do {
            listener = try await LoopbackRedirectListener.start(host: "::1")
        } catch {
            // Not every container has ::1 (the IPv4 path is covered above); the failure must still be typed.
            #expect((error as? FederateError)?.code == .invalidConfiguration)
            return
        }
        defer { listener.close() }
        #expect(listener.redirectURI == "http://[::1]:\(listener.port)/callback")
    }
}
