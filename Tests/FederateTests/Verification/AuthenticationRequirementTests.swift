import Foundation
import Testing
@testable import FederateTokens

/// The ACR/AMR policy (`AuthenticationRequirement`) as a claim rule, and the strict reading of
/// `acr`, `amr` and `auth_time` (`AuthenticationLevel`), hostile shapes included.
@Suite struct AuthenticationRequirementTests {
    static func code(_ rule: AuthenticationRequirement, _ claims: [String: JSONValue]) throws -> FederateError.Code? {
        try ClaimRuleTests.code(rule, claims)
    }

    @Test func phishingResistantAcceptsPhrAndPhrhOnly() throws {
        let rule = AuthenticationRequirement.phishingResistant
        #expect(try Self.code(rule, ["acr": "phr"]) == nil)
        #expect(try Self.code(rule, ["acr": "phrh"]) == nil)
        #expect(try Self.code(rule, ["acr": "PHR"]) == .insufficientAuthenticationLevel)
        #expect(try Self.code(rule, ["acr": "urn:federate:dev:mfa"]) == .insufficientAuthenticationLevel)
        #expect(try Self.code(rule, [:]) == .insufficientAuthenticationLevel)
        #expect(try Self.code(rule, ["amr": ["hwk", "mfa"]]) == .insufficientAuthenticationLevel)
        #expect(try Self.code(.phishingResistantHardware, ["acr": "phr"]) == .insufficientAuthenticationLevel)
        #expect(rule.acrValues == ["phr", "phrh"])
    }

    @Test func amrAlternativesNeedEveryMethod() throws {
        let rule = AuthenticationRequirement.acr(["phrh"]).or(.amr(allOf: ["hwk", "pin"]))
        #expect(try Self.code(rule, ["amr": ["pin", "hwk", "mfa"]]) == nil)
        #expect(try Self.code(rule, ["amr": ["hwk"]]) == .insufficientAuthenticationLevel)
        #expect(try Self.code(rule, ["acr": "phrh", "amr": ["pwd"]]) == nil)
        #expect(try Self.code(rule, ["acr": "phr", "amr": []]) == .insufficientAuthenticationLevel)
        #expect(rule.acrValues == ["phrh"])
        let both = AuthenticationRequirement(anyOf: [.init(acceptedACR: ["phr"], requiredAMR: ["hwk"])])
        #expect(try Self.code(both, ["acr": "phr", "amr": ["hwk"]]) == nil)
        #expect(try Self.code(both, ["acr": "phr", "amr": ["swk"]]) == .insufficientAuthenticationLevel)
    }

    @Test func anyACRAndNoRequirement() throws {
        #expect(try Self.code(.acr([]), ["acr": "anything"]) == nil)
        #expect(try Self.code(.acr([]), [:]) == .insufficientAuthenticationLevel)
        #expect(try Self.code(.unrestricted, [:]) == nil)
        // No requirement reads nothing, so even a malformed acr passes it (the level is then unrecorded).
        #expect(try Self.code(.unrestricted, ["acr": 1]) == nil)
    }

    @Test func hostileShapesAreInvalidClaims() throws {
        let rule = AuthenticationRequirement.phishingResistant
        #expect(try Self.code(rule, ["acr": 1]) == .invalidClaim)
        #expect(try Self.code(rule, ["acr": ["phr"]]) == .invalidClaim)
        #expect(try Self.code(rule, ["acr": .null]) == .invalidClaim)
        #expect(try Self.code(rule, ["acr": ""]) == .invalidClaim)
        #expect(try Self.code(rule, ["acr": .string(String(repeating: "p", count: 257))]) == .invalidClaim)
        #expect(try Self.code(rule, ["acr": "phr", "amr": "hwk"]) == .invalidClaim)
        #expect(try Self.code(rule, ["acr": "phr", "amr": ["hwk", 1]]) == .invalidClaim)
        #expect(try Self.code(rule, ["acr": "phr", "amr": [["hwk"]]]) == .invalidClaim)
        #expect(try Self.code(rule, ["acr": "phr", "amr": .array(Array(repeating: "otp", count: 33))]) == .invalidClaim)
        #expect(try Self.code(rule, ["acr": "phr", "auth_time": -1]) == .invalidClaim)
        #expect(try Self.code(rule, ["acr": "phr", "auth_time": .double(1e300)]) == .invalidClaim)
        #expect(try Self.code(rule, ["acr": "phr", "auth_time": "1700000000"]) == .invalidClaim)
        #expect(try Self.code(rule, ["acr": "phr", "auth_time": .integer(.max)]) == .invalidClaim)
        #expect(try Self.code(rule, ["acr": "phr", "auth_time": .integer(1 << 53)]) == nil)
    }

    @Test func levelReadsTheClaims() throws {
        let level = try AuthenticationLevel(claims: ["acr": "phrh", "amr": ["hwk", "pin"], "auth_time": 1_700_000_000])
        #expect(level.acr == "phrh" && level.amr == ["hwk", "pin"])
        #expect(level.authTime == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(try AuthenticationLevel(claims: [:]) == AuthenticationLevel())
        #expect(AuthenticationRequirement.phishingResistant.isMet(by: level))
        #expect(throws: FederateError.self) { try AuthenticationLevel(acr: "", amr: []) }
    }

    @Test func maxAgeZeroNeedsAFreshAuthTime() throws {
        // max_age 0 (a fresh sign-in) leaves only the clock tolerance.
        let rule = AuthTimeRule(maximumAge: .zero)
        #expect(try ClaimRuleTests.code(rule, ["auth_time": .double(ClaimRuleTests.now - 30)]) == nil)
        #expect(try ClaimRuleTests.code(rule, ["auth_time": .double(ClaimRuleTests.now - 61)]) == .authTooOld)
        #expect(try ClaimRuleTests.code(rule, [:]) == .missingClaim)
    }

    @Test func idTokenPolicyRunsTheSignInsRequirement() throws {
        let policy = IDTokenPolicy(issuer: "https://op.example", clientID: "c")
        let rules = policy.rules(for: IDTokenExpectations(authentication: .phishingResistant))
        #expect(rules.rules.contains { ($0 as? AuthenticationRequirement) == .phishingResistant })
        #expect(!policy.rules(for: IDTokenExpectations()).rules.contains { $0 is AuthenticationRequirement })
    }
}
