import Federate
import FederateTestSupport
import Foundation

/// A browser: a cookie jar and redirect-following by hand.
final class TestBrowser: @unchecked Sendable {
    private let lock = NSLock()
    private var jar: [String: String] = [:]
    private var sent: [String] = []

    /// Every URL requested, in order.
    var history: [String] { lock.withLock { sent } }

    func cookie(_ name: String) -> String? { lock.withLock { jar[name] } }

    /// Sets (or replaces) a cookie, as a page or another site might.
    func setCookie(_ name: String, _ value: String) { lock.withLock { jar[name] = value } }

    /// The names of the cookies held.
    var cookieNames: [String] { lock.withLock { Array(jar.keys) } }

    func send(
        _ url: String, method: String = "GET", body: String? = nil, headers: [(String, String)] = []
    ) async throws -> Federate.HTTPResponse {
        var all = headers.map { (name: $0.0, value: $0.1) }
        let cookies = lock.withLock {
            sent.append(url)
            return jar.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        }
        if url.hasPrefix("http://127.0.0.1"), !cookies.isEmpty { all.append((name: "Cookie", value: cookies)) }
        if body != nil { all.append((name: "Content-Type", value: "application/x-www-form-urlencoded")) }
        let response = try await PatientTransport.shared.send(
            Federate.HTTPRequest(
                method: method, url: url, headers: all, body: body.map { Array($0.utf8) }))
        for header in response.headers where header.name.lowercased() == "set-cookie" {
            let pair = header.value.split(separator: ";")[0]
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<equals]), value = String(pair[pair.index(after: equals)...])
            lock.withLock {
                if header.value.contains("Max-Age=0") { jar.removeValue(forKey: name) } else { jar[name] = value }
            }
        }
        return response
    }

    /// Follows redirects from `url`, submitting an auto-posting form like a browser; returns the last response.
    /// Follows redirects and auto-submitted forms; on the dev provider's sign-in page (its
    /// login prompt), signs in as `pick` when given, else stops there.
    func navigate(
        _ url: String, origin: String, pick: String? = nil, fields extra: [String: String] = [:]
    ) async throws -> Federate.HTTPResponse {
        // A navigation from a page of `origin`: `Sec-Fetch-Site: same-origin` as long as every
        // hop stayed on that origin, as browsers send it (a hop elsewhere taints the chain).
        var sameOrigin = url.hasPrefix(origin + "/")
        func fetchSite(_ url: String) -> [(String, String)] {
            sameOrigin = sameOrigin && url.hasPrefix(origin + "/")
            return [("Sec-Fetch-Site", sameOrigin ? "same-origin" : "cross-site")]
        }
        var response = try await send(url, headers: fetchSite(url))
        var current = url
        for _ in 0..<10 {
            if let location = response.header("Location"), [302, 303].contains(response.status) {
                current = location.hasPrefix("/") ? origin + location : location
                response = try await send(current, headers: fetchSite(current))
            } else if response.status == 200, let action = Self.formAction(response.body) {
                let fields = HTMLForm.hiddenFields(String(decoding: response.body, as: UTF8.self))
                response = try await send(
                    action, method: "POST", body: FormURLEncoding.encode(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
            } else if response.status == 200, let pick, var action = Self.pickerAction(response.body) {
                var fields = HTMLForm.hiddenFields(String(decoding: response.body, as: UTF8.self))
                fields["user"] = pick
                fields.merge(extra) { _, chosen in chosen }
                if action.hasPrefix("/"), let page = URLComponents(string: current), let scheme = page.scheme, let host = page.host {
                    action = "\(scheme)://\(host)\(page.port.map { ":\($0)" } ?? "")" + action
                }
                response = try await send(
                    action, method: "POST", body: FormURLEncoding.encode(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
            } else {
                break
            }
        }
        return response
    }

    /// The action of the dev provider's sign-in page (a form of `user` buttons), if this is it.
    static func pickerAction(_ body: [UInt8]) -> String? {
        let html = String(decoding: body, as: UTF8.self)
        guard html.contains("name=\"user\""), let start = html.range(of: "action=\""),
            let end = html[start.upperBound...].firstIndex(of: "\"")
        else { return nil }
        return String(html[start.upperBound..<end]).replacingOccurrences(of: "&amp;", with: "&")
    }

    static func formAction(_ body: [UInt8]) -> String? {
        let html = String(decoding: body, as: UTF8.self)
        guard html.contains("document.forms[0].submit()"), let start = html.range(of: "action=\""),
            let end = html[start.upperBound...].firstIndex(of: "\"")
        else { return nil }
        return String(html[start.upperBound..<end]).replacingOccurrences(of: "&amp;", with: "&")
    }
}
