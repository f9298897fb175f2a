import Federate
import Foundation
import Hummingbird

extension DevRoutes {
    /// `GET/POST /authorize`: validates the request, picks the user (the `user` field of the
    /// picker page, `login_hint`, or the auto-approve user) and answers with a code.
    ///
    /// Like a real provider with single sign-on, a user picked on the page "authenticates"
    /// there and then: that starts the provider's session for them, and `auth_time` is now.
    /// A silent approval (`login_hint`, the auto-approve user) reuses that session, so its
    /// `auth_time` is when the session began. `prompt=login`, or a `max_age` the session is
    /// older than, shows the page instead of approving silently (`prompt=none` then answers
    /// `login_required`) — what OpenID Connect Core §3.1.2.1 asks of a provider. So does a
    /// request for an `acr` (`acr_values`, `claims`) the session's method does not meet: the
    /// page's `method` field then chooses how the user authenticates (``DevAuthenticationMethod``),
    /// and an essential `acr` still unmet answers `unmet_authentication_requirements`.
    func authorize(query: String) async -> Response {
        guard let raw = try? FormURLEncoding.decode(query) else {
            return page(status: .badRequest, title: "Bad request", body: "<p>The request has malformed or repeated parameters.</p>")
        }
        // A pushed request (`request_uri`) or a request object (`request`) stands for the parameters.
        let parameters: [String: String]
        switch await resolveAuthorizationParameters(raw) {
        case .success(let resolved): parameters = resolved
        case .failure(let refusal): return refusal.response
        }
        guard let client = client(parameters["client_id"]) else {
            return page(status: .badRequest, title: "Unknown client", body: "<p>No client with this client_id is registered.</p>")
        }
        guard let redirectURI = parameters["redirect_uri"], client.accepts(redirectURI: redirectURI) else {
            // Never redirect to an unregistered URI.
            return page(status: .badRequest, title: "Redirect URI mismatch", body: "<p>redirect_uri is not registered for this client.</p>")
        }
        let mode = parameters["response_mode"] ?? "query"
        guard ["query", "fragment", "form_post"].contains(mode) else {
            return redirect(
                redirectURI, mode: "query", [("error", "invalid_request"), ("error_description", "unsupported response_mode")],
                state: parameters["state"])
        }
        func fail(_ error: String, _ description: String) -> Response {
            redirect(redirectURI, mode: mode, [("error", error), ("error_description", description)], state: parameters["state"])
        }
        // The person pressed Cancel on the sign-in page: the provider answers access_denied,
        // with state, to the registered redirect URI (RFC 6749 §4.1.2.1), as a real one does.
        if parameters["cancel"] != nil { return fail("access_denied", "the user cancelled the sign-in") }
        guard parameters["response_type"] == "code" else { return fail("unsupported_response_type", "only response_type=code") }
        if let error = client.authorizationError { return fail(error, "injected by the dev provider's client configuration") }
        let scopes = (parameters["scope"] ?? "").split(separator: " ").map(String.init)
        // The generic flavour also serves plain OAuth 2.0 clients of an API (an MCP client asks for
        // `mcp:tools` and a `resource`, not `openid`): they get an access token and no ID token.
        // GitHub's flavour is OAuth 2.0 alone.
        guard scopes.contains("openid") || flavor == .generic || flavor == .github else {
            return fail("invalid_scope", "scope must contain openid")
        }
        if flavor == .apple, scopes.contains("name") || scopes.contains("email"), mode != "form_post" {
            return fail("invalid_request", "response_mode must be form_post when name or email scope is requested")
        }
        guard let challenge = parameters["code_challenge"], parameters["code_challenge_method"] == "S256", challenge.utf8.count == 43 else {
            return fail("invalid_request", "PKCE with code_challenge_method=S256 is required")
        }
        let stepUp: DevStepUp
        do { stepUp = try DevStepUp(parameters) } catch { return fail("invalid_request", error.description) }
        var pickedMethod: DevAuthenticationMethod?
        if let name = parameters["method"] {
            guard let method = DevAuthenticationMethod(rawValue: name) else {
                return fail("invalid_request", "unknown authentication method")
            }
            pickedMethod = method
        }
        let resource = parameters["resource"]
        if let resource, !DevAccessTokens.isResource(resource) {
            return fail("invalid_target", "resource must be an absolute URI without a fragment (RFC 8707)")
        }
        let picked = parameters["user"]
        let chosen = picked ?? parameters["login_hint"] ?? configuration.autoApproveSubject
        guard let user = user(chosen) else {
            if parameters["prompt"] == "none" { return fail("login_required", "no signed-in user") }
            return picker(parameters, resubmit: raw, stepUp: stepUp)
        }
        let now = configuration.clock.now
        let session = state.ssoSessions.withLock { $0[user.subject] }
        let authTime: Date
        let method: DevAuthenticationMethod
        if picked != nil {
            authTime = now
            method = pickedMethod ?? user.authenticationMethod ?? .password
            state.startSSOSession(user.subject, at: now)
            state.ssoMethods.withLock { $0[user.subject] = method }
        } else {
            let sessionMethod = session == nil ? nil : state.ssoMethods.withLock { $0[user.subject] }
            method = sessionMethod ?? user.authenticationMethod ?? .password
            let maxAge = parameters["max_age"].flatMap(Double.init)
            let tooOld = maxAge.map { limit in session.map { now.timeIntervalSince($0) > limit } ?? true } ?? false
            let tooWeak = !stepUp.isMet(by: method)
            // GitHub ignores prompt and max_age: it approves from its session.
            if parameters["prompt"] == "login" || tooOld || tooWeak, !client.faults.contains(.ignoresPrompt), flavor != .github {
                if parameters["prompt"] == "none" { return fail("login_required", "the user must sign in again") }
                return picker(parameters, resubmit: raw, stepUp: stepUp)
            }
            authTime = session ?? now
            if session == nil {
                state.startSSOSession(user.subject, at: now)
                state.ssoMethods.withLock { $0[user.subject] = method }
            }
        }
        if stepUp.essential, !stepUp.isMet(by: method) {
            return fail("unmet_authentication_requirements", "the essential acr was not met")
        }
        var loggedIn = user
        if stepUp.asksForACR || user.authenticationMethod != nil || pickedMethod != nil {
            loggedIn.login = DevLogin(method: method, acr: method.assertedACR(for: stepUp.requested))
        }
        // Granular consent: the user may leave scopes unticked (never `openid`).
        var granted = scopes.filter { $0 == "openid" || !user.refusedScopes.contains($0) }
        let before = state.recordGrant(clientID: client.id, subject: user.subject, scopes: granted)
        if flavor == .google, parameters["include_granted_scopes"] == "true", let before {
            granted += before.subtracting(granted).sorted()
        }
        consumePushedRequest(raw)
        let code = DevRandom.token()
        state.codes.withLock {
            $0[ExactString(code)] = DevCodeGrant(
                clientID: client.id, redirectURI: redirectURI, user: loggedIn, nonce: parameters["nonce"], codeChallenge: challenge,
                scopes: granted, authTime: authTime, expiresAt: now.addingTimeInterval(60), resource: resource)
        }
        state.dpop.bind(code: code, to: parameters["dpop_jkt"])
        var response = [("code", code)]
        // Apple posts the user's name and email once: on the first authorization of this client.
        if flavor == .apple, before == nil, scopes.contains("name") || scopes.contains("email") {
            response.append(("user", appleUserJSON(user, scopes: scopes)))
        }
        return redirect(redirectURI, mode: mode, response, state: parameters["state"])
    }

    /// Apple's one-time `user` form field.
    func appleUserJSON(_ user: DevUser, scopes: [String]) -> String {
        var object: [String: JSONValue] = [:]
        if scopes.contains("name") { object["name"] = ["firstName": .string(user.givenName), "lastName": .string(user.familyName)] }
        if scopes.contains("email") { object["email"] = .string(user.email) }
        return String(decoding: JSONSerializer.bytes(.object(object)), as: UTF8.self)
    }

    /// Sends the browser back with `parameters`, `state` and the RFC 9207 `iss`.
    func redirect(_ redirectURI: String, mode: String, _ parameters: [(String, String)], state: String?) -> Response {
        var all = parameters
        if let state { all.append(("state", state)) }
        // Apple, Entra and GitHub send no RFC 9207 `iss`.
        if flavor != .apple, flavor != .microsoft, flavor != .github { all.append(("iss", issuer)) }
        switch mode {
        case "form_post":
            let fields = all.map { "<input type=\"hidden\" name=\"\(html($0.0))\" value=\"\(html($0.1))\">" }.joined()
            return page(
                status: .ok, title: "Signing in",
                body: """
                    <form method="post" action="\(html(redirectURI))">\(fields)<noscript><button>Continue</button></noscript></form>
                    <script>document.forms[0].submit()</script>
                    """)
        case "fragment":
            return Response(status: .found, headers: [.location: redirectURI + "#" + FormURLEncoding.encode(all)])
        default:
            let separator = redirectURI.contains("?") ? "&" : "?"
            return Response(status: .found, headers: [.location: redirectURI + separator + FormURLEncoding.encode(all)])
        }
    }

    /// The page listing test users; choosing one POSTs the request back with `user`, and
    /// Cancel POSTs it back with `cancel` (answered `error=access_denied`). `resubmit` are the
    /// parameters to post back when they differ from those shown (a pushed request's `request_uri`).
    func picker(_ parameters: [String: String], resubmit: [String: String]? = nil, stepUp: DevStepUp? = nil) -> Response {
        let hidden = (resubmit ?? parameters).sorted { $0.key < $1.key }.filter {
            $0.key != "user" && $0.key != "cancel" && $0.key != "method"
        }
        .map { "<input type=\"hidden\" name=\"\(html($0.key))\" value=\"\(html($0.value))\">" }.joined()
        let buttons = configuration.users.map { user in
            "<li style=\"margin: .4em 0\"><button style=\"font: inherit; padding: .45em .9em\" name=\"user\" value=\"\(html(user.subject))\">\(html(user.name)) &lt;\(html(user.email))&gt;</button></li>"
        }.joined()
        let flavorName =
            [
                "generic": "", "google": " — Google flavour", "apple": " — Apple flavour", "firebase": " — Firebase flavour",
                "github": " — GitHub flavour",
            ][flavor.rawValue] ?? ""
        return page(
            status: .ok, title: "Federate dev provider: sign in",
            body: """
                <h1>Sign in as…</h1><p><strong>\(html(parameters["client_id"] ?? "An app"))</strong> asks who you are \
                (scopes: \(html(parameters["scope"] ?? "")))\(html(flavorName)).</p>
                <form method="post" action="\(html(endpoints.authorize))">\(hidden)\(methodChoice(stepUp))<ul style="list-style: none; padding: 0">\(buttons)</ul>
                <button id="cancel" style="font: inherit; padding: .45em .9em" name="cancel" value="1">Cancel</button></form>
                <p style="color: #6e6e73">This is Federate's development provider: no passwords, test users only.</p>
                """)
    }

    func page(status: HTTPResponse.Status, title: String, body: String) -> Response {
        let document = """
            <!doctype html><html><head><meta charset="utf-8"><title>\(html(title))</title></head>
            <body style="font-family: system-ui, sans-serif; margin: 3em">\(body)</body></html>
            """
        return Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: document)))
    }

    func html(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;")
    }
}

/// Random tokens for codes and tokens.
enum DevRandom {
    static func token() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
