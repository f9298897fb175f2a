public import FederateTokens

extension FederateError.Code {
    /// A provider's user endpoint (an OAuth 2.0 provider without ID tokens) answered something that identifies no one: not JSON of a JSON type, nested too deep, no immutable user ID, an ID that is not a string or a whole number from 1 to 2^53-1, or an email that is not a plain address. Nothing is signed in.
    public static let invalidUserResponse: Self = "invalid_user_response"
}
