import Testing
import Federate
@testable import FederateTokens

/// The one validation pass: duplicate names compared decoded (and as canonical equivalents
/// beyond ASCII) at any depth and at any object size, strict UTF-8, and the index it records
/// for a token's claims.
@Suite struct JSONValidationTests {
    let parser = JSONParser(limits: .init(maxBytes: 1 << 16, maxDepth: 8))

    private func parse(_ text: String) throws(JSONParser.Error) -> JSONValue { try parser.parse(Array(text.utf8)) }

    private func members(_ text: String) throws(JSONParser.Error) -> JSONMembers {
        try JSONMembers(validating: Array(text.utf8), limits: parser.limits)
    }

    @Test func namesAreComparedDecoded() {
        // A registered name spelled with an escape is the same member.
        #expect(throws: JSONParser.Error.duplicateKey("iss")) { try parse(#"{"iss":"a","\u0069ss":"b"}"#) }
        #expect(throws: JSONParser.Error.duplicateKey("iss")) { try members(#"{"\u0069ss":"a","iss":"b"}"#) }
        // Any other name too, top level or nested.
        #expect(throws: JSONParser.Error.duplicateKey("ab")) { try parse(#"{"ab":1,"a\u0062":2}"#) }
        #expect(throws: JSONParser.Error.duplicateKey("ab")) { try parse(#"{"x":{"a\u0062":1,"ab":2}}"#) }
        #expect(throws: JSONParser.Error.duplicateKey("a/b")) { try parse(#"{"a/b":1,"a\/b":2}"#) }
        // Escaped the same way twice.
        #expect(throws: JSONParser.Error.duplicateKey("é")) { try parse(#"{"\u00e9":1,"\u00E9":2}"#) }
    }

    @Test func namesBeyondASCIIAreComparedAsCanonicalEquivalents() {
        // KELVIN SIGN is canonically "K"; a composed and a decomposed "é" are one name: a
        // materialized object (a [String: JSONValue]) could hold only one of each pair.
        #expect(throws: JSONParser.Error.self) { try parse("{\"K\":1,\"\u{212A}\":2}") }
        #expect(throws: JSONParser.Error.self) { try members("{\"\u{00E9}\":1,\"e\u{0301}\":2}") }
        #expect(throws: JSONParser.Error.self) { try parse("{\"x\":[{\"a;\":1,\"a\u{037E}\":2}]}") }
        // Different names stay different.
        #expect(throws: Never.self) { try parse("{\"K\":1,\"k\":2,\"\u{212B}\":3}") }
    }

    @Test func largeObjectsAreCheckedToo() throws {
        // Past the pairwise comparisons, names are sorted: a repeat at the end is still found.
        let names = (0..<300).map { "\"claim-\($0)\":\($0)" }
        let object = "{" + names.joined(separator: ",") + "}"
        #expect(try members(object).count == 300)
        #expect(throws: JSONParser.Error.duplicateKey("claim-7")) {
            try parse("{" + (names + ["\"claim-7\":0"]).joined(separator: ",") + "}")
        }
        #expect(throws: JSONParser.Error.duplicateKey("exp")) {
            try members("{" + (names + ["\"exp\":1", "\"exp\":2"]).joined(separator: ",") + "}")
        }
    }

    @Test func utf8IsCheckedAsUnicodeDefinesIt() {
        for bytes: [UInt8] in [
            [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xF0, 0x80, 0x80, 0xAF],  // overlong
            [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF],  // encoded surrogates
            [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],  // beyond U+10FFFF
            [0x80], [0xC3], [0xE2, 0x82], [0xFF],  // stray or cut
        ] {
            #expect(throws: JSONParser.Error.self, "\(bytes)") { try parser.parse([0x22] + bytes + [0x22]) }
            #expect(throws: JSONParser.Error.self, "\(bytes)") {
                try parser.parse(Array(#"{"a":""#.utf8) + bytes + Array(#"","b":1}"#.utf8))
            }
        }
        // The longest of each well-formed length, in a long string (read eight bytes at a time).
        let valid = "aaaaaaaa\u{7F}\u{7FF}\u{FFFF}\u{10FFFF}\u{E9}bbbbbbbbbbbbbbbb"
        #expect(throws: Never.self) { try parse("\"" + valid + "\"") }
        #expect((try? parse("\"" + valid + "\"")) == .string(valid))
    }

    @Test func numbersAsBefore() throws {
        #expect(
            try parse("[1767225600,-0,1.5e2,9223372036854775807,9223372036854775808]")
                == [.integer(1_767_225_600), .integer(0), .double(150), .integer(.max), .double(9_223_372_036_854_775_808)])
        for text in ["1e400", "-1e400", "01", "1.", ".5", "+1", "1e", "--1", "0x10"] {
            #expect(throws: JSONParser.Error.self, "\(text)") { try parse(text) }
        }
    }

    @Test func theIndexFindsEachMemberWithoutBuildingTheObject() throws {
        let claims = try members(
            #"{"\u0069ss":"https://issuer.example","aud":["a","b"],"exp":1767225600,"x-custom":{"k":[1,true,null]},"na\u006De":"Zoë","e":"\u00e9\n"}"#
        )
        #expect(claims.count == 6)
        #expect(claims.names == ["iss", "aud", "exp", "x-custom", "name", "e"])
        #expect(claims["iss"] == "https://issuer.example")
        #expect(claims["aud"] == ["a", "b"])
        #expect(claims["x-custom"] == ["k": [1, true, nil]])
        #expect(claims["name"] == "Zoë" && claims["e"] == "é\n")
        #expect(claims.contains("exp") && !claims.contains("nbf") && !claims.contains("x-Custom"))
        #expect(
            claims.dictionary
                == (try parser.parseObject(
                    Array(
                        #"{"iss":"https://issuer.example","aud":["a","b"],"exp":1767225600,"x-custom":{"k":[1,true,null]},"name":"Zoë","e":"é\n"}"#
                            .utf8))))
        // Looked up by exact bytes: a look-alike name finds nothing.
        let kelvin = try members("{\"\u{212A}\":1}")
        #expect(kelvin["K"] == nil && kelvin["\u{212A}"] == 1)
        // A literal and a dictionary give the same members.
        let literal: JSONMembers = ["acr": "phr", "amr": ["hwk"]]
        #expect(literal == JSONMembers(["amr": ["hwk"], "acr": "phr"]) && literal["acr"] == "phr")
    }

    @Test func everyRegisteredNameIsRecognizedAndNothingElse() {
        for name in JSONName.allCases where name != .other {
            #expect(JSONName.classify(name.text) == name, "\(name.text)")
            // One letter off, one letter more or less: another name.
            #expect(JSONName.classify(name.text + "x") == .other)
            #expect(JSONName.classify(String(name.text.dropLast())) == .other)
            #expect(JSONName.classify(name.text.uppercased()) == .other)
        }
        #expect(JSONName.classify("") == .other && JSONName.classify("\u{212A}id") == .other)
    }
}
