import Federate
import Testing

/// What a `FederateError` carries through the layers: guidance keeps the cause, and wrapping
/// keeps a `FederateError` as it is.
@Suite struct FederateErrorTests {
    struct DriverFailure: Error {}

    @Test func guidanceKeepsCodeProviderErrorAndCause() {
        let cause = FederateError(.httpTimeout, "timed out")
        let error = FederateError(.keyFetchFailed, "fetching failed", cause: cause).withGuidance("retry later")
        #expect(error.code == .keyFetchFailed)
        #expect(error.message == "fetching failed — retry later")
        #expect((error.cause as? FederateError)?.code == .httpTimeout)

        let table: (String) -> String? = { $0 == "invalid_client" ? "check the secret" : nil }
        let provider = FederateError(providerError: ProviderError(code: "invalid_client", description: nil, uri: nil))
        #expect(provider.withGuidance(from: table).message.hasSuffix("— check the secret"))
        #expect(provider.withGuidance(from: table).providerError?.code == "invalid_client")
        #expect(FederateError(.invalidGrant, "gone").withGuidance(from: table).message == "gone")
    }

    @Test func wrappingKeepsAFederateErrorAndCarriesAnyOther() {
        let original = FederateError(.userDisabled, "disabled")
        #expect(FederateError.wrapping(original, as: .accountStoreFailed, "lookup failed") == original)
        let wrapped = FederateError.wrapping(DriverFailure(), as: .accountStoreFailed, "lookup failed")
        #expect(wrapped.code == .accountStoreFailed)
        #expect(wrapped.cause is DriverFailure)
    }
}
