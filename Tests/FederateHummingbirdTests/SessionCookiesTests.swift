import Federate
@testable import FederateServer
import Testing

/// The cookies' names and attributes: `__Host-` over HTTPS, `SameSite=None` only where a
/// provider posts its callback cross-site.
@Suite struct SessionCookiesTests {
    @Test func sessionAndCSRFCookiesUseTheHostPrefixOverHTTPS() {
        #expect(SessionCookies.sessionName(secure: true) == "__Host-federate_session")
        #expect(SessionCookies.csrfName(secure: true) == "__Host-federate_csrf")
        #expect(SessionCookies.sessionName(secure: false) == "federate_session")
        #expect(FederateServerConfiguration.usesSecureCookies(origin: "https://app.example"))
        #expect(!FederateServerConfiguration.usesSecureCookies(origin: "http://127.0.0.1:8080"))
    }

    @Test func pendingCookiesAreNamedFromTheStateWithoutRevealingIt() {
        let state = "s3cr3t-state-value-0123456789abcdefghijkl"
        let name = SessionCookies.pendingName(state: state)
        #expect(name.hasPrefix(SessionCookies.pendingPrefix) && name.utf8.count == SessionCookies.pendingPrefix.utf8.count + 16)
        #expect(name == SessionCookies.pendingName(state: state) && name != SessionCookies.pendingName(state: state + "x"))
        #expect(!name.contains("s3cr3t"))
    }

    @Test func attributes() {
        let session = SessionCookies.session("t", maxAge: 60, secure: true).headerValue
        #expect(
            session.hasPrefix("__Host-federate_session=t;") && session.components(separatedBy: "; ").contains("Path=/")
                && session.contains("Secure") && !session.contains("Domain"))
        #expect(session.contains("HttpOnly") && session.contains("SameSite=Lax"))
        let csrf = SessionCookies.csrf("c", secure: true).headerValue
        #expect(
            csrf.hasPrefix("__Host-federate_csrf=c;") && csrf.components(separatedBy: "; ").contains("Path=/") && csrf.contains("Secure")
                && csrf.contains("SameSite=Strict"))
        #expect(!csrf.contains("HttpOnly"))  // the page's script repeats it in X-CSRF-Token
        // SameSite=None only for a form_post flow over HTTPS (Apple's cross-site POST).
        let apple = SessionCookies.pending("v", state: "s", path: "/auth/apple", secure: true, formPost: true).headerValue
        let google = SessionCookies.pending("v", state: "s", path: "/auth/google", secure: true, formPost: false).headerValue
        #expect(
            apple.contains("SameSite=None") && apple.contains("Secure") && apple.components(separatedBy: "; ").contains("Path=/auth/apple"))
        #expect(google.contains("SameSite=Lax"))
        #expect(
            SessionCookies.pending("v", state: "s", path: "/auth/apple", secure: false, formPost: true).headerValue.contains("SameSite=Lax")
        )
    }
}
