import ArgumentParser
import Federate
import FederateApple
import FederateGoogle
import FederateMicrosoft
import Foundation

/// `federate verify --provider`: the built-in providers' own verifiers.
enum ProviderVerification {
    /// The providers `--provider` accepts.
    enum Name: String, CaseIterable {
        case google, firebase, apple, microsoft
        case firebaseSession = "firebase-session"

        /// Firebase's ID tokens or session cookies: the project is the audience.
        var isFirebase: Bool { self == .firebase || self == .firebaseSession }
    }

    /// What `verify --provider` needs besides the provider's name.
    struct Settings {
        var audiences: [String] = []
        var projectID: String?
        /// A file (JWKS or x509 map, recognised by content) or a URL (a JWKS for google and
        /// apple, an x509 map for firebase and firebase-session); `nil` uses the provider's real keys.
        var keysSource: String?
        /// `--firebase-emulator`: only the Auth emulator's unsigned tokens are accepted.
        var emulator: FirebaseEmulator?
        /// Microsoft: who may sign in, and where the authority is (`nil`: the global cloud).
        var microsoftAudience: MicrosoftAudience?
        var authorityHost: String?
        /// `--allow-private-endpoint`: hosts and networks the keys may be fetched from.
        var allowList: PrivateNetworkAllowList = .none
        var clock: FederateClock = .system
    }

    /// The provider module's own verifier for `name`, verifying one token and returning its claims.
    static func make(_ name: Name, _ settings: Settings) async throws -> VerificationSession {
        let keys = try keyProvider(settings.keysSource, urlFormat: name.isFirebase ? .x509Map : .jwks, allowList: settings.allowList)
        let http = AsyncHTTPClientTransport.shared
        let clock = settings.clock
        switch name {
        case .google:
            let verifier = try GoogleIDTokenVerifier(
                clientIDs: IdentifierSet(settings.audiences), keys: keys, httpClient: http, clock: clock)
            return VerificationSession(claims: { token, expected throws(FederateError) in
                try await verifier.verify(token, nonce: expected.nonce).claims
            })
        case .apple:
            let verifier = try AppleIDTokenVerifier(
                clientIDs: IdentifierSet(settings.audiences), keys: keys, httpClient: http, clock: clock)
            return VerificationSession(claims: { token, expected throws(FederateError) in
                try await verifier.verify(token, rawNonce: expected.nonce).idToken.claims
            })
        case .firebase:
            let verifier = try FirebaseIDTokenVerifier(
                projectID: FirebaseProjectID.resolve(explicit: settings.projectID), keys: keys, httpClient: http,
                emulator: settings.emulator, clock: clock)
            return VerificationSession(claims: { token, _ throws(FederateError) in
                try await verifier.verify(token, checkRevoked: false).claims
            })
        case .firebaseSession:
            let verifier = try FirebaseSessionCookieVerifier(
                projectID: FirebaseProjectID.resolve(explicit: settings.projectID), keys: keys, httpClient: http,
                emulator: settings.emulator, clock: clock)
            return VerificationSession(claims: { token, _ throws(FederateError) in
                try await verifier.verify(token, checkRevoked: false).claims
            })
        case .microsoft:
            // Discovery at the audience's authority, keys from its common key set, the tenant
            // rule of FederateMicrosoft's profile: the verification a sign-in's ID token gets.
            guard let audience = settings.microsoftAudience, let clientID = settings.audiences.first else {
                throw FederateError(.invalidConfiguration, "Microsoft needs the application (client) ID and who may sign in")
            }
            let provider = try MicrosoftProvider(
                clientID: clientID, audience: audience,
                endpoints: settings.authorityHost.map(MicrosoftEndpoints.at) ?? .microsoft,
                cache: ProviderCache(httpClient: http, clock: clock))
            return VerificationSession(claims: { token, expected throws(FederateError) in
                try await provider.client().idTokenVerifier.verify(token, expecting: expected).claims
            })
        }
    }

    private static func keyProvider(
        _ source: String?, urlFormat: KeySetFormat, allowList: PrivateNetworkAllowList
    ) throws -> (any KeySetProvider)? {
        guard let source else { return nil }
        if source.hasPrefix("https://") || source.hasPrefix("http://") {
            return try RemoteKeySet(
                url: source, format: urlFormat, destination: DestinationPolicy(issuer: source, allowing: allowList),
                httpClient: AsyncHTTPClientTransport.shared)
        }
        guard let data = FileManager.default.contents(atPath: source) else {
            throw FederateError(.invalidKeySet, "cannot read key file '\(source)'")
        }
        let bytes = Array(data)
        if case .object(let members) = try? JSONParser().parse(bytes), members["keys"] != nil {
            return try JSONWebKeySet(jwks: bytes)
        }
        return try JSONWebKeySet(x509Map: bytes)
    }

    /// `--firebase-emulator HOST`: `host:port` on a loopback host only. Emulator mode accepts
    /// tokens nobody signed, so it is for a developer's machine, where the emulator runs; a
    /// remote host suggests a deployed setting, where it would let anyone in. `nil` for a host
    /// that is malformed or not loopback.
    static func loopbackEmulator(_ host: String) -> FirebaseEmulator? {
        guard let emulator = try? FirebaseEmulator(host: host) else { return nil }
        let name: Substring
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            name = host[host.index(after: host.startIndex)..<close]
        } else {
            name = host.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0]
        }
        return EndpointSecurity.isLoopback(host: String(name)) ? emulator : nil
    }
}
extension ProviderVerification.Name: ExpressibleByArgument {}
