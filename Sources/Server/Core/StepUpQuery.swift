import Federate

/// The step-up parameters of the start route, `acr_values` (space-separated) and `max_age`
/// (whole seconds), read strictly: at most ``maximumValues`` values of printable ASCII,
/// `max_age` digits only, at most ``maximumAgeSeconds``.
enum StepUpQuery {
    static let maximumValues = 16
    static let maximumAgeSeconds: Int64 = 366 * 24 * 3600

    /// The request, or `nil` when the query names neither parameter. The `acr_values` are
    /// demanded, not only wished for: the ID token's `acr` must be one of them.
    static func parse(acrValues: String?, maxAge: String?) throws(FederateHTTPError) -> StepUpRequest? {
        guard acrValues != nil || maxAge != nil else { return nil }
        func refuse(_ message: String) -> FederateHTTPError { FederateHTTPError(.badRequest, code: .invalidRequest, message: message) }
        var values: [String] = []
        if let acrValues {
            values = acrValues.split(separator: " ").map(String.init)
            guard !values.isEmpty, values.count <= maximumValues,
                values.allSatisfy({
                    $0.utf8.count <= AuthenticationLevel.maximumValueBytes && $0.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
                })
            else { throw refuse("acr_values is 1 to \(maximumValues) space-separated values of printable ASCII") }
        }
        var age: Duration?
        if let maxAge {
            guard !maxAge.isEmpty, maxAge.utf8.count <= 8, maxAge.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let seconds = Int64(maxAge),
                seconds <= maximumAgeSeconds
            else { throw refuse("max_age is whole seconds from 0 to \(maximumAgeSeconds)") }
            age = .seconds(seconds)
        }
        var seen = Set<String>()
        values = values.filter { seen.insert($0).inserted }
        return StepUpRequest(authentication: values.isEmpty ? nil : .acr(Set(values)), acrValues: values, maxAge: age)
    }
}
