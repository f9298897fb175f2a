extension IDToken {
    /// How and when the user authenticated (`acr`, `amr`, `auth_time`); `nil` when one of
    /// those claims is malformed (an `acr` that is not a string, an `amr` with a non-string
    /// entry, values beyond ``AuthenticationLevel``'s bounds), which meets no
    /// ``AuthenticationRequirement``.
    public var authenticationLevel: AuthenticationLevel? {
        try? AuthenticationLevel(claims: claims)
    }

    /// `acr`, when it is a string.
    package var acr: String? { claims.stringValue(.acr) }
}
