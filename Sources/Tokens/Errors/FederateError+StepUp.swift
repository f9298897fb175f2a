extension FederateError.Code {
    /// The authentication does not meet the level required: an ID token's `acr` or `amr` fails the `AuthenticationRequirement` (or the essential `acr` requested), or a session's level is below what a route demands. Sign in again with the requested `acr_values` (step-up).
    public static let insufficientAuthenticationLevel: Self = "insufficient_authentication_level"
}
