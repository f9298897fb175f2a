import FederateTokens

/// Lifetimes and intervals a provider states in whole seconds (`expires_in` of a pushed
/// request or a device code, a device flow's `interval`), read without trusting them: a JSON
/// integer from `minimum` to `maximum`, nothing else (no string, no fraction, no negative, no
/// 10^30), so no later conversion can trap on it.
enum ProviderLifetime {
    /// The member `name` of `members` as seconds, or `nil` when absent. Throws `code` when
    /// present and not a whole number in `minimum...maximum`.
    static func seconds(
        _ name: String, in members: [String: JSONValue], minimum: Int64, maximum: Int64, code: FederateError.Code
    ) throws(FederateError) -> Duration? {
        guard let value = members[name] else { return nil }
        guard case .integer(let seconds) = value, (minimum...maximum).contains(seconds) else {
            throw FederateError(code, "\(name) must be a whole number of seconds from \(minimum) to \(maximum)")
        }
        return .seconds(seconds)
    }
}
