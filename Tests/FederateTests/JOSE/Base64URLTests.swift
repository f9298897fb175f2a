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

    /// The decoding table, written out as literals, against RFC 4648's alphabet: each of the 64
    /// characters, in each of a quantum's four places, decodes to its own six bits there, and
    /// every other byte is refused.
    @Test func everyCharacterDecodesToItsPlaceInTheAlphabet() {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        for byte in UInt8.min...UInt8.max {
            let value = alphabet.firstIndex(of: byte)
            for place in 0..<4 {
                var quantum = Array("AAAA".utf8)
                quantum[place] = byte
                let decoded = quantum.withUnsafeBufferPointer { Base64URL.decode(bytes: $0) }
                guard let value else {
                    #expect(decoded == nil, "\(byte) in place \(place)")
                    continue
                }
                let group = UInt32(value) << (18 - 6 * place)
                #expect(decoded == [UInt8(group >> 16), UInt8(group >> 8 & 0xFF), UInt8(group & 0xFF)], "\(byte) in place \(place)")
            }
        }
    }

    /// `isCanonical` (the header caches' check, without decoding) accepts exactly what the
    /// decoder accepts: every byte, in every position of a full quantum and of both tails.
    @Test func canonicalCheckAgreesWithTheDecoder() {
        for byte in UInt8.min...UInt8.max {
            for prefix in ["", "A", "AA", "AAA", "AAAA", "AAAAA", "AAAAAA"] {
                for suffix in ["", "A", "AA", "AAA"] {
                    let input = Array(prefix.utf8) + [byte] + Array(suffix.utf8)
                    let decodes = input.withUnsafeBufferPointer { Base64URL.decode(bytes: $0) != nil }
                    #expect(Base64URL.isCanonical(input) == decodes, "\(input)")
                }
            }
        }
    }

    /// RFC 4648 §3.5: after two characters of a quantum the last one's low four bits carry no
    /// data, after three its low two; they must be zero. So exactly the characters whose value
    /// is a multiple of 16 (then 4) end a segment, in the decoder and in `isCanonical` alike.
    @Test func aTailsUnusedBitsMustBeZero() {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        for (value, character) in alphabet.enumerated() {
            for (prefix, unused) in [("A", 16), ("AA", 4), ("AAAAA", 16), ("AAAAAA", 4)] {
                let input = Array(prefix.utf8) + [character]
                let canonical = value % unused == 0
                #expect((input.withUnsafeBufferPointer { Base64URL.decode(bytes: $0) } != nil) == canonical, "\(input)")
                #expect(Base64URL.isCanonical(input) == canonical, "\(input)")
            }
        }
    }

    @Test func acceptsCanonicalTails() {
        #expect(Base64URL.decode("AA") == [0])
        #expect(Base64URL.decode("AAA") == [0, 0])
        #expect(Base64URL.decode("_-8") == [0xFF, 0xEF])
    }
}
