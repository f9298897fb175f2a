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

    /// Verifies a token the way the provider module does; returns the verified claims.
    typealias Verify = @Sendable (_ token: String, _ expectations: IDTokenExpectations) async throws -> [String: JSONValue]

    /// Builds the verifier. `keysSource` is a file (JWKS or x509 map, recognised by content)
    /// or a URL (a JWKS for google and apple, an x509 map for firebase); `nil` uses the
    /// provider's real keys.
    static func make(_ name: Name, audiences: [String], projectID: String?, keysSource: String?) throws -> Verify {
        let keys = try keyProvider(keysSource, urlFormat: name == .firebase ? .x509Map : .jwks)
        switch name {
        case .google:
            let verifier = try GoogleIDTokenVerifier(clientIDs: IdentifierSet(audiences), keys: keys, httpClient: AsyncHTTPClientTransport.shared)
            return { token, expectations in
                try await verifier.verify(token, nonce: expectations.nonce, now: expectations.now).claims
            }
        case .firebase:
            let project = FirebaseProjectID.resolve(explicit: projectID)
            let verifier = try FirebaseIDTokenVerifier(projectID: project, keys: keys, httpClient: AsyncHTTPClientTransport.shared)
            return { token, expectations in try await verifier.verify(token, now: expectations.now).idToken.claims }
        case .apple:
            let verifier = try AppleIDTokenVerifier(clientIDs: IdentifierSet(audiences), keys: keys, httpClient: AsyncHTTPClientTransport.shared)
            return { token, expectations in
                try await verifier.verify(token, rawNonce: expectations.nonce, now: expectations.now).idToken.claims
            }
        }
    }

    private static func keyProvider(_ source: String?, urlFormat: KeySetFormat) throws -> (any KeySetProvider)? {
        guard let source else { return nil }
        if source.hasPrefix("https://") || source.hasPrefix("http://") {
            return try RemoteKeySet(url: source, format: urlFormat, httpClient: AsyncHTTPClientTransport.shared)
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
