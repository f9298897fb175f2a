extension FederateError {
    /// The same error (code and provider error kept) with `guidance` — what the application
    /// or the user should do — appended to the message. Provider modules use it to explain
    /// their provider's error codes.
    public func withGuidance(_ guidance: String) -> FederateError {
        var explained = FederateError(code: code, message: message + " — " + guidance, providerError: providerError)
        explained.detail = detail
        explained.cause = cause
        return explained
    }

    /// The same error with what `guidance` advises for its code, or unchanged when it advises
    /// nothing (a provider module's table of its codes).
    package func withGuidance(from guidance: (String) -> String?) -> FederateError {
        guidance(code.rawValue).map(withGuidance) ?? self
    }

    /// `error` itself when it is a `FederateError`, else a new error with `code` and `message`
    /// that carries `error` as its ``cause`` (a driver's, a transport's, a caller's closure's).
    package static func wrapping(_ error: any Error, as code: Code, _ message: String) -> FederateError {
        error as? FederateError ?? FederateError(code, message, cause: error)
    }

    private init(code: Code, message: String, providerError: ProviderError?) {
        self.code = code
        self.message = message
        self.providerError = providerError
    }
}
