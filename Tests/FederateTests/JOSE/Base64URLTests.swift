import Testing
import Federate
@testable import FederateAccounts
@testable import FederateRelyingParty
@testable import FederateTokens

@Suite struct Base64URLTests {
    @Test func roundTripsEveryLength() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let encoded = Base64URL.encode(bytes)
            #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
            #expect(Base64URL.decode(encoded) == bytes)
        }
    }

    @Test(arguments: ["Zm9v=", "Zm9=", "Zg==", "Zm 9v", "Zm9v\n", "Zm+v", "Zm/v", "Z", "Zm9vY", "Zm9?", "AB", "AAB"])
    func rejectsNonCanonicalText(_ text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test func acceptsCanonicalTails() {
        #expect(Base64URL.decode("AA") == [0])
        #expect(Base64URL.decode("AAA") == [0, 0])
        #expect(Base64URL.decode("_-8") == [0xFF, 0xEF])
    }
}
