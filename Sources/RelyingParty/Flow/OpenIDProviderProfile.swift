public import FederateTokens

/// What a provider module adds to standard OpenID Connect: the relying-party layer names no
/// provider, and an ``OpenIDClient`` is built from discovery plus a profile.
///
/// Every requirement has a default (``StandardOpenIDProfile`` is a profile that adds
/// nothing), so a provider module implements only what its provider does differently.
/// A client derives everything once, at construction; nothing can be changed afterwards.
public protocol OpenIDProviderProfile: Sendable {
    /// The ID-token policy for `clientID` at the provider that `metadata` describes. The
    /// default is `StandardOpenIDProfile/standardPolicy(metadata:clientID:authentication:)`
    /// with ``tenantIssuer`` checking `iss` when the profile has one.
    func policy(metadata: ProviderMetadata, clientID: String, authentication: ClientAuthentication) -> IDTokenPolicy

    /// For a provider whose issuer is a tenant template (Microsoft Entra's
    /// `https://login.microsoftonline.com/{tenantid}/v2.0`): the template, the tenants accepted
    /// and the tenant claim. Discovery then accepts the templated `issuer`
    /// (`DiscoveryClient/metadata(for:tenantIssuer:privateNetworkAllowList:)`) and the default
    /// policy checks `iss` against each token's own tenant (`TenantIssuerRule`). Only a rule
    /// built with an explicit tenant list or `AcceptedTenants.anyTenant` exists, so no profile
    /// accepts every tenant by accident. Default: `nil`, a single issuer.
    var tenantIssuer: TenantIssuerRule? { get }

    /// Parameters this provider adds to every authorization request (the caller's custom
    /// parameters override them; reserved names are dropped by the request builder).
    var authorizationParameters: [String: String] { get }

    /// The revocation endpoint to use when discovery advertises none. Default: none.
    var fallbackRevocationEndpoint: String? { get }

    /// The error as the application should see it: a provider module adds what its
    /// provider's codes mean (`FederateError/withGuidance(_:)`), keeping the code. Applied to
    /// every error an ``OpenIDClient`` throws. Default: unchanged.
    func explain(_ error: FederateError) -> FederateError
}

extension OpenIDProviderProfile {
    public func policy(metadata: ProviderMetadata, clientID: String, authentication: ClientAuthentication) -> IDTokenPolicy {
        var policy = StandardOpenIDProfile.standardPolicy(metadata: metadata, clientID: clientID, authentication: authentication)
        policy.tenantIssuer = tenantIssuer
        return policy
    }

    /// None: the provider has one issuer.
    public var tenantIssuer: TenantIssuerRule? { nil }

    public var authorizationParameters: [String: String] { [:] }

    /// Where the provider's keys are, and in what format: discovery's `jwks_uri`, JWKS.
    func keySetLocation(metadata: ProviderMetadata) -> (url: String, format: KeySetFormat) { (metadata.jwksURI, .jwks) }

    public var fallbackRevocationEndpoint: String? { nil }

    /// The device authorization endpoint (RFC 8628 §3.1) to use when discovery advertises no
    /// `device_authorization_endpoint` (django-oauth-toolkit serves one without advertising
    /// it): a ``StandardOpenIDProfile``'s, else none.
    package var fallbackDeviceAuthorizationEndpoint: String? { (self as? StandardOpenIDProfile)?.fallbackDeviceAuthorizationEndpoint }

    /// The loopback, link-local, private and unspecified destinations this provider may use
    /// although its issuer is not on loopback (`DestinationPolicy`): a ``StandardOpenIDProfile``'s,
    /// else none (public addresses only, unless the issuer is on loopback).
    package var privateNetworkAllowList: PrivateNetworkAllowList { (self as? StandardOpenIDProfile)?.privateNetworkAllowList ?? .none }

    public func explain(_ error: FederateError) -> FederateError { error }
}

/// Standard OpenID Connect, nothing added: the profile of any provider configured by its
/// issuer alone.
public struct StandardOpenIDProfile: OpenIDProviderProfile {
    /// The revocation endpoint to use when discovery advertises none.
    public let fallbackRevocationEndpoint: String?
    /// The device authorization endpoint to use when discovery advertises none.
    package let fallbackDeviceAuthorizationEndpoint: String?
    /// The private destinations this provider may use although its issuer is not on loopback.
    package let privateNetworkAllowList: PrivateNetworkAllowList

    /// Creates the standard profile, optionally with a revocation endpoint and a device
    /// authorization endpoint for providers that do not advertise theirs, and the private
    /// destinations (an intranet provider's hosts or networks) it may use.
    public init(
        fallbackRevocationEndpoint: String? = nil, fallbackDeviceAuthorizationEndpoint: String? = nil,
        privateNetworkAllowList: PrivateNetworkAllowList = .none
    ) {
        self.fallbackRevocationEndpoint = fallbackRevocationEndpoint
        self.fallbackDeviceAuthorizationEndpoint = fallbackDeviceAuthorizationEndpoint
        self.privateNetworkAllowList = privateNetworkAllowList
    }

    /// The standard policy: the discovered issuer, this client as the audience, the
    /// advertised signing algorithms; HS256/384/512 (keyed with the client secret, OpenID
    /// Connect Core §10.1) only when the provider advertises them and this client has a secret.
    package static func standardPolicy(metadata: ProviderMetadata, clientID: String, authentication: ClientAuthentication) -> IDTokenPolicy
    {
        var algorithms = metadata.defaultIDTokenAlgorithms
        var secret: HMACSecret?
        let advertisedHMAC = metadata.idTokenSigningAlgValuesSupported.compactMap(JWSAlgorithm.init(rawValue:)).filter(\.isSymmetric)
        if let clientSecret = authentication.clientSecret, !advertisedHMAC.isEmpty {
            secret = HMACSecret(utf8: clientSecret)
            algorithms.formUnion(advertisedHMAC)
        }
        return IDTokenPolicy(issuers: [metadata.issuer], audiences: [clientID], allowedAlgorithms: algorithms, hmacSecret: secret)
    }
}
