import Crypto
import Federate
import Foundation
import Hummingbird

extension DevRoutes {
    /// The GitHub flavour's routes, at GitHub Enterprise Server's paths: no discovery, no keys,
    /// no ID tokens.
    func registerGitHub(on router: Router<BasicRequestContext>) {
        let endpoints = self.endpoints
        router.get(RouterPath(endpoints.authorize)) { request, _ in await self.authorize(query: request.uri.query ?? "") }
        router.post(RouterPath(endpoints.authorize)) { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024)
            return await self.authorize(query: String(buffer: body))
        }
        router.post(RouterPath(endpoints.token)) { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024)
            return await self.gitHubToken(
                form: String(buffer: body), authorization: request.headers[.authorization], accept: request.headers[.accept])
        }
        router.get("/api/v3/user") { request, _ in self.gitHubAPI(request) { grant in self.gitHubUser(grant) } }
        router.get("/api/v3/user/emails") { request, _ in
            self.gitHubAPI(request) { grant in
                // Without the user:email scope GitHub answers 404.
                guard grant.scopes.contains("user:email") || grant.scopes.contains("user") else {
                    return self.json(["message": "Not Found"], status: .notFound)
                }
                return self.json(self.gitHubEmails(grant.user))
            }
        }
        router.delete("/api/v3/applications/{client}/token") { request, context in
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024)
            return await self.gitHubRevoke(
                clientID: context.parameters.get("client"), authorization: request.headers[.authorization], body: Array(buffer: body))
        }
    }

    /// `POST /login/oauth/access_token`: the code with its PKCE verifier, GitHub's way: the
    /// answer is JSON only when asked (`Accept: application/json`), form-encoded otherwise;
    /// scopes comma-separated; errors with HTTP 200; no refresh token, no `expires_in`.
    func gitHubToken(form: String, authorization: String?, accept: String?) async -> Response {
        let wantsJSON = accept?.contains("application/json") == true
        func answer(_ pairs: [(String, String)]) -> Response {
            if wantsJSON {
                return json(.object(Dictionary(uniqueKeysWithValues: pairs.map { ($0.0, JSONValue.string($0.1)) })))
            }
            return Response(
                status: .ok, headers: [.contentType: "application/x-www-form-urlencoded; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: FormURLEncoding.encode(pairs))))
        }
        guard let parameters = try? FormURLEncoding.decode(form) else { return answer([("error", "bad_request")]) }
        guard case .success(let client) = await authenticate(parameters, authorization: authorization, endpoint: baseURL + endpoints.token)
        else {
            return answer([
                ("error", "incorrect_client_credentials"),
                ("error_description", "The client_id and/or client_secret passed are incorrect."),
            ])
        }
        guard let code = parameters["code"], let grant = state.takeCode(code), grant.clientID == client.id else {
            return answer([("error", "bad_verification_code"), ("error_description", "The code passed is incorrect or expired.")])
        }
        if let redirect = parameters["redirect_uri"], redirect != grant.redirectURI {
            return answer([
                ("error", "redirect_uri_mismatch"), ("error_description", "The redirect_uri MUST match the registered callback URL."),
            ])
        }
        if let challenge = grant.codeChallenge {
            guard let verifier = parameters["code_verifier"], Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8)))) == challenge
            else {
                return answer([
                    ("error", "bad_verification_code"), ("error_description", "The code_verifier does not match the code_challenge."),
                ])
            }
        }
        let token = "gho_" + DevRandom.token()
        state.tokens.withLock {
            $0[ExactString(token)] = DevTokenGrant(
                clientID: client.id, user: grant.user, scopes: grant.scopes, authTime: grant.authTime, expiresAt: .distantFuture,
                sibling: nil)
        }
        return answer([("access_token", token), ("token_type", "bearer"), ("scope", grant.scopes.joined(separator: ","))])
    }

    /// A REST API call with `Authorization: Bearer TOKEN` or `token TOKEN`; 401 otherwise.
    func gitHubAPI(_ request: Request, answer: (DevTokenGrant) -> Response) -> Response {
        guard let authorization = request.headers[.authorization], let space = authorization.firstIndex(of: " "),
            ["bearer", "token"].contains(authorization[..<space].lowercased()),
            let grant = state.tokens.withLock({ $0[ExactString(String(authorization[authorization.index(after: space)...]))] })
        else {
            return json(["message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"], status: .unauthorized)
        }
        return answer(grant)
    }

    /// `GET /user`: the numeric `id`, the current `login` (renamed ones included), no public email.
    func gitHubUser(_ grant: DevTokenGrant) -> Response {
        let user = grant.user
        let login = state.gitHubLogins.withLock { $0[user.subject] } ?? user.gitHubLogin ?? user.subject
        let id: JSONValue = Int64(user.subject).map(JSONValue.integer) ?? .string(user.subject)
        return json([
            "login": .string(login), "id": id, "node_id": .string("U_dev" + user.subject), "type": "User", "name": .string(user.name),
            "email": .null, "avatar_url": .string(baseURL + "/avatars/" + user.subject),
        ])
    }

    /// `GET /user/emails`: the primary address (``DevUser/email``), then the others.
    func gitHubEmails(_ user: DevUser) -> JSONValue {
        let primary: JSONValue = [
            "email": .string(user.email), "primary": true, "verified": .bool(user.emailVerified), "visibility": "private",
        ]
        return .array(
            [primary]
                + user.otherEmails.map { email in
                    ["email": .string(email.address), "primary": false, "verified": .bool(email.verified), "visibility": .null]
                })
    }

    /// `DELETE /applications/{client_id}/token` with the app's Basic credentials and
    /// `{"access_token": …}`: 204, or 404 for a token this app does not have.
    func gitHubRevoke(clientID: String?, authorization: String?, body: [UInt8]) async -> Response {
        guard let client = client(clientID),
            case .success(let authenticated) = await authenticate([:], authorization: authorization, endpoint: ""),
            authenticated.id == client.id
        else {
            return json(["message": "Bad credentials"], status: .unauthorized)
        }
        guard let object = try? JSONParser().parseObject(body), case .string(let token)? = object["access_token"] else {
            return json(["message": "Invalid request"], status: .unprocessableContent)
        }
        let removed = state.tokens.withLock { tokens -> Bool in
            guard let grant = tokens[ExactString(token)], grant.clientID == client.id else { return false }
            tokens.removeValue(forKey: ExactString(token))
            return true
        }
        return removed ? Response(status: .noContent) : json(["message": "Not Found"], status: .notFound)
    }
}

extension DevProvider {
    /// GitHub flavour: `subject` renames their login to `login`, as a GitHub user can at any
    /// time; `/user` answers the new login from now on, under the same numeric `id`.
    public func renameGitHubUser(subject: String, to login: String) {
        state.gitHubLogins.withLock { $0[subject] = login }
    }
}
