/// The client data the browser signed over (WebAuthn §5.8.1): `type`, `challenge`, `origin`,
/// and `crossOrigin`/`topOrigin` for a ceremony in a cross-origin iframe.
///
/// Validated once (strict JSON: no duplicate members, UTF-8, bounded) and read in place: the
/// type and origin are compared as the text's bytes (decoded when escaped), never as `String`s.
struct CollectedClientData: Sendable {
    /// The members, validated.
    let members: JSONMembers
    /// `type`, `challenge` and `origin`, all strings.
    let type: JSONMember, origin: JSONMember
    /// The challenge, decoded from base64url.
    let challenge: [UInt8]
    /// Whether the ceremony ran in a cross-origin iframe.
    let crossOrigin: Bool
    /// The top-level origin of that iframe's page, when the browser sends it.
    let topOrigin: String?

    /// The largest client data read.
    static let maximumByteCount = 16 * 1024

    /// Reads `clientDataJSON`.
    init(json: [UInt8]) throws(FederateError) {
        do {
            members = try JSONMembers(validating: json, limits: .init(maxBytes: Self.maximumByteCount, maxDepth: 8))
        } catch {
            throw FederateError(.webauthnMalformed, "clientDataJSON is not a JSON object", cause: error)
        }
        guard let type = members.member(named: "type"), type.kind == .string, let challenge = members.member(named: "challenge"),
            challenge.kind == .string, let origin = members.member(named: "origin"), origin.kind == .string
        else { throw FederateError(.webauthnMalformed, "clientDataJSON lacks a string type, challenge or origin") }
        guard let challengeBytes = members.withStringBytes(challenge, { Base64URL.decode(bytes: $0) }) else {
            throw FederateError(.webauthnChallengeMismatch, "the client data's challenge is not base64url")
        }
        var crossOrigin = false
        if let member = members.member(named: "crossOrigin"), member.kind != .null {
            guard member.kind == .true || member.kind == .false else {
                throw FederateError(.webauthnMalformed, "clientDataJSON's crossOrigin is not a Boolean")
            }
            crossOrigin = member.kind == .true
        }
        var topOrigin: String?
        if let member = members.member(named: "topOrigin"), member.kind != .null {
            guard member.kind == .string else { throw FederateError(.webauthnMalformed, "clientDataJSON's topOrigin is not a string") }
            topOrigin = members.string(member)
        }
        self.type = type
        self.origin = origin
        self.challenge = challengeBytes
        self.crossOrigin = crossOrigin
        self.topOrigin = topOrigin
    }

    /// Whether `type` is exactly `expected` (its UTF-8 bytes).
    func typeIs(_ expected: String) -> Bool {
        members.withStringBytes(type) { $0.elementsEqual(expected.utf8) }
    }

    /// Whether `origin` is exactly one of `allowed` (UTF-8 bytes).
    func originIsOne(of allowed: [String]) -> Bool {
        members.withStringBytes(origin) { bytes in allowed.contains { $0.utf8.elementsEqual(bytes) } }
    }

    /// The origin, for a message.
    var originText: String { members.string(origin) }
}
