import Crypto
import FederateTestSupport
import Foundation
import Logging
import Synchronization
import Testing
import Federate
@testable import FederateAccounts
@testable import FederateRelyingParty
@testable import FederateTokens

@Suite("Authorization request")
struct AuthorizationRequestTests {
    @Test func carriesCodeFlowWithPKCEAndFreshSecrets() throws {
        let built = try FlowFixtures.built()
        let query = try FlowFixtures.query(of: built.url)
        #expect(built.url.hasPrefix(FlowFixtures.issuer + "/authorize?"))
        #expect(query["response_type"] == "code")
        #expect(query["client_id"] == FlowFixtures.clientID)
        #expect(query["redirect_uri"] == FlowFixtures.redirectURI)
        #expect(query["code_challenge_method"] == "S256")
        #expect(query["state"] == built.pending.state)
        #expect(query["nonce"] == built.pending.nonce)
        #expect(query["response_mode"] == nil)  // query is the default for code
        // The challenge is BASE64URL(SHA256(verifier)) of the verifier kept for the exchange.
        let expected = Base64URL.encode(Array(SHA256.hash(data: Array(built.pending.codeVerifier.utf8))))
        #expect(query["code_challenge"] == expected)
    }

    @Test func reauthenticationAsksTheProviderToSignTheUserInAgain() throws {
        var request = AuthorizationRequest(
            providerID: "oidc.example", clientID: FlowFixtures.clientID, redirectURI: FlowFixtures.redirectURI, intent: .reauthenticate)
        let built = try request.build(for: FlowFixtures.metadata(), now: Date())
        let query = try FlowFixtures.query(of: built.url)
        #expect(query["prompt"] == "login" && query["max_age"] == "0")
        // Checked against the flow's start by the account layer, not as a max age on the ID token.
        #expect(built.pending.maxAge == nil && built.pending.intent == .reauthenticate)
        // The caller's own values win; a sign-in sends neither.
        request.prompt = "select_account"
        request.maxAge = .seconds(30)
        let custom = try FlowFixtures.query(of: try request.build(for: FlowFixtures.metadata(), now: Date()).url)
        #expect(custom["prompt"] == "select_account" && custom["max_age"] == "30")
        request = AuthorizationRequest(providerID: "oidc.example", clientID: FlowFixtures.clientID, redirectURI: FlowFixtures.redirectURI)
        let signIn = try FlowFixtures.query(of: try request.build(for: FlowFixtures.metadata(), now: Date()).url)
        #expect(signIn["prompt"] == nil && signIn["max_age"] == nil)
    }

    @Test func stateNonceAndVerifierAreLongRandomAndUnreserved() throws {
        let first = try FlowFixtures.built().pending
        let second = try FlowFixtures.built().pending
        for value in [first.state, first.nonce] {
            let bytes = try #require(Base64URL.decode(value))
            #expect(bytes.count * 8 >= 128)
        }
        #expect(first.state != second.state)
        #expect(first.nonce != second.nonce)
        #expect(first.codeVerifier != second.codeVerifier)
        #expect(first.state != first.nonce)
        #expect((43...128).contains(first.codeVerifier.utf8.count))
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        #expect(first.codeVerifier.utf8.allSatisfy(unreserved.contains))
    }

    @Test(arguments: ["token", "id_token", "code id_token", "code token", "none"])
    func otherResponseTypesAreRefused(responseType: String) throws {
        let request = AuthorizationRequest(
            providerID: "oidc.example", clientID: "c", redirectURI: FlowFixtures.redirectURI, responseType: responseType)
        let error = #expect(throws: FederateError.self) { try request.build(for: FlowFixtures.metadata(), now: Date()) }
        #expect(error?.code == .unsupportedResponseType)
    }

    @Test func openidIsAlwaysRequestedOnceFirst() throws {
        let request = AuthorizationRequest(
            providerID: "p", clientID: "c", redirectURI: FlowFixtures.redirectURI, scopes: ["email", "email", "", "profile"])
        let built = try request.build(for: FlowFixtures.metadata(), now: Date())
        #expect(try FlowFixtures.query(of: built.url)["scope"] == "openid email profile")
        #expect(built.pending.scopes == ["openid", "email", "profile"])
    }

    @Test func optionalParametersAreSent() throws {
        let request = AuthorizationRequest(
            providerID: "p", clientID: "c", redirectURI: FlowFixtures.redirectURI, responseMode: .formPost,
            prompt: "login", loginHint: "ada@example.com", maxAge: .seconds(300))
        let built = try request.build(for: FlowFixtures.metadata(), now: Date())
        let query = try FlowFixtures.query(of: built.url)
        #expect(query["response_mode"] == "form_post")
        #expect(query["prompt"] == "login")
        #expect(query["login_hint"] == "ada@example.com")
        #expect(query["max_age"] == "300")
        #expect(built.pending.maxAge == .seconds(300))
        #expect(built.pending.responseMode == .formPost)
    }

    @Test func reservedCustomParametersAreDroppedReportedAndLogged() throws {
        var custom: [String: String] = [:]
        for name in AuthorizationRequest.reservedParameters { custom[name] = "attacker" }
        custom["hd"] = "example.com"
        custom["access_type"] = "offline"
        let messages = LogCapture()
        let request = AuthorizationRequest(
            providerID: "p", clientID: "c", redirectURI: FlowFixtures.redirectURI, customParameters: custom)
        let built = try request.build(for: FlowFixtures.metadata(), now: Date(), logger: messages.logger)
        let query = try FlowFixtures.query(of: built.url)

        #expect(Set(built.droppedParameters) == AuthorizationRequest.reservedParameters)
        // With acr_values, claims and max_age (step-up), and resource (RFC 8707).
        #expect(AuthorizationRequest.reservedParameters.count == 13)
        for name in AuthorizationRequest.reservedParameters { #expect(query[name] != "attacker", "\(name)") }
        #expect(query["client_id"] == "c")
        #expect(query["hd"] == "example.com")
        #expect(query["access_type"] == "offline")
        #expect(messages.warnings.count == 13)
    }

    @Test func customParameterCannotOverrideABuiltInOne() throws {
        let request = AuthorizationRequest(
            providerID: "p", clientID: "c", redirectURI: FlowFixtures.redirectURI, prompt: "login",
            customParameters: ["prompt": "none"])
        let built = try request.build(for: FlowFixtures.metadata(), now: Date())
        #expect(built.droppedParameters == ["prompt"])
        #expect(try FlowFixtures.query(of: built.url)["prompt"] == "login")
    }

    @Test func providerWithoutS256IsRefused() throws {
        let metadata = try FlowFixtures.metadata(["code_challenge_methods_supported": ["plain"]])
        let error = #expect(throws: FederateError.self) { try FlowFixtures.built(metadata: metadata) }
        #expect(error?.code == .invalidConfiguration)
    }

    @Test func unsupportedResponseModeIsRefused() throws {
        let metadata = try FlowFixtures.metadata(["response_modes_supported": ["query"]])
        let error = #expect(throws: FederateError.self) { try FlowFixtures.built(metadata: metadata, responseMode: .formPost) }
        #expect(error?.code == .invalidConfiguration)
    }

    @Test func negativeMaxAgeAndFragmentRedirectAreRefused() throws {
        #expect(throws: FederateError.self) { try FlowFixtures.built(maxAge: .seconds(-1)) }
        let request = AuthorizationRequest(providerID: "p", clientID: "c", redirectURI: "https://rp.example/cb#x")
        #expect(throws: FederateError.self) { try request.build(for: FlowFixtures.metadata(), now: Date()) }
    }

    @Test func pendingExpiresAfterTenMinutesByDefault() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let pending = try FlowFixtures.built(now: now).pending
        #expect(pending.createdAt == now)
        #expect(pending.expiresAt == now.addingTimeInterval(600))
        #expect(pending.issuer == FlowFixtures.issuer)
        #expect(pending.providerID == "oidc.example")
        #expect(!"\(pending)".contains(pending.state))
        #expect(!"\(pending)".contains(pending.codeVerifier))
    }

    @Test func pkceVerifierLengthAndAlphabetAreEnforced() throws {
        #expect(throws: FederateError.self) { try PKCE(verifier: String(repeating: "a", count: 42)) }
        #expect(throws: FederateError.self) { try PKCE(verifier: String(repeating: "a", count: 129)) }
        #expect(throws: FederateError.self) { try PKCE(verifier: String(repeating: "a", count: 42) + "+") }
        // RFC 7636 appendix B.
        let pkce = try PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }
}
