package import FederateTokens

/// How a key endpoint's document becomes a `JSONWebKeySet`: a JWKS (``jwks``), or a format
/// a provider module adds (FederateGoogle's x509 certificate map). The relying-party layer
/// knows only JWKS.
public struct KeySetFormat: Sendable {
    /// A short name, for logs and cache keys (`jwks`).
    package let name: String
    private let parser: @Sendable ([UInt8]) throws(FederateError) -> JSONWebKeySet

    /// Creates a format from its name and parser. The parser must skip unusable keys rather
    /// than fail the whole set, as `JSONWebKeySet/init(jwks:)` does.
    package init(name: String, parser: @escaping @Sendable ([UInt8]) throws(FederateError) -> JSONWebKeySet) {
        self.name = name
        self.parser = parser
    }

    /// Parses a fetched document.
    package func parse(_ document: [UInt8]) throws(FederateError) -> JSONWebKeySet {
        try parser(document)
    }

    /// A JWKS document (RFC 7517 §5).
    public static let jwks = KeySetFormat(name: "jwks") { (document) throws(FederateError) in try JSONWebKeySet(jwks: document) }
}
