import Federate
import FederateMicrosoft
import FederateTestSupport
import Foundation
import Testing

/// Entra-shaped tokens made by an independent implementation (Python's `cryptography`,
/// `Tests/Interop/tenant_tokens.py`) and verified with FederateMicrosoft's policy: the
/// consistent ones pass, every hostile one is refused with its own code. Needs the interop
/// virtualenv (`Tests/Interop/venv.sh`); missing Python fails the test.
@Suite("Interop: Entra tokens made by Python")
struct MicrosoftInteropTests {
    static let clientID = "6731de76-14a6-49ae-97bc-6eba6914391e"
    static let contoso = "72f988bf-86f1-41af-91ab-2d7cd011db47"
    static let now: Int64 = 1_760_000_000

    /// Runs the token maker and returns its JSON.
    static func tokens() async throws -> [String: JSONValue] {
        let root = try ExternalProcess.packageRoot()
        let python = try await InteropPython.prepare(root: root)
        let run = await ExternalProcess.run(
            [python, "Tests/Interop/tenant_tokens.py", "--now", String(now), "--client-id", clientID, "--project", "dev-project"], in: root,
            timeout: 60)
        try #require(run.status == 0, "tenant_tokens.py failed: \(ExternalProcess.tail(run.stderr))")
        return try JSONParser().parseObject(Array(run.stdout.utf8))
    }

    static func verifier(_ audience: MicrosoftAudience, jwks: JSONValue) throws -> (IDTokenVerifier, JSONWebKeySet) {
        let profile = try MicrosoftProfile(audience: audience)
        let document: [String: JSONValue] = [
            "issuer": "https://login.microsoftonline.com/{tenantid}/v2.0",
            "authorization_endpoint": "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
            "token_endpoint": "https://login.microsoftonline.com/common/oauth2/v2.0/token",
            "jwks_uri": "https://login.microsoftonline.com/common/discovery/v2.0/keys", "response_types_supported": ["code"],
            "subject_types_supported": ["pairwise"], "id_token_signing_alg_values_supported": ["RS256"],
        ]
        let metadata = try ProviderMetadata(
            document: JSONSerializer.bytes(.object(document)), authority: MicrosoftEndpoints.microsoft.authority(audience.segment),
            tenantIssuer: try #require(profile.tenantIssuer))
        let keys = try JSONWebKeySet(jwks: JSONSerializer.bytes(jwks))
        let policy = profile.policy(metadata: metadata, clientID: clientID, authentication: .none)
        return (IDTokenVerifier(policy: policy, keys: keys, clock: .fixed(at: Date(timeIntervalSince1970: Double(now)))), keys)
    }

    static func code(_ verifier: (IDTokenVerifier, JSONWebKeySet), _ token: JSONValue?) async -> FederateError.Code? {
        do throws(FederateError) {
            _ = try await verifier.0.verify(token?.stringValue ?? "")
            return nil
        } catch {
            return error.code
        }
    }

    @Test func pythonTokensPassOrFailAsEntraRulesSay() async throws {
        let made = try await Self.tokens()
        let jwks = try #require(made["jwks"])
        let entra = try #require(made["entra"])
        let listed = try Self.verifier(.common(.only([Self.contoso, MicrosoftEndpoints.personalAccountsTenantID])), jwks: jwks)
        #expect(await Self.code(listed, entra["contoso"]) == nil)
        #expect(await Self.code(listed, entra["personal"]) == nil)
        #expect(await Self.code(listed, entra["fabrikam"]) == .tenantNotAllowed)
        let any = try Self.verifier(.common(.anyTenant), jwks: jwks)
        #expect(await Self.code(any, entra["fabrikam"]) == nil)
        #expect(await Self.code(any, entra["tid_mismatch"]) == .issuerMismatch)
        #expect(await Self.code(any, entra["iss_mismatch"]) == .issuerMismatch)
        #expect(await Self.code(any, entra["template_left"]) == .issuerMismatch)
        for hostile in ["tid_slash", "tid_dotdot", "tid_empty", "tid_lookalike", "tid_is_template"] {
            #expect(await Self.code(any, entra[hostile]) == .invalidClaim, "\(hostile)")
        }
        #expect(await Self.code(any, entra["no_tid"]) == .missingClaim)
        let organizations = try Self.verifier(.organizations(.anyTenant), jwks: jwks)
        #expect(await Self.code(organizations, entra["personal"]) == .tenantNotAllowed)
        #expect(await Self.code(organizations, entra["contoso"]) == nil)
    }
}
