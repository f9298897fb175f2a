package import FederateTokens

/// The default readiness round trip, for stores that have no cheaper one.
extension AccountStorage {
    /// Looks up a session ID that cannot exist: one indexed read.
    public func ping() async throws(FederateError) {
        _ = try await isSessionRevoked(id: "")
    }
}
