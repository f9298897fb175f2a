/// What a WebAuthn relying party is: its RP ID and name, the origins its pages run on, and
/// its policy (user verification, lifetimes, algorithms). One immutable value per site.
///
/// ```swift
/// let configuration = try WebAuthnConfiguration(relyingPartyID: "example.com", relyingPartyName: "Example")
/// // development: a page served on http://localhost:8080
/// let local = try WebAuthnConfiguration(
///     relyingPartyID: "localhost", relyingPartyName: "Example (dev)", allowedOrigins: ["http://localhost:8080"])
/// ```
///
/// The RP ID is a domain, never an IP address, and each allowed origin's host must be the RP
/// ID or a subdomain of it (`host == rpID` or `host` ends with `"." + rpID`); origins are
/// compared with the client data's `origin` exactly, byte for byte.
public struct WebAuthnConfiguration: Sendable, Hashable {
    /// The RP ID: the domain credentials are scoped to, e.g. `example.com`.
    public let relyingPartyID: String
    /// The name shown to the user while a passkey is created.
    public let relyingPartyName: String
    /// The origins a ceremony may run on, e.g. `https://example.com`, `https://login.example.com`
    /// or, for development, `http://localhost:8080`.
    public let allowedOrigins: [String]
    /// The top-level origins that may embed a ceremony in a cross-origin iframe; empty (the
    /// default) refuses every cross-origin ceremony with `webauthn_cross_origin`.
    public let allowedTopOrigins: [String]
    /// Whether every ceremony requires user verification; a single challenge may require it
    /// even when this says ``WebAuthnUserVerification/preferred``.
    public let userVerification: WebAuthnUserVerification
    /// How long an issued challenge may be answered (5 minutes by default).
    public let challengeLifetime: Duration
    /// The `timeout` the options give the browser (5 minutes by default).
    public let timeout: Duration
    /// The COSE algorithms a passkey may use, most preferred first (the options'
    /// `pubKeyCredParams`); a subset of ``COSEAlgorithm/supported``.
    public let algorithms: [COSEAlgorithm]

    /// Creates a configuration, or throws `invalid_configuration` when the RP ID is not a
    /// domain (empty, an IP address, a single label other than `localhost`, an empty label),
    /// an origin is not `https://host[:port]` (or `http://localhost[:port]` for development)
    /// with a host within the RP ID, a lifetime is not positive, or an algorithm is not one
    /// Federate verifies. `allowedOrigins` defaults to `https://<relyingPartyID>`.
    public init(
        relyingPartyID: String,
        relyingPartyName: String,
        allowedOrigins: [String]? = nil,
        allowedTopOrigins: [String] = [],
        userVerification: WebAuthnUserVerification = .preferred,
        challengeLifetime: Duration = .seconds(300),
        timeout: Duration = .seconds(300),
        algorithms: [COSEAlgorithm] = COSEAlgorithm.supported
    ) throws(FederateError) {
        try WebAuthnOrigin.checkRelyingPartyID(relyingPartyID)
        let origins = allowedOrigins ?? ["https://" + relyingPartyID]
        guard !origins.isEmpty else { throw FederateError(.invalidConfiguration, "WebAuthn needs at least one allowed origin") }
        for origin in origins { try WebAuthnOrigin.check(origin, relyingPartyID: relyingPartyID) }
        for origin in allowedTopOrigins { try WebAuthnOrigin.check(origin, relyingPartyID: nil) }
        guard challengeLifetime > .zero, timeout > .zero else {
            throw FederateError(.invalidConfiguration, "WebAuthn lifetimes must be positive")
        }
        guard !algorithms.isEmpty, algorithms.allSatisfy(COSEAlgorithm.supported.contains) else {
            throw FederateError(.invalidConfiguration, "WebAuthn algorithms must be among ES256, EdDSA and RS256")
        }
        guard !relyingPartyName.isEmpty else { throw FederateError(.invalidConfiguration, "the relying party's name is empty") }
        self.relyingPartyID = relyingPartyID
        self.relyingPartyName = relyingPartyName
        self.allowedOrigins = origins
        self.allowedTopOrigins = allowedTopOrigins
        self.userVerification = userVerification
        self.challengeLifetime = challengeLifetime
        self.timeout = timeout
        self.algorithms = algorithms
    }
}
