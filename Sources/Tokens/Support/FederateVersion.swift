/// The version of the Federate library.
///
/// Used, for example, in the default `User-Agent` header that
/// `AsyncHTTPClientTransport` sends.
package enum FederateVersion {
    /// The semantic version of this release, e.g. `0.1.0`.
    package static let string = "0.2.0"
}
