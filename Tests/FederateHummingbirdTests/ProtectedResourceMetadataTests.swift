import Federate
@testable import FederateServer
import Foundation
import HTTPTypes
import Testing

/// RFC 9728 protected resource metadata: the document against the RFC's own example (§3.2),
/// the well-known location (§3.1), `resource_metadata` in every challenge (§5.1), and
/// identifiers the RFC does not allow refused.
@Suite("Protected resource metadata (RFC 9728)")
struct ProtectedResourceMetadataTests {
    /// RFC 9728 §3.2's example response.
    static let rfcExample = """
        {
          "resource":
            "https://resource.example.com",
          "authorization_servers":
            ["https://as1.example.com",
             "https://as2.example.net"],
          "bearer_methods_supported":
            ["header", "body"],
          "scopes_supported":
            ["profile", "email", "phone"],
          "resource_documentation":
            "https://resource.example.com/resource_documentation.html"
        }
        """

    @Test func theDocumentIsTheRFCsExample() throws {
        let metadata = try ProtectedResourceMetadata(
            resource: "https://resource.example.com", authorizationServers: ["https://as1.example.com", "https://as2.example.net"],
            scopesSupported: ["profile", "email", "phone"],
            resourceDocumentation: "https://resource.example.com/resource_documentation.html")
        var expected = try JSONParser().parseObject(Array(Self.rfcExample.utf8))
        // Federate reads tokens from the Authorization header only, and says so: the example's
        // server also took them in the body (RFC 6750 §2.2), which Federate never does.
        expected["bearer_methods_supported"] = ["header"]
        #expect(metadata.json == .object(expected))
        #expect(metadata.metadataURL == "https://resource.example.com/.well-known/oauth-protected-resource")
        let response = metadata.response
        #expect(response.status == .ok && response.headers[.contentType] == "application/json")
        #expect(try JSONParser().parse(response.body) == .object(expected))
    }

    @Test func theWellKnownURLInsertsThePathAfterTheHost() throws {
        // §3.1: "https://resource.example.com/resource1" → ".../.well-known/oauth-protected-resource/resource1".
        let metadata = try ProtectedResourceMetadata(
            resource: "https://resource.example.com/resource1", authorizationServers: ["https://as1.example.com"])
        #expect(metadata.metadataPath == "/.well-known/oauth-protected-resource/resource1")
        #expect(metadata.metadataURL == "https://resource.example.com/.well-known/oauth-protected-resource/resource1")
        let root = try ProtectedResourceMetadata(
            resource: "https://resource.example.com/", authorizationServers: ["https://as1.example.com"])
        #expect(root.metadataURL == "https://resource.example.com/.well-known/oauth-protected-resource")
        let local = try ProtectedResourceMetadata(resource: "http://127.0.0.1:8080/mcp", authorizationServers: ["http://127.0.0.1:9000"])
        #expect(local.metadataURL == "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp")
        #expect(local.json["scopes_supported"] == nil && local.json["dpop_signing_alg_values_supported"] == nil)
    }

    @Test(arguments: [
        "http://resource.example.com", "https://resource.example.com/?q=1", "https://resource.example.com/#f",
        "https://user@resource.example.com",
        "resource.example.com", "urn:example:api", "https://resource.example.com/a b", "https://resource.example.com/\u{212A}",
    ])
    func identifiersTheRFCDoesNotAllowAreRefused(resource: String) {
        #expect(throws: FederateError.self) {
            try ProtectedResourceMetadata(resource: resource, authorizationServers: ["https://as.example.com"])
        }
        #expect(throws: FederateError.self) {
            try ProtectedResourceMetadata(resource: "https://resource.example.com", authorizationServers: [resource])
        }
    }

    @Test func otherSettingsAreChecked() {
        #expect(throws: FederateError.self) { try ProtectedResourceMetadata(resource: "https://r.example.com", authorizationServers: []) }
        #expect(throws: FederateError.self) {
            try ProtectedResourceMetadata(
                resource: "https://r.example.com", authorizationServers: ["https://as.example.com"], scopesSupported: ["a b"])
        }
        #expect(throws: FederateError.self) {
            try ProtectedResourceMetadata(
                resource: "https://r.example.com", authorizationServers: ["https://as.example.com"],
                dpopSigningAlgValuesSupported: ["ES256\""])
        }
    }

    /// §5.1's example: `WWW-Authenticate: Bearer resource_metadata="https://resource.example.com/.well-known/oauth-protected-resource"`.
    @Test func everyChallengeNamesTheMetadata() async throws {
        let metadata = try ProtectedResourceMetadata(
            resource: "https://resource.example.com", authorizationServers: ["https://as1.example.com"])
        let authenticator = CallerAuthenticator(verifier: RefusingVerifier(), resource: metadata)
        let url = "https://resource.example.com/.well-known/oauth-protected-resource"
        func challenges(_ headers: HTTPFieldsLiteral) async -> (Int, [String]) {
            do {
                _ = try await authenticator.authenticate(ServerRequest(method: .get, path: "/", headers: headers.fields))
                return (200, [])
            } catch {
                return (Int(error.status.code), error.serverResponse.headers[values: .wwwAuthenticate])
            }
        }
        #expect(await challenges([]) == (401, ["Bearer resource_metadata=\"\(url)\""]))
        #expect(await challenges([("Authorization", "Basic dTpw")]) == (401, ["Bearer resource_metadata=\"\(url)\""]))
        #expect(
            await challenges([("Authorization", "Bearer a b")]) == (400, ["Bearer error=\"invalid_request\", resource_metadata=\"\(url)\""])
        )
        #expect(
            await challenges([("Authorization", "Bearer abc")]) == (401, ["Bearer error=\"invalid_token\", resource_metadata=\"\(url)\""]))
        let caller = VerifiedToken(
            kind: .accessToken, providerID: nil, issuer: "https://as1.example.com", subject: "alice", clientID: "c", scopes: ["a"],
            expiresAt: nil,
            confirmation: nil, claims: [:])
        #expect(throws: BearerChallenge.self) {
            try BearerChallenge.requireScopes(["b"], of: caller, presentations: [BearerPresentation()], resource: metadata)
        }
        do {
            try BearerChallenge.requireScopes(["b"], of: caller, presentations: [BearerPresentation()], resource: metadata)
        } catch {
            #expect(
                error.serverResponse.headers[values: .wwwAuthenticate] == [
                    "Bearer error=\"insufficient_scope\", scope=\"b\", resource_metadata=\"\(url)\""
                ])
        }
        let stepUp = StepUpChallenge(acrValues: ["phrh"], maxAge: .seconds(300), description: "a \"stronger\" one\r\nX: y").error(
            FederateError(.insufficientAuthenticationLevel, "x"), resourceMetadata: url)
        #expect(
            stepUp.headers[.wwwAuthenticate]
                == "Bearer error=\"insufficient_user_authentication\", error_description=\"a stronger oneX: y\", acr_values=\"phrh\", max_age=300, resource_metadata=\"\(url)\""
        )
    }

    /// A look-alike origin — canonically equal to this site's, other bytes — is another origin.
    @Test func theCSRFCheckComparesOriginsByBytes() throws {
        let check = CSRFCheck(origin: "https://caf\u{E9}.example")
        let token = String(repeating: "t", count: 32)
        try check.verify(origin: "https://caf\u{E9}.example", referer: nil, headerToken: token, cookieToken: token)
        #expect("https://cafe\u{301}.example" == "https://caf\u{E9}.example")  // what String == says
        #expect(throws: FederateError.self) {
            try check.verify(origin: "https://cafe\u{301}.example", referer: nil, headerToken: token, cookieToken: token)
        }
    }
}

/// Header fields written as a literal.
struct HTTPFieldsLiteral: ExpressibleByArrayLiteral {
    let fields: HTTPFields
    init(arrayLiteral elements: (String, String)...) {
        var fields = HTTPFields()
        for (name, value) in elements { if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) } }
        self.fields = fields
    }
}

/// Refuses every token (`invalid_signature`).
struct RefusingVerifier: TokenVerifier {
    func verify(_ token: String) async throws(FederateError) -> VerifiedToken {
        throw FederateError(.invalidSignature, "refused")
    }
}
