package import FederateRelyingParty
package import FederateTokens

/// Apple's `form_post` callback: the standard authorization response plus the one-time
/// `user` JSON.
package struct AppleCallback: Sendable {
    /// `state`, `code`, `id_token` and any error, as an authorization response to validate.
    package let response: AuthorizationResponse
    /// The name and email from `user`, present on the first authorization only.
    package let user: AppleUser?

    /// Parses the POSTed form body. Duplicated parameters, a malformed body or a malformed
    /// `user` throw `FederateError/Code/invalidCallback`.
    package init(formBody: [UInt8]) throws(FederateError) {
        try self.init(response: try AuthorizationResponse(formBody: formBody))
    }

    /// Wraps an already parsed response (a query redirect, when neither `name` nor `email` was
    /// requested). A malformed `user` throws `FederateError/Code/invalidCallback`.
    package init(response: AuthorizationResponse) throws(FederateError) {
        self.response = response
        self.user = try response.parameters["user"].map { (json) throws(FederateError) in try AppleUser(json: json) }
    }
}
