public import Federate
import HTTPTypes

/// Cross-site request forgery protection for state-changing routes: the request must come
/// from this server's own pages.
///
/// Two checks, both required for unsafe methods (POST, PUT, PATCH, DELETE):
/// - `Origin` (or, without it, `Referer`) names this server's origin — browsers send it on
///   every cross-origin POST and cannot be made to forge it;
/// - the `X-CSRF-Token` header equals the `federate_csrf` cookie (double submit): a page
///   of another site can neither read the cookie nor set the header without CORS.
///
/// The provider callback is exempt: Apple POSTs it cross-site, and its `state` parameter,
/// bound to the sealed pending-authorization cookie, is its CSRF protection.
struct CSRFCheck: Sendable {
    /// The cookie holding the token on loopback HTTP; over HTTPS it is
    /// `__Host-federate_csrf` (``SessionCookies/csrfName(secure:)``).
    static let cookieName = "federate_csrf"
    /// The header that must repeat it.
    static let headerName = "X-CSRF-Token"
    /// ``headerName`` as a field name (a valid name: the fallback, a name no request uses, is never taken).
    static let headerField = HTTPField.Name(headerName) ?? HTTPField.Name("X-Federate-Unused") ?? .accept

    /// This server's origin, e.g. `https://app.example` (scheme, host and port, no path).
    let origin: String

    /// Creates a check for `origin`.
    init(origin: String) {
        self.origin = origin
    }

    /// Whether `method` changes state and so must pass the check.
    static func isUnsafe(_ method: String) -> Bool {
        !["GET", "HEAD", "OPTIONS"].contains(method.uppercased())
    }

    /// Throws `FederateError/Code/csrfFailed` unless the request passes.
    func verify(origin requestOrigin: String?, referer: String?, headerToken: String?, cookieToken: String?) throws(FederateError) {
        let claimed = requestOrigin ?? referer.map(Self.origin(ofURL:))
        // Byte for byte: a look-alike origin whose Unicode form is canonically equal is another origin.
        guard let claimed, claimed.utf8.elementsEqual(origin.utf8) else {
            throw FederateError(.csrfFailed, "the request does not come from this site (Origin/Referer)")
        }
        guard let headerToken, let cookieToken, cookieToken.utf8.count >= 22, ConstantTime.equals(headerToken, cookieToken) else {
            throw FederateError(.csrfFailed, "the \(Self.headerName) header does not match the \(Self.cookieName) cookie")
        }
    }

    /// The fetch metadata header browsers set on every request, navigations included, and that
    /// no page can set or forge (Fetch Metadata Request Headers).
    static let fetchSiteField = HTTPField.Name("Sec-Fetch-Site") ?? .accept

    /// Throws `FederateError/Code/csrfFailed` unless the request is a navigation from one of
    /// this server's own pages: `Sec-Fetch-Site: same-origin`. The check of the `GET` routes
    /// that start something for the signed-in account (a link, a reauthentication): a page of
    /// another site cannot start them, with or without `Referer`, since browsers send
    /// `cross-site` or `same-site` from it. A browser that sends no fetch metadata is refused
    /// too (every current browser sends it; a non-browser client sets the header itself).
    static func requireSameOriginNavigation(_ request: ServerRequest) throws(FederateError) {
        guard let site = request.header(fetchSiteField), site.utf8.elementsEqual("same-origin".utf8) else {
            throw FederateError(
                .csrfFailed, "a link or reauthentication starts from this site's own pages only (Sec-Fetch-Site: same-origin)")
        }
    }

    /// `scheme://host[:port]` of a URL.
    static func origin(ofURL url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return "" }
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return String(url[..<schemeEnd.upperBound]) + authority
    }
}

extension FederateError.Code {
    /// A state-changing request failed the CSRF check (answered 403).
    public static let csrfFailed: Self = "csrf_failed"
}
