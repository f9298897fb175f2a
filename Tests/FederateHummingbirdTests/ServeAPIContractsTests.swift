import Federate
import FederateDevProvider
import FederateTestSupport
import Foundation
import Testing

/// `federate serve --config`'s API contracts of issue 28: per-route scopes, the bare challenge
/// for a request without credentials, server DPoP nonces, and the settings it refuses.
@Suite("federate serve API contracts", .serialized)
struct ServeAPIContractsTests {
    static let resource = "https://api.contracts.test"
    /// What every challenge of the API names since it publishes RFC 9728 metadata.
    static let metadata = #"resource_metadata="https://api.contracts.test/.well-known/oauth-protected-resource""#

    static func get(
        _ origin: String, headers: [(String, String)]
    ) async throws -> (status: Int, body: [String: JSONValue], challenges: [String]) {
        let response = try await PatientTransport.shared.send(HTTPRequest(url: origin + "/api/whoami", headers: headers))
        let challenges = response.headers.filter { $0.name.caseInsensitiveEquals("WWW-Authenticate") }.map(\.value)
        return (response.status, (try? JSONParser().parseObject(response.body)) ?? [:], challenges)
    }

    static func corp(_ provider: DevProvider, access: [String: JSONValue]) -> [String: JSONValue] {
        var access = access
        access["provider"] = "corp"
        access["resource"] = .string(resource)
        access["method"] = access["method"] ?? "jwt"
        return [
            "api_bearer_provider": "corp", "api_access_tokens": .object(access),
            "providers": [
                [
                    "name": "corp", "type": "oidc", "issuer": .string(provider.issuer), "client_id": "dev-client",
                    "client_secret_env": "CORP_SECRET",
                ]
            ],
        ]
    }

    /// `required_scopes` per route: a token with the scopes passes, one without gets 403
    /// `insufficient_scope` naming them (RFC 6750 §3.1); an ID token grants no scope.
    @Test(.timeLimit(.minutes(3)), arguments: ["jwt", "introspection"])
    func aRouteRequiresItsScopes(method: String) async throws {
        let provider = try await DevProvider.start()
        defer { Task { try? await provider.stop() } }
        let tokens = try await AccessTokenMiddlewareTests.tokens(provider, resource: Self.resource)
        for (required, granted) in [("orders:read email", true), ("orders:write", false)] {
            let object = Self.corp(provider, access: ["method": .string(method), "required_scopes": ["/api/whoami": .string(required)]])
            try await ServeAccessTokenTests.serve(object, environment: ["CORP_SECRET": "dev-secret"]) { origin in
                let answer = try await Self.get(origin, headers: [("Authorization", "Bearer " + tokens.accessToken)])
                if granted {
                    #expect(answer.status == 200 && answer.body["scope"] == "openid email orders:read", "\(answer)")
                } else {
                    #expect(answer.status == 403 && answer.body["error"] == "insufficient_scope", "\(answer)")
                    #expect(answer.challenges == ["Bearer error=\"insufficient_scope\", scope=\"orders:write\", \(Self.metadata)"])
                }
                let idToken = try await Self.get(origin, headers: [("Authorization", "Bearer " + (tokens.idToken ?? ""))])
                #expect(
                    idToken.status == 403
                        && idToken.challenges == ["Bearer error=\"insufficient_scope\", scope=\"\(required)\", \(Self.metadata)"],
                    "\(idToken)")
            }
        }
    }

    /// No credentials, or another scheme's: 401 with the bare challenges, no `error` (RFC 6750
    /// §3.1): `Bearer`, and with DPoP on, `DPoP algs="…"` too.
    @Test(.timeLimit(.minutes(3)), arguments: [false, true])
    func aRequestWithoutCredentialsGetsTheBareChallenge(dpop: Bool) async throws {
        let provider = try await DevProvider.start()
        defer { Task { try? await provider.stop() } }
        let object = Self.corp(provider, access: ["dpop": .bool(dpop)])
        try await ServeAccessTokenTests.serve(object, environment: ["CORP_SECRET": "dev-secret"]) { origin in
            let algorithms = DPoPProofValidator(replayStore: InMemoryReplayStore()).algorithmsParameter
            let expected = ["Bearer " + Self.metadata] + (dpop ? ["DPoP algs=\"\(algorithms)\", " + Self.metadata] : [])
            for headers: [(String, String)] in [[], [("Authorization", "Basic YTpi")]] {
                let answer = try await Self.get(origin, headers: headers)
                #expect(answer.status == 401 && answer.body["error"] == "missing_bearer_token", "\(answer)")
                #expect(answer.challenges == expected)
            }
            // A malformed header is still an invalid_request.
            let malformed = try await Self.get(origin, headers: [("Authorization", "Bearer a b")])
            #expect(
                malformed.status == 400 && malformed.challenges.first == "Bearer error=\"invalid_request\", " + Self.metadata,
                "\(malformed)")
        }
    }

    /// `dpop_nonces`: a proof without this server's nonce gets 401 `use_dpop_nonce` and a
    /// `DPoP-Nonce`; the same request with it passes. Without the setting, no nonce is asked.
    @Test(.timeLimit(.minutes(3)), arguments: [true, false])
    func dpopNoncesAreRequiredWhenConfigured(nonces: Bool) async throws {
        let provider = try await DevProvider.start()
        defer { Task { try? await provider.stop() } }
        let signer = DPoPProofSigner()
        let client = try await AccessTokenMiddlewareTests.client(provider).withDPoP(signer).withResources([Self.resource])
        let built = try await client.authorizationRequest(
            providerID: "oidc.dev", redirectURI: "http://127.0.0.1:9/callback", scopes: ["openid", "orders:read"])
        let redirect = try await PatientTransport.shared.send(Federate.HTTPRequest(url: built.url))
        let tokens = try await client.finish(
            try AuthorizationResponse(redirectURL: try #require(redirect.header("Location"))), pending: built.pending
        ).tokens
        var access: [String: JSONValue] = ["dpop": true]
        let secret = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        if nonces { access["dpop_nonces"] = ["secret_env": "NONCE_SECRET", "lifetime_seconds": 60] }
        try await ServeAccessTokenTests.serve(
            Self.corp(provider, access: access), environment: ["CORP_SECRET": "dev-secret", "NONCE_SECRET": secret]
        ) { origin in
            let holder = AccessTokenHolder(client: client, tokens: tokens)
            let url = origin + "/api/whoami"
            let first = try await PatientTransport.shared.send(try await holder.authorize(Federate.HTTPRequest(url: url)))
            let body = (try? JSONParser().parseObject(first.body)) ?? [:]
            guard nonces else {
                #expect(first.status == 200 && first.header("DPoP-Nonce") == nil, "\(body)")
                return
            }
            #expect(first.status == 401 && body["error"] == "use_dpop_nonce", "\(body)")
            let challenges = first.headers.filter { $0.name.caseInsensitiveEquals("WWW-Authenticate") }.map(\.value)
            #expect(challenges.last?.hasSuffix("error=\"use_dpop_nonce\", " + Self.metadata) == true, "\(challenges)")
            #expect(signer.remember(nonceFrom: first, of: url))
            let second = try await PatientTransport.shared.send(try await holder.authorize(Federate.HTTPRequest(url: url)))
            #expect(second.status == 200 && second.header("DPoP-Nonce") != nil, "\(String(decoding: second.body, as: UTF8.self))")
        }
    }

    @Test(
        .timeLimit(.minutes(2)),
        arguments: [
            ["provider": "dev", "resource": "https://api", "method": "jwt", "required_scopes": ["/api/orders": "read"]] as JSONValue,
            ["provider": "dev", "resource": "https://api", "method": "jwt", "required_scopes": ["/api/whoami": "read  write"]],
            ["provider": "dev", "resource": "https://api", "method": "jwt", "required_scopes": ["/api/whoami": ""]],
            ["provider": "dev", "resource": "https://api", "method": "jwt", "required_scopes": ["/api/whoami": ["read"]]],
            ["provider": "dev", "resource": "https://api", "method": "jwt", "required_scopes": "read"],
            ["provider": "dev", "resource": "https://api", "method": "jwt", "introspection_endpoint": "https://as.example/introspect"],
            ["provider": "dev", "resource": "https://api", "method": "introspection", "introspection_endpoint": 7],
            ["provider": "dev", "resource": "https://api", "method": "jwt", "dpop_nonces": [:]],
            ["provider": "dev", "resource": "https://api", "method": "jwt", "dpop": true, "dpop_nonces": ["secret_env": "SHORT_SECRET"]],
            ["provider": "dev", "resource": "https://api", "method": "jwt", "dpop": true, "dpop_nonces": ["secret_env": "UNSET_SECRET"]],
            ["provider": "dev", "resource": "https://api", "method": "jwt", "dpop": true, "dpop_nonces": ["lifetime_seconds": 0]],
            ["provider": "dev", "resource": "https://api", "method": "jwt", "dpop": true, "dpop_nonces": true],
        ])
    func settingsItCannotHonourAreRefused(value: JSONValue) async throws {
        let output = try await ServeStartFailureTests.start(
            ["api_access_tokens": value, "providers": [["name": "dev", "type": "dev"]]], environment: ["SHORT_SECRET": "c2hvcnQ="])
        #expect(output.code == "invalid_configuration", "\(output)")
    }

    /// The introspection endpoint named in the file must be one Federate may call: HTTPS, or
    /// HTTP on a loopback host (`EndpointSecurity`).
    @Test(
        .timeLimit(.minutes(2)),
        arguments: [
            ("http://as.example/introspect", "insecure_endpoint"), ("ftp://as.example/introspect", "insecure_endpoint"),
            ("introspect", "invalid_url"), ("https://user:pass@as.example/introspect", "invalid_url"),
        ])
    func anIntrospectionEndpointFederateMayNotCallIsRefused(endpoint: String, code: String) async throws {
        let access: JSONValue = [
            "provider": "dev", "resource": "https://api", "method": "introspection", "introspection_endpoint": .string(endpoint),
        ]
        let output = try await ServeStartFailureTests.start(["api_access_tokens": access, "providers": [["name": "dev", "type": "dev"]]])
        #expect(output.code == code, "\(output)")
    }

    /// A `microsoft` provider must say who may sign in: never any tenant by default.
    @Test(
        .timeLimit(.minutes(2)),
        arguments: [
            ["name": "ms", "type": "microsoft", "client_id": "app"] as JSONValue,
            ["name": "ms", "type": "microsoft", "client_id": "app", "account_types": "organizations"],
            ["name": "ms", "type": "microsoft", "client_id": "app", "account_types": "common"],
            [
                "name": "ms", "type": "microsoft", "client_id": "app", "account_types": "common", "any_tenant": true,
                "allowed_tenants": ["72f988bf-86f1-41af-91ab-2d7cd011db47"],
            ],
            ["name": "ms", "type": "microsoft", "client_id": "app", "account_types": "consumers", "any_tenant": true],
            ["name": "ms", "type": "microsoft", "client_id": "app", "account_types": "everyone", "any_tenant": true],
            ["name": "ms", "type": "microsoft", "client_id": "app", "tenant": "contoso.onmicrosoft.com"],
            ["name": "ms", "type": "microsoft", "client_id": "app", "tenant": "72f988bf-86f1-41af-91ab-2d7cd011db47", "any_tenant": true],
            ["name": "ms", "type": "microsoft", "client_id": "app", "account_types": "organizations", "allowed_tenants": ["not-a-guid"]],
            ["name": "ms", "type": "microsoft", "client_id": "app", "account_types": "organizations", "allowed_tenants": []],
            ["name": "ms", "type": "microsoft", "client_id": "app", "account_types": "organizations", "any_tenant": "yes"],
            [
                "name": "ms", "type": "microsoft", "client_id": "app", "account_types": "organizations",
                "allowed_tenants": ["9188040d-6c67-4c5b-b112-36a304b66dad"],
            ],
        ])
    func aMicrosoftProviderWithoutAClearAudienceIsRefused(entry: JSONValue) async throws {
        let output = try await ServeStartFailureTests.start(["providers": [entry]])
        #expect(output.code == "invalid_configuration", "\(output)")
    }
}
