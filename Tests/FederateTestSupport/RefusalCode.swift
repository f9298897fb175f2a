public import Federate

/// The code of the ``FederateError`` `body` throws; `nil` when it succeeds. Any other error is
/// the code `unexpected: <the error>`, which no expectation names, so the test shows it.
public func refusalCode<T>(_ body: () async throws -> T) async -> FederateError.Code? {
    do {
        _ = try await body()
        return nil
    } catch let error as FederateError {
        return error.code
    } catch {
        return FederateError.Code(rawValue: "unexpected: \(error)")
    }
}
