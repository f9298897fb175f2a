import Testing
import Federate
@testable import FederateAccounts
@testable import FederateRelyingParty
@testable import FederateTokens

@Suite struct CompactJWSTests {
    private func code(_ token: String, limits: JWSLimits = .default) -> FederateError.Code? {
        do {
            _ = try CompactJWS(parsing: token, limits: limits)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func parsesAValidToken() throws {
        let jws = try CompactJWS(parsing: Fixtures.token())
        #expect(jws.header.algorithm == .rs256)
        #expect(jws.header.keyID == "rsa-1")
        #expect(jws.signature.count == 256)
    }

    @Test(arguments: ["", "a", "a.b", "a.b.c.d", ".b.c", "a.b.", "a..", "..", "a.b.c."])
    func rejectsWrongSegmentCounts(_ token: String) {
        #expect(code(token) == .malformedToken)
    }

    @Test func rejectsPaddingAndStrayCharacters() {
        let parts = Fixtures.token().split(separator: ".").map(String.init)
        #expect(code("\(parts[0])=.\(parts[1]).\(parts[2])") == .malformedToken)
        #expect(code("\(parts[0]).\(parts[1]) .\(parts[2])") == .malformedToken)
        #expect(code("\(parts[0]).\(parts[1]).\(parts[2])\n") == .malformedToken)
        #expect(code(" \(parts[0]).\(parts[1]).\(parts[2])") == .malformedToken)
    }

    @Test func headerMustBeAJSONObjectWithStringAlg() {
        let payload = Fixtures.segment("{}")
        #expect(code("\(Fixtures.segment("[1]")).\(payload).AAAA") == .malformedToken)
        #expect(code("\(Fixtures.segment("{\"alg\":1}")).\(payload).AAAA") == .malformedToken)
        #expect(code("\(Fixtures.segment("{\"kid\":\"a\"}")).\(payload).AAAA") == .malformedToken)
        #expect(code("\(Fixtures.segment("{\"alg\":\"RS256\",\"alg\":\"none\"}")).\(payload).AAAA") == .malformedToken)
        #expect(code("\(Fixtures.segment("{\"alg\":\"RS256\",\"kid\":5}")).\(payload).AAAA") == .malformedToken)
    }

    @Test func enforcesSizeLimitBeforeDecoding() {
        let huge = String(repeating: "A", count: 70_000)
        #expect(code("\(huge).\(huge).\(huge)") == .tokenTooLarge)
        #expect(code(Fixtures.token(), limits: JWSLimits(maxTokenBytes: 100)) == .tokenTooLarge)
    }

    @Test func enforcesNestingLimit() async {
        let deep = String(repeating: "[", count: 20) + String(repeating: "]", count: 20)
        #expect(code("\(Fixtures.segment("{\"alg\":\"RS256\",\"x\":\(deep)}")).\(Fixtures.segment("{}")).AAAA") == .malformedToken)
        let token = Fixtures.token(["deep": .array([.array([.array([])])])])
        #expect(await Fixtures.errorCode(token, policy: Fixtures.policy { $0.limits.maxJSONDepth = 2 }) == .malformedToken)
        #expect(await Fixtures.errorCode(token) == nil)
    }

    @Test func rejectsUnderstoodNothingInCrit() {
        let token = Fixtures.token(header: ["crit": ["exp"], "exp": 1])
        #expect(code(token) == .unsupportedCriticalHeader)
        #expect(code(Fixtures.token(header: ["crit": []])) == .malformedToken)
        #expect(code(Fixtures.token(header: ["crit": "b64"])) == .malformedToken)
    }
}
