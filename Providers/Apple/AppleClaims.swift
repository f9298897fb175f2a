import FederateTokens

/// How Apple writes its claims.
enum AppleClaims {
    /// A Boolean as Apple sends it: a JSON Boolean, or the string `"true"` or `"false"`
    /// (`email_verified`, `is_private_email`, `nonce_supported`). Anything else is `nil`.
    static func bool(_ value: JSONValue) -> Bool? {
        switch value {
        case .bool(let flag): return flag
        case .string("true"): return true
        case .string("false"): return false
        default: return nil
        }
    }
}
