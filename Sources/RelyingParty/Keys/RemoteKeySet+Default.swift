package import FederateTokens

extension RemoteKeySet {
    /// `keys` when given; else a ``RemoteKeySet`` on `url` fetched over `httpClient`. Provider
    /// verifiers take one or the other: without either there is nothing to verify with, so
    /// this throws `FederateError/Code/invalidConfiguration`.
    package static func keys(
        _ keys: (any KeySetProvider)?, orFetch url: String, format: KeySetFormat = .jwks, over httpClient: (any HTTPClient)?,
        clock: FederateClock = .system, observability: Observability = Observability()
    ) throws(FederateError) -> any KeySetProvider {
        if let keys { return keys }
        guard let httpClient else {
            throw FederateError(.invalidConfiguration, "give the verifier its keys, or an HTTP client to fetch them from \(url)")
        }
        return try RemoteKeySet(url: url, format: format, httpClient: httpClient, clock: clock, observability: observability)
    }
}
