import Foundation
import Logging

@testable import FederateRelyingParty
@testable import FederateTokens

extension AuthorizationRequest {
    /// The request as `OpenIDClient.authorizationRequest` delivers it in the URL, built without a
    /// client: fresh `state`, `nonce` and PKCE, the flow starting at `now`.
    func build(
        for metadata: ProviderMetadata, now: Date, logger: Logger = Logger(label: "federate.authorize")
    ) throws(FederateError) -> BuiltAuthorizationRequest {
        let prepared = try prepare(for: metadata, now: now, logger: logger)
        return prepared.inURL(of: metadata.authorizationEndpoint, parameters: prepared.parameters)
    }
}
