import ArgumentParser
import Federate
import FederateApple
import FederateGoogle
import Foundation

/// `federate verify --provider`: the built-in providers' own verifiers.
enum ProviderVerification {
    /// The providers `--provider` accepts.
    enum Name: String, CaseIterable {
        case google, firebase, apple
    }

    /// Builds the provider module's own verifier, through the one bearer-verifier protocol.
    /// `keysSource` is a file (JWKS or x509 map, recognised by content) or a URL (a JWKS for
    /// google and apple, an x509 map for firebase); `nil` uses the provider's real keys.
    static func make(
        _ name: Name, audiences: [String], projectID: String?, keysSource: String?, allowList: PrivateNetworkAllowList = .none,
        clock: FederateClock
    ) throws -> any BearerTokenVerifier {
        let keys = try keyProvider(keysSource, urlFormat: name == .firebase ? .x509Map : .jwks, allowList: allowList)
        let http = AsyncHTTPClientTransport.shared
        switch name {
        case .google: return try GoogleIDTokenVerifier(clientIDs: IdentifierSet(audiences), keys: keys, httpClient: http, clock: clock)
        case .firebase:
            return try FirebaseIDTokenVerifier(
                projectID: FirebaseProjectID.resolve(explicit: projectID), keys: keys, httpClient: http, clock: clock)
        case .apple: return try AppleIDTokenVerifier(clientIDs: IdentifierSet(audiences), keys: keys, httpClient: http, clock: clock)
        }
    }

    private static func keyProvider(_ source: String?, urlFormat: KeySetFormat, allowList: PrivateNetworkAllowList) throws -> (any KeySetProvider)? {
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
}
extension ProviderVerification.Name: ExpressibleByArgument {}
