import Federate
import FederateTestSupport
import Foundation
import Testing

@Suite("Loopback redirect listener")
struct LoopbackRedirectListenerTests {
    static func get(_ url: String, method: String = "GET", body: String? = nil) async throws -> HTTPResponse {
        var headers: [(name: String, value: String)] = []
        if body != nil { headers.append(("Content-Type", "application/x-www-form-urlencoded")) }
        return try await PatientTransport.shared.send(
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

        let response = try await listener.waitForCallback(timeout: .seconds(60))
        #expect(response.parameters == ["code": "abc", "state": "xyz"])
    }

    @Test func acceptsFormPost() async throws {
        let listener = try await LoopbackRedirectListener.start()
        defer { listener.close() }
        _ = try await Self.get(listener.redirectURI, method: "POST", body: "code=posted&state=s")
        let response = try await listener.waitForCallback(timeout: .seconds(60))
        #expect(response.parameters["code"] == "posted")
    }

    @Test func onlyTheFirstCallbackCounts() async throws {
        let listener = try await LoopbackRedirectListener.start()
        defer { listener.close() }
        _ = try await Self.get(listener.redirectURI + "?code=first&state=s")
        let second = try? await Self.get(listener.redirectURI + "?code=second&state=s")
        #expect(second.map { $0.status != 200 } ?? true)
        #expect(try await listener.waitForCallback(timeout: .seconds(60)).parameters["code"] == "first")
    }

    /// A page of another site can hit the port: a callback with another state, or none, is
    /// ignored and the listener keeps waiting for the flow's own.
    @Test func callbacksOfAnotherFlowAreIgnored() async throws {
        let listener = try await LoopbackRedirectListener.start()
        defer { listener.close() }
        listener.expect(state: "the-right-state")
        let wrong = try await Self.get(listener.redirectURI + "?code=evil&state=another")
        #expect(wrong.status == 400 && String(decoding: wrong.body, as: UTF8.self).contains("not the sign-in"))
        let none = try await Self.get(listener.redirectURI + "?error=access_denied")
        #expect(none.status == 400)
        let right = try await Self.get(listener.redirectURI + "?code=good&state=the-right-state")
        #expect(right.status == 200)
        #expect(try await listener.waitForCallback(timeout: .seconds(60)).parameters["code"] == "good")
    }

    /// A malformed callback (duplicated `code`, query or `form_post`) carrying the flow's own
    /// `state` exactly once ends the wait at once with its error; one that cannot be tied to the
    /// flow (another state, `state` twice, a state that does not decode) is still ignored.
    @Test(arguments: ["GET", "POST"])
    func aMalformedCallbackWithTheFlowsStateEndsTheWait(method: String) async throws {
        let listener = try await LoopbackRedirectListener.start()
        defer { listener.close() }
        listener.expect(state: "the-right-state")
        for untied in [
            "code=a&code=b&state=another", "code=a&code=b&state=the-right-state&state=the-right-state", "code=a&code=b",
            "code=a&code=b&state=%ZZ", "code=%ZZ&state=the-right-state%",
        ] {
            let ignored =
                method == "GET"
                ? try await Self.get(listener.redirectURI + "?" + untied)
                : try await Self.get(listener.redirectURI, method: "POST", body: untied)
            #expect(ignored.status == 400, "\(untied)")
        }
        let malformed = "code=a&code=b&state=the-right-state"
        _ =
            method == "GET"
            ? try await Self.get(listener.redirectURI + "?" + malformed)
            : try await Self.get(listener.redirectURI, method: "POST", body: malformed)
        await #expect(throws: FederateError.self) {
            do throws(FederateError) {
                _ = try await listener.waitForCallback(timeout: .seconds(60))
            } catch {
                #expect(error.code == .invalidCallback)
                throw error
            }
        }
    }

    /// With `answerAfterFinish`, the page waits for the app's outcome: it says the sign-in
    /// finished only when the app says the exchange worked.
    @Test(arguments: [true, false])
    func thePageTellsTheOutcome(succeeded: Bool) async throws {
        let listener = try await LoopbackRedirectListener.start(answerAfterFinish: true)
        defer { listener.close() }
        async let page = Self.get(listener.redirectURI + "?code=abc&state=s")
        _ = try await listener.waitForCallback(timeout: .seconds(60))
        await listener.finish(succeeded: succeeded)
        let text = String(decoding: try await page.body, as: UTF8.self)
        #expect(text.contains(succeeded ? "The sign-in finished" : "did not finish"), "\(text)")
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
