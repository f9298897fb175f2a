import Federate
import FederateHummingbird
import FederateMCP
import FederateTestSupport
import Foundation
import Hummingbird
import MCP
import Testing
@testable import FederateServer

/// Routes are checked before they are mounted: an overlap is `invalid_configuration` naming
/// both routes, never Hummingbird's precondition failure nor a silent takeover.
@Suite("Route overlaps")
struct RouteOverlapTests {
    @Test func theRule() {
        let overlapping: [(String, String)] = [
            ("/mcp", "/mcp"), ("/mcp", "mcp/"), ("/auth/:provider/callback", "/auth/as/callback"),
            ("/auth/{provider}/start", "/auth/:name/start"), ("/", ""), ("/files/**", "/files/a/b"), ("/a/*", "/a/b"),
            ("/api/whoami", "/api/whoami"),
        ]
        for (a, b) in overlapping { #expect(RouteOverlap.overlaps(a, b) && RouteOverlap.overlaps(b, a), "\(a) ~ \(b)") }
        let apart: [(String, String)] = [
            ("/mcp", "/MCP"), ("/mcp", "/%6dcp"), ("/auth/:provider/start", "/auth/signout"), ("/", "/mcp"), ("/a/b", "/a/b/c"),
            ("/K", "/\u{212A}"), ("/caf\u{E9}", "/cafe\u{301}"),
        ]
        for (a, b) in apart { #expect(!RouteOverlap.overlaps(a, b), "\(a) !~ \(b)") }
        #expect(throws: FederateError.self) {
            try RouteOverlap.check("GET", "/healthz", against: [(method: "GET", path: "/healthz")], owner: "x")
        }
        #expect(throws: Never.self) {
            try RouteOverlap.check("POST", "/healthz", against: [(method: "GET", path: "/healthz")], owner: "x")
        }
    }

    static func mcp(resource: String) throws -> ProtectedMCPServer {
        let verifier = AccessTokenVerifier(
            policy: AccessTokenPolicy(issuers: ["https://as.example"], resources: [resource]), keys: JSONWebKeySet.empty)
        let metadata = try ProtectedResourceMetadata(resource: resource, authorizationServers: ["https://as.example"])
        return try ProtectedMCPServer(authenticator: CallerAuthenticator(verifier: verifier, resource: metadata), toolScopes: [:]) { _ in
            Server(name: "t", version: "1")
        }
    }

    /// Each overlap the probes found: an MCP resource at `/healthz`, at `/api/whoami`, at the
    /// sign-in callback; Federate's routes over a route of the application.
    @Test func anOverlapIsAConfigurationErrorNamingBothRoutes() throws {
        let router = Router(context: FederateContext.self)
        router.get("/healthz") { _, _ in "ok" }
        router.get("/api/whoami") { _, _ in "me" }
        router.get("/auth/{provider}/callback") { _, _ in "app's own" }
        for (resource, named) in [
            ("https://app.example/healthz", "/healthz"), ("https://app.example/api/whoami", "/api/whoami"),
            ("https://app.example/auth/as/callback", "/auth/{provider}/callback"),
        ] {
            do {
                try ServerRoutes<FederateContext>(try Self.mcp(resource: resource).routes, owner: "the MCP server").register(on: router)
                Issue.record("\(resource) was mounted")
            } catch let error as FederateError {
                #expect(error.code == .invalidConfiguration && error.message.contains(named), "\(error.message)")
            } catch {
                Issue.record("\(error)")
            }
        }
        // Nothing was mounted by the refused registrations.
        #expect(router.routes.count == 3)
    }

    /// An MCP server whose resource is a bare origin: `POST` and `DELETE /`, and `GET /` stays the site's.
    @Test func anMCPServerAtABareOriginLeavesGETToTheSite() throws {
        let router = Router(context: FederateContext.self)
        try ServerRoutes<FederateContext>(try Self.mcp(resource: "https://mcp.example").routes, owner: "the MCP server").register(
            on: router)
        let mounted = Set(router.routes.map { "\($0.method.rawValue) \($0.path)" })
        #expect(mounted.contains("POST /") && mounted.contains("DELETE /") && !mounted.contains("GET /"), "\(mounted)")
        try RouteOverlap.check("GET", "/", against: router.federateMountedRoutes, owner: "the site")
        router.get("/") { _, _ in "home" }
    }
}
