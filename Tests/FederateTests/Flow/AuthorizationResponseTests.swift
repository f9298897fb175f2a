import Foundation
import Testing
import Federate
@testable import FederateAccounts
@testable import FederateRelyingParty
@testable import FederateTokens

@Suite("Authorization response (callback)")
struct AuthorizationResponseTests {
    /// A metadata with the RFC 9207 flag as given, and a pending authorization for it.
    static func setUp(issParameter: Bool = false) throws -> (ProviderMetadata, PendingAuthorization) {
        let metadata = try FlowFixtures.metadata(["authorization_response_iss_parameter_supported": .bool(issParameter)])
        return (metadata, try FlowFixtures.built(metadata: metadata).pending)
    }

    static func validate(_ parameters: [String: String], issParameter: Bool = false) throws -> String {
        let (metadata, pending) = try setUp(issParameter: issParameter)
        var parameters = parameters
        for (name, value) in parameters where value == "$STATE" { parameters[name] = pending.state }
        return try AuthorizationResponse(parameters: parameters).validate(against: pending, metadata: metadata, now: Date())
    }

    @Test func validCallbackYieldsTheCode() throws {
        #expect(try Self.validate(["code": "abc", "state": "$STATE"]) == "abc")
        #expect(try Self.validate(["code": "abc", "state": "$STATE", "iss": FlowFixtures.issuer], issParameter: true) == "abc")
    }

    @Test func queryFragmentFormAndURLAreParsed() throws {
        #expect(try AuthorizationResponse(query: "code=a%2Bb&state=s+t").parameters == ["code": "a+b", "state": "s t"])
        #expect(try AuthorizationResponse(fragment: "code=c&state=s").parameters == ["code": "c", "state": "s"])
        #expect(try AuthorizationResponse(formBody: Array("code=f&state=s".utf8)).parameters == ["code": "f", "state": "s"])
        #expect(try AuthorizationResponse(redirectURL: "https://rp.example/cb?code=q&state=s").parameters["code"] == "q")
        #expect(try AuthorizationResponse(redirectURL: "https://rp.example/cb#code=h&state=s").parameters["code"] == "h")
    }

    @Test(arguments: ["code=a&code=b&state=s", "code=a&state=s&state=s", "state=s&code=a&state=t"])
    func duplicatedParametersAreRefused(query: String) {
        let error = #expect(throws: FederateError.self) { try AuthorizationResponse(query: query) }
        #expect(error?.code == .invalidCallback)
        #expect(throws: FederateError.self) { try AuthorizationResponse(formBody: Array(query.utf8)) }
        #expect(throws: FederateError.self) { try AuthorizationResponse(fragment: query) }
    }

    @Test(arguments: ["code=%ZZ", "code=%4", "code=%C3%28"])
    func malformedEncodingIsRefused(query: String) {
        let error = #expect(throws: FederateError.self) { try AuthorizationResponse(query: query) }
        #expect(error?.code == .invalidCallback)
    }

    @Test func wrongOrMissingStateIsRefused() throws {
        let wrong = #expect(throws: FederateError.self) { try Self.validate(["code": "abc", "state": "other"]) }
        #expect(wrong?.code == .stateMismatch)
        let missing = #expect(throws: FederateError.self) { try Self.validate(["code": "abc"]) }
        #expect(missing?.code == .stateMismatch)
    }

    @Test func stateDifferingOnlyInLastCharacterIsRefused() throws {
        let (metadata, pending) = try Self.setUp()
        var state = pending.state
        let last = state.removeLast()
        state.append(last == "A" ? "B" : "A")
        let error = #expect(throws: FederateError.self) {
            try AuthorizationResponse(parameters: ["code": "c", "state": state]).validate(against: pending, metadata: metadata, now: Date())
        }
        #expect(error?.code == .stateMismatch)
    }

    @Test func issIsRequiredWhenAdvertised() throws {
        let error = #expect(throws: FederateError.self) {
            try Self.validate(["code": "abc", "state": "$STATE"], issParameter: true)
        }
        #expect(error?.code == .callbackIssuerMismatch)
    }

    @Test func issIsComparedWheneverPresent() throws {
        for advertised in [true, false] {
            let error = #expect(throws: FederateError.self) {
                try Self.validate(["code": "abc", "state": "$STATE", "iss": "https://evil.example"], issParameter: advertised)
            }
            #expect(error?.code == .callbackIssuerMismatch)
        }
    }

    @Test func missingCodeIsRefused() throws {
        let error = #expect(throws: FederateError.self) { try Self.validate(["state": "$STATE"]) }
        #expect(error?.code == .invalidCallback)
    }

    @Test(arguments: [
        "access_denied", "invalid_request", "admin_policy_enforced", "org_internal", "disallowed_useragent",
        "redirect_uri_mismatch", "invalid_grant", "login_required", "interaction_required", "some_new_error",
    ])
    func providerErrorsKeepCodeAndDescription(code: String) throws {
        let error = #expect(throws: FederateError.self) {
            try Self.validate(["error": code, "error_description": "why it failed", "state": "$STATE"])
        }
        #expect(error?.code.rawValue == code)
        #expect(error?.providerError?.code == code)
        #expect(error?.providerError?.description == "why it failed")
    }

    @Test func errorWithForeignStateIsAStateMismatch() throws {
        // An attacker's error redirect must not be reported as the provider's answer.
        let error = #expect(throws: FederateError.self) { try Self.validate(["error": "access_denied", "state": "forged"]) }
        #expect(error?.code == .stateMismatch)
    }

    @Test func expiredPendingAuthorizationIsRefused() throws {
        let metadata = try FlowFixtures.metadata()
        let pending = try FlowFixtures.built(metadata: metadata, now: Date().addingTimeInterval(-601)).pending
        let error = #expect(throws: FederateError.self) {
            try AuthorizationResponse(parameters: ["code": "c", "state": pending.state]).validate(
                against: pending, metadata: metadata, now: Date())
        }
        #expect(error?.code == .invalidPendingAuthorization)
    }

    @Test func callbackForAnotherProviderIsRefused() throws {
        let pending = try FlowFixtures.built().pending
        var members = try FlowFixtures.metadata().document
        members["issuer"] = "https://other.example"
        let other = try ProviderMetadata(members: members, expectedIssuer: "https://other.example")
        let error = #expect(throws: FederateError.self) {
            try AuthorizationResponse(parameters: ["code": "c", "state": pending.state]).validate(
                against: pending, metadata: other, now: Date())
        }
        #expect(error?.code == .callbackIssuerMismatch)
    }

    @Test func descriptionRedactsCodeAndState() throws {
        let response = AuthorizationResponse(parameters: ["code": "secret-code", "state": "secret-state"])
        #expect(!"\(response)".contains("secret"))
    }
}

@Suite("Pending authorization sealing")
struct PendingAuthorizationSealerTests {
    static func key(_ id: String) throws -> SealingKeyRing.Key {
        try SealingKeyRing.Key(id: id, key: .init(size: .bits256))
    }

    @Test func roundTripKeepsEveryField() throws {
        let sealer = PendingAuthorizationSealer(keys: try SealingKeyRing([Self.key("k1")]))
        var pending = try FlowFixtures.built(responseMode: .formPost, maxAge: .seconds(60)).pending
        pending.returnTo = "/settings"
        pending.uid = "user-1"
        let sealed = try sealer.seal(pending)
        #expect(sealed.hasPrefix("v1.k1."))
        #expect(!sealed.contains(pending.state) && !sealed.contains(pending.codeVerifier))
        let opened = try sealer.open(sealed, now: Date())
        #expect(opened.state == pending.state)
        #expect(opened.nonce == pending.nonce)
        #expect(opened.codeVerifier == pending.codeVerifier)
        #expect(opened.redirectURI == pending.redirectURI)
        #expect(opened.issuer == pending.issuer)
        #expect(opened.providerID == pending.providerID)
        #expect(opened.clientID == pending.clientID)
        #expect(opened.scopes == pending.scopes)
        #expect(opened.maxAge == .seconds(60))
        #expect(opened.responseMode == .formPost)
        #expect(opened.intent == pending.intent)
        #expect(opened.returnTo == "/settings")
        #expect(opened.uid == "user-1")
        #expect(abs(opened.expiresAt.timeIntervalSince(pending.expiresAt)) < 0.001)
    }

    @Test func tamperingIsDetected() throws {
        let sealer = PendingAuthorizationSealer(keys: try SealingKeyRing([Self.key("k1")]))
        let sealed = try sealer.seal(FlowFixtures.built().pending)
        var bytes = Array(sealed.utf8)
        let index = bytes.count - 10
        bytes[index] = bytes[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let error = #expect(throws: FederateError.self) { try sealer.open(String(decoding: bytes, as: UTF8.self), now: Date()) }
        #expect(error?.code == .invalidPendingAuthorization)
        // The key id is authenticated too: relabelling under another known key fails.
        let other = PendingAuthorizationSealer(keys: try SealingKeyRing([Self.key("k1"), Self.key("k2")]))
        #expect(throws: FederateError.self) { try other.open(sealed.replacingOccurrences(of: "v1.k1.", with: "v1.k2."), now: Date()) }
    }

    @Test func anotherServersKeyCannotOpen() throws {
        let sealed = try PendingAuthorizationSealer(keys: try SealingKeyRing([Self.key("k1")])).seal(FlowFixtures.built().pending)
        let stranger = PendingAuthorizationSealer(keys: try SealingKeyRing([Self.key("k1")]))
        #expect(throws: FederateError.self) { try stranger.open(sealed, now: Date()) }
    }

    @Test func rotationSealsWithTheNewKeyAndStillOpensTheOld() throws {
        let old = try Self.key("old"), new = try Self.key("new")
        let before = PendingAuthorizationSealer(keys: try SealingKeyRing([old]))
        let after = PendingAuthorizationSealer(keys: try SealingKeyRing([new, old]))
        let sealedBefore = try before.seal(FlowFixtures.built().pending)
        #expect(try after.open(sealedBefore, now: Date()).clientID == FlowFixtures.clientID)
        #expect(try after.seal(FlowFixtures.built().pending).hasPrefix("v1.new."))
        let retired = PendingAuthorizationSealer(keys: try SealingKeyRing([new]))
        #expect(throws: FederateError.self) { try retired.open(sealedBefore, now: Date()) }
    }

    @Test func expiredValuesAreRefused() throws {
        let sealer = PendingAuthorizationSealer(keys: try SealingKeyRing([Self.key("k1")]))
        let sealed = try sealer.seal(FlowFixtures.built().pending)
        let error = #expect(throws: FederateError.self) { try sealer.open(sealed, now: Date().addingTimeInterval(601)) }
        #expect(error?.code == .invalidPendingAuthorization)
    }

    @Test(arguments: ["", "v1", "v1.k1", "v2.k1.AAAA", "v1.k1.AAAA", "v1.k1.!!!", "v1.k1.a.b"])
    func malformedValuesAreRefused(sealed: String) throws {
        let sealer = PendingAuthorizationSealer(keys: try SealingKeyRing([Self.key("k1")]))
        let error = #expect(throws: FederateError.self) { try sealer.open(sealed, now: Date()) }
        #expect(error?.code == .invalidPendingAuthorization)
    }

    @Test func keysMustBe256BitsWithASafeID() throws {
        #expect(throws: FederateError.self) { try SealingKeyRing.Key(id: "k", key: .init(size: .bits128)) }
        #expect(throws: FederateError.self) { try SealingKeyRing.Key(id: "a.b", key: .init(size: .bits256)) }
        #expect(throws: FederateError.self) { try SealingKeyRing([]) }
    }
}
