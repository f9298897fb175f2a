import Testing
import Federate
@testable import FederateAccounts
@testable import FederateRelyingParty
@testable import FederateTokens

@Suite struct JSONParserTests {
    let parser = JSONParser(limits: .init(maxBytes: 1024, maxDepth: 4))

    private func parse(_ text: String) throws(JSONParser.Error) -> JSONValue { try parser.parse(Array(text.utf8)) }

    @Test func parsesAllValueKinds() throws {
        let value = try parse(#"{"s":"a\u00e9\ud83d\ude00\n","i":-12,"d":1.5e2,"t":true,"f":false,"n":null,"a":[1,"x"]}"#)
        #expect(value["s"] == "aé😀\n")
        #expect(value["i"] == .integer(-12))
        #expect(value["d"] == .double(150))
        #expect(value["t"] == true && value["f"] == false && value["n"] == .null)
        #expect(value["a"] == [1, "x"])
    }

    @Test func rejectsDuplicateKeys() {
        #expect(throws: JSONParser.Error.duplicateKey("a")) { try parse(#"{"a":1,"a":2}"#) }
    }

    @Test func enforcesDepthLimit() throws {
        _ = try parse("[[[[1]]]]")
        #expect(throws: JSONParser.Error.tooDeep) { try parse("[[[[[1]]]]]") }
        #expect(throws: JSONParser.Error.tooDeep) { try parse(#"{"a":{"b":{"c":{"d":{}}}}}"#) }
    }

    @Test func enforcesSizeLimitBeforeParsing() {
        #expect(throws: JSONParser.Error.tooLarge) { try parse("\"" + String(repeating: "a", count: 1100) + "\"") }
    }

    @Test(arguments: [
        "", "{", "{\"a\"}", "{\"a\":1,}", "[1,]", "01", "-", "1.", "1e", "+1", "NaN", "\"\u{01}\"", "\"\\x\"",
        "{\"a\":1} x", "tru", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "'a'", "[1 2]",
    ])
    func rejectsMalformedText(_ text: String) {
        #expect(throws: JSONParser.Error.self) { try parse(text) }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONParser.Error.self) { try parser.parse([0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: JSONParser.Error.self) { try parser.parse([0x22, 0xED, 0xA0, 0x80, 0x22]) }  // encoded surrogate
    }

    @Test func bigIntegersBecomeDoubles() throws {
        #expect(try parse("9223372036854775807") == .integer(.max))
        #expect(try parse("9223372036854775808") == .double(9223372036854775808))
        #expect(try parse("-9223372036854775808") == .integer(.min))
    }

    @Test func serializerRoundTrips() throws {
        let value: JSONValue = ["b": [1, 2.5, "q\"\\\n\u{01}"], "a": ["x": nil, "y": true]]
        let text = JSONSerializer.string(value)
        #expect(text == #"{"a":{"x":null,"y":true},"b":[1,2.5,"q\"\\\n\u0001"]}"#)
        #expect(try JSONParser().parse(Array(text.utf8)) == value)
    }
}
