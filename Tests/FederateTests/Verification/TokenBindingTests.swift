import Foundation
import Testing
@testable import FederateTokens

/// The one binding rule (`TokenBinding`): which confirmations a token may carry, and how a
/// request may present it. Only an unbound token is Bearer; only `cnf.jkt` alone is DPoP;
/// anything else is refused however it is presented.
@Suite struct TokenBindingTests {
    static let jkt = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"

    static func binding(_ cnf: JSONValue?, tokenType: String? = nil) throws -> TokenBinding {
        TokenBinding(
            confirmation: try cnf.map { (value) throws(FederateError) in try TokenConfirmation(json: value) }, tokenType: tokenType)
    }

    static func code(_ body: () throws -> Any?) -> FederateError.Code? {
        do {
            _ = try body()
            return nil
        } catch let error as FederateError {
            return error.code
        } catch {
            return "unexpected"
        }
    }

    @Test func whatATokenIsBoundTo() throws {
        #expect(try Self.binding(nil) == .bearer)
        #expect(try Self.binding(nil, tokenType: "Bearer") == .bearer)
        #expect(try Self.binding(["jkt": .string(Self.jkt)]) == .dpop(thumbprint: Self.jkt))
        #expect(try Self.binding(["jkt": .string(Self.jkt)], tokenType: "DPoP") == .dpop(thumbprint: Self.jkt))
        // Bindings this server cannot check.
        let unverifiable: [(JSONValue?, String?)] = [
            (["x5t#S256": "bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2"], nil), (["jwk": ["kty": "EC"]], nil), (["jwe": "x"], nil),
            (["jku": "https://x"], nil), (["kid": "k"], nil), (["unknown": true], nil), ([:], nil),
            (["jkt": .string(Self.jkt), "x5t#S256": "abc"], nil), (nil, "DPoP"), (nil, "dpop"), (nil, "DPOP"),
        ]
        for (cnf, tokenType) in unverifiable {
            let binding = try Self.binding(cnf, tokenType: tokenType)
            guard case .unverifiable = binding else {
                Issue.record("\(String(describing: cnf)) \(tokenType ?? "-") is \(binding)")
                continue
            }
            #expect(Self.code { try binding.requireCheckable() } == .tokenBindingMismatch)
            #expect(Self.code { try binding.check(presentedWith: .bearer) } == .tokenBindingMismatch)
            #expect(Self.code { try binding.check(presentedWith: .dpop) } == .tokenBindingMismatch)
        }
        // A `cnf` that is not an object, or a malformed `jkt`, cannot even be read as a binding.
        for cnf: JSONValue in ["abc", 1, .null, ["jkt"], ["jkt": "short"], ["jkt": 5]] {
            #expect(Self.code { try Self.binding(cnf) } == .tokenBindingMismatch, "\(cnf)")
        }
    }

    @Test func howEachBindingMayBePresented() throws {
        #expect(try TokenBinding.bearer.check(presentedWith: .bearer) == nil)
        #expect(Self.code { try TokenBinding.bearer.check(presentedWith: .dpop) } == .dpopBindingMismatch)
        #expect(try TokenBinding.dpop(thumbprint: Self.jkt).check(presentedWith: .dpop) == Self.jkt)
        #expect(Self.code { try TokenBinding.dpop(thumbprint: Self.jkt).check(presentedWith: .bearer) } == .tokenBindingMismatch)
    }

    /// The caller's identity carries the same binding whichever way the token was verified.
    @Test func callerIdentitiesCarryTheBinding() throws {
        func caller(_ cnf: JSONValue?, tokenType: String?) throws -> VerifiedToken {
            VerifiedToken(
                kind: .introspection, providerID: nil, issuer: nil, subject: "s", clientID: nil, scopes: .none, expiresAt: nil,
                confirmation: try cnf.map { (value) throws(FederateError) in try TokenConfirmation(json: value) }, claims: [:],
                tokenType: tokenType)
        }
        #expect(try caller(nil, tokenType: nil).binding == .bearer)
        #expect(try caller(["jkt": .string(Self.jkt)], tokenType: "DPoP").binding == .dpop(thumbprint: Self.jkt))
        guard case .unverifiable = try caller(nil, tokenType: "DPoP").binding else {
            Issue.record("a DPoP token_type without cnf.jkt passed for a bearer token")
            return
        }
    }
}
