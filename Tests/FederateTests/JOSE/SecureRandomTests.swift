import Testing
@testable import FederateTokens

@Suite struct SecureRandomTests {
    /// Every length, including those that are not a multiple of the eight bytes drawn at a time;
    /// none for a negative count, which used to trap.
    @Test func givesExactlyTheBytesAskedFor() {
        for count in [-1, 0, 1, 7, 8, 9, 15, 16, 21, 32, 33, 64] {
            #expect(SecureRandom.bytes(count).count == max(count, 0))
        }
        #expect(SecureRandom.token(byteCount: 16).utf8.count == 22)
        #expect(SecureRandom.token().utf8.count == 43)
    }

    /// Every position of a draw varies, the last bytes of a partial word included: a byte left
    /// unwritten or a word repeated would keep a position constant over 64 draws.
    @Test func everyPositionVaries() {
        let draws = (0..<64).map { _ in SecureRandom.bytes(21) }
        for position in 0..<21 {
            #expect(Set(draws.map { $0[position] }).count > 8, "position \(position)")
        }
        #expect(Set(draws).count == 64)
    }
}
