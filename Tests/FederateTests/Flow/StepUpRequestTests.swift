import Crypto
import FederateTestSupport
import Foundation
import Testing
@testable import FederateRelyingParty
@testable import FederateTokens

/// The step-up parameters of an authorization request: `acr_values`, `max_age` and `claims`
/// are sent typed, sealed with the pending authorization, and the claims parameter is read
/// strictly where a provider receives it.
@Suite("Step-up request")
struct StepUpRequestTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func request(
        acrValues: [String] = [], maxAge: Duration? = nil, claims: ClaimsRequest? = nil, authentication: AuthenticationRequirement? = nil,
        custom: [String: String] = [:]
    ) -> AuthorizationRequest {
        AuthorizationRequest(
            providerID: "oidc.example", clientID: FlowFixtures.clientID, redirectURI: FlowFixtures.redirectURI, maxAge: maxAge,
            acrValues: acrValues, claims: claims, authentication: authentication, customParameters: custom)
    }

    @Test func sendsTheRequirementsACRValuesAndSealsIt() throws {
        let built = try Self.request(
            authentication: .phishingResistant, custom: ["acr_values": "weak", "claims": "{}", "max_age": "99999"]
        )
        .build(for: FlowFixtures.metadata(), now: Self.now)
        let query = try FlowFixtures.query(of: built.url)
        #expect(query["acr_values"] == "phr phrh")
        #expect(query["claims"] == nil && query["max_age"] == nil)
        // Custom parameters can never set the step-up parameters: what is sent is what is checked.
        #expect(built.droppedParameters == ["acr_values", "claims", "max_age"])
        #expect(built.pending.authentication == .phishingResistant && built.pending.acrValues == ["phr", "phrh"])

        let sealer = PendingAuthorizationSealer(keys: try SealingKeyRing([.init(id: "k", key: SymmetricKey(size: .bits256))]))
        let opened = try sealer.open(try sealer.seal(built.pending), now: Self.now)
        #expect(opened == built.pending)
    }

    @Test func explicitACRValuesKeepTheirOrderAndMaxAgeZeroIsSent() throws {
        let requirement = AuthenticationRequirement.acr(["phrh"]).or(.amr(allOf: ["hwk", "pin"]))
        let built = try Self.request(acrValues: ["phrh", "phr"], maxAge: .zero, authentication: requirement)
            .build(for: FlowFixtures.metadata(), now: Self.now)
        let query = try FlowFixtures.query(of: built.url)
        #expect(query["acr_values"] == "phrh phr" && query["max_age"] == "0")
        #expect(built.pending.maxAge == .zero)
        let sealer = PendingAuthorizationSealer(keys: try SealingKeyRing([.init(id: "k", key: SymmetricKey(size: .bits256))]))
        #expect(try sealer.open(try sealer.seal(built.pending), now: Self.now).authentication == requirement)
    }

    @Test func anEssentialACRInTheClaimsRequestIsChecked() throws {
        let claims = ClaimsRequest(idToken: ["acr": .init(essential: true, values: ["phrh", "phr"]), "auth_time": .init(essential: true)])
        let built = try Self.request(claims: claims).build(for: FlowFixtures.metadata(), now: Self.now)
        let query = try FlowFixtures.query(of: built.url)
        #expect(query["claims"] == #"{"id_token":{"acr":{"essential":true,"values":["phrh","phr"]},"auth_time":{"essential":true}}}"#)
        #expect(query["acr_values"] == "phr phrh")
        #expect(built.pending.authentication == .acr(["phr", "phrh"]))
        // A voluntary acr is a wish: nothing to check.
        let voluntary = ClaimsRequest(idToken: ["acr": .init(values: ["phr"])])
        #expect(try Self.request(claims: voluntary).build(for: FlowFixtures.metadata(), now: Self.now).pending.authentication == nil)
        // Both ways at once is ambiguous: refused.
        #expect(throws: FederateError.self) {
            try Self.request(claims: claims, authentication: .phishingResistant).build(for: FlowFixtures.metadata(), now: Self.now)
        }
    }

    @Test func badACRValuesAreRefused() throws {
        for values in [[""], ["has space"], ["caf\u{E9}"], Array(repeating: "a", count: 17), [String(repeating: "a", count: 257)]] {
            #expect(throws: FederateError.self) { try Self.request(acrValues: values).build(for: FlowFixtures.metadata(), now: Self.now) }
        }
        let huge = ClaimsRequest(idToken: [
            "acr": .init(essential: true, values: Array(repeating: String(repeating: "a", count: 200), count: 30))
        ])
        #expect(throws: FederateError.self) { try Self.request(claims: huge).build(for: FlowFixtures.metadata(), now: Self.now) }
    }

    @Test func claimsParameterParsesStrictly() throws {
        let parsed = try ClaimsRequest(
            parsing: #"{"id_token":{"acr":{"essential":true,"value":"phrh"},"email":null},"userinfo":{"name":null},"x":1}"#)
        #expect(parsed.idToken["acr"] == ClaimsRequest.Claim(essential: true, value: "phrh"))
        #expect(parsed.idToken["email"] == ClaimsRequest.Claim() && parsed.userinfo["name"] == ClaimsRequest.Claim())
        #expect(parsed.requiredAuthentication == .acr(["phrh"]))
        #expect(try ClaimsRequest(parsing: parsed.parameterValue) == parsed)

        let hostile = [
            "", "[]", "null", #"{"id_token":[]}"#, #"{"id_token":{"acr":1}}"#, #"{"id_token":{"acr":{"essential":"yes"}}}"#,
            #"{"id_token":{"acr":{"values":"phr"}}}"#, #"{"id_token":{"acr":{"values":[1]}}}"#, #"{"id_token":{"acr":{"value":{}}}}"#,
            #"{"id_token":{"acr":{"values":[["phr"]]}}}"#, #"{"id_token":{"acr":{"essential":true},"acr":{}}}"#,
            String(repeating: "[", count: 100_000),
            "{\"id_token\":{\"a\":" + String(repeating: "{\"a\":", count: 5000) + "null" + String(repeating: "}", count: 5002),
            "{\"id_token\":{" + (0..<2000).map { "\"c\($0)\":null" }.joined(separator: ",") + "}}",
        ]
        for text in hostile {
            #expect(throws: FederateError.self, "\(text.prefix(60))") { try ClaimsRequest(parsing: text) }
        }
    }

    /// A client of ``FlowFixtures/metadata(_:)``: nothing is fetched to build a request.
    static func client(_ overrides: [String: JSONValue?] = [:]) throws -> OpenIDClient {
        try OpenIDClient(
            metadata: FlowFixtures.metadata(overrides), clientID: FlowFixtures.clientID, authentication: .none,
            keys: JSONWebKeySet(jwks: Array(#"{"keys":[]}"#.utf8)), httpClient: PatientTransport.shared)
    }

    /// The client's one builder: a step-up composes with `maxAge`, DPoP and a delivery; `max_age`
    /// given twice (the step-up's and `maxAge:`) is refused before anything is built.
    @Test func theClientsBuilderTakesAStepUp() async throws {
        let client = try Self.client()
        let stepUp = StepUpRequest(authentication: .phishingResistant, maxAge: .seconds(300))
        let built = try await client.authorizationRequest(
            providerID: "oidc.example", redirectURI: FlowFixtures.redirectURI, intent: .reauthenticate, stepUp: stepUp)
        var query = try FlowFixtures.query(of: built.url)
        #expect(query["acr_values"] == "phr phrh" && query["max_age"] == "300" && query["prompt"] == "login")
        #expect(built.pending.maxAge == .seconds(300) && built.pending.authentication == .phishingResistant)

        let twice = await #expect(throws: FederateError.self) {
            try await client.authorizationRequest(
                providerID: "oidc.example", redirectURI: FlowFixtures.redirectURI, maxAge: .seconds(60), stepUp: stepUp)
        }
        #expect(twice?.code == .invalidConfiguration)

        // `maxAge:` with a step-up that has none, a DPoP-bound client, an explicit delivery.
        let bound = try Self.client().withDPoP(DPoPProofSigner())
        let claims = StepUpRequest(claims: .essentialACR(["phrh"]))
        let both = try await bound.authorizationRequest(
            providerID: "oidc.example", redirectURI: FlowFixtures.redirectURI, delivery: AuthorizationDelivery(), maxAge: .zero,
            stepUp: claims)
        query = try FlowFixtures.query(of: both.url)
        #expect(query["max_age"] == "0" && query["claims"] != nil && query["dpop_jkt"] != nil)
        #expect(both.pending.maxAge == .zero && both.pushed == nil)

        // Without a delivery, a provider that requires pushing is refused; with one, it is pushed.
        let pushing = try Self.client(["require_pushed_authorization_requests": .bool(true)])
        let refused = await #expect(throws: FederateError.self) {
            try await pushing.authorizationRequest(providerID: "oidc.example", redirectURI: FlowFixtures.redirectURI, stepUp: stepUp)
        }
        #expect(refused?.code == .pushedAuthorizationRequired)
        let unpushable = await #expect(throws: FederateError.self) {
            try await pushing.authorizationRequest(
                providerID: "oidc.example", redirectURI: FlowFixtures.redirectURI, delivery: AuthorizationDelivery(), stepUp: stepUp)
        }
        #expect(unpushable?.code == .endpointNotAvailable)
    }
}
