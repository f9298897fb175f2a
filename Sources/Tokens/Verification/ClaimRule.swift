public import Foundation

/// One check on a JWT's claims (or protected header), run after its signature verified.
///
/// A rule has one job — expiry, issuer, audience, type — and throws ``FederateError`` with a
/// stable code when the token breaks it. Each kind of token composes its own ``ClaimRules``;
/// `Docs/Verification.md` has the table of rules per kind. Rules are values: build them once,
/// share them across tasks.
public protocol ClaimRule: Sendable {
    /// Throws when `token` breaks the rule at `context.now`.
    func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError)
}

/// A rule whose verdict depends on the token and the rule's own settings alone, never on the
/// ``ClaimContext`` (the time) or on anything outside: a verified-token cache hit does not run
/// it again, since it passed on these very bytes. Every other rule, a rule of your own
/// included, runs again on every hit.
package protocol TimeIndependentClaimRule: ClaimRule {}

/// What every rule may read besides the token: the instant of verification and the clock
/// tolerance, as dates and spans and, for comparing with a token's `NumericDate`s, in seconds.
public struct ClaimContext: Sendable, Hashable {
    /// The instant the time rules evaluate at (the verifier's ``FederateClock/now``).
    public let now: Date
    /// The clock skew allowed for `exp`, `iat`, `nbf` and `auth_time`.
    public let clockTolerance: Duration
    /// ``now`` in seconds since 1970, as `NumericDate` counts.
    package let secondsSince1970: Double
    /// ``clockTolerance`` in seconds.
    let toleranceSeconds: Double

    /// Creates a context.
    package init(now: Date, clockTolerance: Duration) {
        self.now = now
        self.clockTolerance = clockTolerance
        self.secondsSince1970 = now.timeIntervalSince1970
        self.toleranceSeconds = clockTolerance.inSeconds
    }
}

/// The rules of one kind of token, applied in order; the first broken rule's error is thrown.
public struct ClaimRules: Sendable, ExpressibleByArrayLiteral {
    /// The rules, in the order they run.
    package private(set) var rules: [any ClaimRule]

    /// Rules from a list.
    public init(_ rules: [any ClaimRule]) {
        self.rules = rules
    }

    public init(arrayLiteral rules: any ClaimRule...) {
        self.rules = rules
    }

    /// Adds a rule at the end.
    package mutating func append(_ rule: some ClaimRule) {
        rules.append(rule)
    }

    /// Adds every rule of `other` at the end.
    package mutating func append(contentsOf other: ClaimRules) {
        rules.append(contentsOf: other.rules)
    }

    /// Runs every rule on `token`.
    package func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        // Each rule called where the array holds it: `for rule in rules` copied (and retained)
        // every existential, and so did reading it from `withUnsafeBufferPointer`'s buffer
        // (the buffer's subscript returns a copy); the array's own subscript is borrowed.
        for index in rules.indices { try rules[index].check(token, context: context) }
    }
}
