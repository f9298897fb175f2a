extension FederateError {
    /// The same error (code and provider error kept) with `guidance` — what the application
    /// or the user should do — appended to the message. Provider modules use it to explain
    /// their provider's error codes.
    public func withGuidance(_ guidance: String) -> FederateError {
        FederateError(code: code, message: message + " — " + guidance, providerError: providerError)
    }

    private init(code: Code, message: String, providerError: ProviderError?) {
        self.code = code
        self.message = message
        self.providerError = providerError
    }
}
