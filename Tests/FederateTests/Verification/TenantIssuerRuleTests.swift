import Foundation
import Testing
@testable import FederateRelyingParty
@testable import FederateTokens

/// Multi-tenant issuers (issue 17, item 4): `iss` must be the `{tenantid}` template with the
/// token's own `tid`, a well-formed GUID on the caller's list (or any tenant, said explicitly).
@Suite("Tenant issuer rule")
struct TenantIssuerRuleTests {
    static let template = "https://login.microsoftonline.com/{tenantid}/v2.0"
    static let contoso = "72f988bf-86f1-41af-91ab-2d7cd011db47"
    static let fabrikam = "0c8d5b9e-2f1a-4c6b-9e3d-7a1b2c3d4e5f"

    static func issuer(_ tenant: String) -> String { "https://login.microsoftonline.com/\(tenant)/v2.0" }

    static func policy(_ tenants: AcceptedTenants = .only([contoso])) throws -> IDTokenPolicy {
        // `issuers` holds something no token has: the tenant rule must be what accepts `iss`.
        var policy = IDTokenPolicy(issuers: ["unused"], audiences: [Fixtures.clientID], allowedAlgorithms: [.rs256])
        policy.tenantIssuer = try TenantIssuerRule(template: template, tenants: tenants)
        return policy
    }

    static func code(_ claims: [String: JSONValue], tenants: AcceptedTenants = .only([contoso])) async throws -> FederateError.Code? {
        await Fixtures.errorCode(Fixtures.token(claims), policy: try policy(tenants))
    }

    @Test func theTokensOwnTenantProducesItsIssuer() async throws {
        #expect(try await Self.code(["iss": .string(Self.issuer(Self.contoso)), "tid": .string(Self.contoso)]) == nil)
        #expect(
            try await Self.code(["iss": .string(Self.issuer(Self.fabrikam)), "tid": .string(Self.fabrikam)], tenants: .anyTenant) == nil)
        // Without the tenant rule, the same token fails the plain issuer check.
        #expect(
            await Fixtures.errorCode(
                Fixtures.token(["iss": .string(Self.issuer(Self.contoso)), "tid": .string(Self.contoso)]),
                policy: IDTokenPolicy(issuers: [Self.template], audiences: [Fixtures.clientID])) == .issuerMismatch)
    }

    @Test func mismatchedAndHostileTenantsAreRefused() async throws {
        let iss = JSONValue.string(Self.issuer(Self.contoso))
        // tid and iss disagree: another tenant's token claiming our issuer, or the reverse.
        #expect(try await Self.code(["iss": iss, "tid": .string(Self.fabrikam)], tenants: .anyTenant) == .issuerMismatch)
        #expect(try await Self.code(["iss": .string(Self.issuer(Self.fabrikam)), "tid": .string(Self.contoso)]) == .issuerMismatch)
        // A tenant not on the list, even with a consistent iss.
        #expect(try await Self.code(["iss": .string(Self.issuer(Self.fabrikam)), "tid": .string(Self.fabrikam)]) == .tenantNotAllowed)
        // No tid, tid not a string, empty, path characters, traversal, upper case, look-alikes.
        #expect(try await Self.code(["iss": iss]) == .missingClaim)
        #expect(try await Self.code(["iss": iss, "tid": 42]) == .invalidClaim)
        let hostile = [
            "", "/", "..", "../common", "72f988bf-86f1-41af-91ab-2d7cd011db47/..", "72f988bf/86f1-41af-91ab-2d7cd011db47",
            "72F988BF-86F1-41AF-91AB-2D7CD011DB47", "72f988bf\u{2010}86f1-41af-91ab-2d7cd011db47",  // HYPHEN, not hyphen-minus
            "72f988bf-86f1-41af-91ab-2d7cd011db4\u{FF17}",  // FULLWIDTH DIGIT SEVEN
            "72f988bf-86f1-41af-91ab-2d7cd011db4%37", "{tenantid}", "common", " 72f988bf-86f1-41af-91ab-2d7cd011db47",
            "72f988bf-86f1-41af-91ab-2d7cd011db47\u{0}",
        ]
        for tid in hostile {
            #expect(
                try await Self.code(["iss": .string(Self.issuer(tid)), "tid": .string(tid)], tenants: .anyTenant) == .invalidClaim, "\(tid)"
            )
        }
        // The template itself as `iss`, with a real tid.
        #expect(try await Self.code(["iss": .string(Self.template), "tid": .string(Self.contoso)]) == .issuerMismatch)
        // No iss.
        #expect(try await Self.code(["iss": .null, "tid": .string(Self.contoso)]) == .missingClaim)
    }

    @Test func templatesAreStrict() async {
        for bad in [
            "https://login.microsoftonline.com/{tenantid}/{tenantid}/v2.0", "https://login.microsoftonline.com/v2.0",
            "https://{tenantid}.example.com/v2.0", "https://login.example.com/x{tenantid}/v2.0",
            "https://login.example.com/{tenantid}x/v2.0",
            "https://login.example.com/{tenant}/v2.0", "https://login.example.com/{tenantid}/{other}", "login.example.com/{tenantid}/v2.0",
            "https://login.example.com/{tenantid}/v2.0 ", "https://login.exampl\u{0435}.com/{tenantid}/v2.0", "",
        ] {
            #expect(throws: FederateError.self, "\(bad)") { try IssuerTemplate(bad) }
        }
        #expect((try? IssuerTemplate("https://login.example.com/{tenantid}"))?.issuer(forTenant: "t") == "https://login.example.com/t")
    }

    @Test func theCallerChoosesTheTenantsExplicitly() async {
        #expect(throws: FederateError.self) { try TenantIssuerRule(template: Self.template, tenants: .only([])) }
        #expect(throws: FederateError.self) { try TenantIssuerRule(template: Self.template, tenants: .only(["contoso"])) }
        #expect(throws: FederateError.self) {
            try TenantIssuerRule(template: Self.template, tenants: .only(["72f988bf-86f1-41af-91ab-2d7cd011db4"]))
        }
        // Upper-case GUIDs on the list are kept in Entra's lower case.
        let rule = try? TenantIssuerRule(template: Self.template, tenants: .only(["72F988BF-86F1-41AF-91AB-2D7CD011DB47"]))
        #expect(rule?.tenants == .only([Self.contoso]))
        // Segment tenants for providers whose tenants are names.
        #expect(TenantIDFormat.segment.accepts("acme-corp"))
        #expect(!TenantIDFormat.segment.accepts(".."))
        #expect(!TenantIDFormat.segment.accepts("a/b"))
        #expect(!TenantIDFormat.segment.accepts("\u{0430}cme"))
    }

    // MARK: Discovery

    static func document(issuer: String) -> [UInt8] {
        JSONSerializer.bytes([
            "issuer": .string(issuer), "authorization_endpoint": "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
            "token_endpoint": "https://login.microsoftonline.com/common/oauth2/v2.0/token",
            "jwks_uri": "https://login.microsoftonline.com/common/discovery/v2.0/keys", "response_types_supported": ["code"],
            "subject_types_supported": ["pairwise"], "id_token_signing_alg_values_supported": ["RS256"],
        ])
    }

    @Test func strictDiscoveryRefusesTheTemplate() async {
        #expect(throws: FederateError.self) {
            try ProviderMetadata(
                document: Self.document(issuer: Self.template), expectedIssuer: "https://login.microsoftonline.com/common/v2.0")
        }
    }

    @Test func templatedDiscoveryAcceptsOnlyWhatTheRuleAllows() async throws {
        let rule = try TenantIssuerRule(template: Self.template, tenants: .only([Self.contoso]))
        let common = "https://login.microsoftonline.com/common/v2.0"
        let metadata = try ProviderMetadata(document: Self.document(issuer: Self.template), authority: common, tenantIssuer: rule)
        #expect(metadata.issuer == Self.template)
        #expect(metadata.issuerTemplate?.template == Self.template)
        // A tenant's own document: its issuer is concrete, and the tenant must be listed.
        let own = try ProviderMetadata(
            document: Self.document(issuer: Self.issuer(Self.contoso)), authority: Self.issuer(Self.contoso), tenantIssuer: rule)
        #expect(own.issuerTemplate == nil)
        func refused(_ issuer: String, at authority: String = common) -> FederateError.Code? {
            do {
                _ = try ProviderMetadata(document: Self.document(issuer: issuer), authority: authority, tenantIssuer: rule)
                return nil
            } catch {
                return error.code
            }
        }
        #expect(refused(Self.issuer(Self.fabrikam)) == .discoveryIssuerMismatch)  // not listed
        #expect(refused("https://login.microsoftonline.com/{tenantid}/v2.0/") == .discoveryIssuerMismatch)  // another template
        #expect(refused("https://evil.example/{tenantid}/v2.0") == .discoveryIssuerMismatch)
        #expect(refused("https://login.microsoftonline.com/common/v2.0") == .discoveryIssuerMismatch)
        // The authority must be the template with a segment in it: not another host, not a path.
        #expect(refused(Self.template, at: "https://evil.example/common/v2.0") == .discoveryIssuerMismatch)
        #expect(refused(Self.template, at: "https://login.microsoftonline.com/a/b/v2.0") == .discoveryIssuerMismatch)
        #expect(refused(Self.template, at: "https://login.microsoftonline.com/../v2.0") == .discoveryIssuerMismatch)
    }
}
