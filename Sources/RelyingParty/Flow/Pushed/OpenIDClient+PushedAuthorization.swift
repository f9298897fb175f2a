import FederateTokens
import Foundation

extension OpenIDClient {
    /// `request` delivered as `delivery` says: pushed (PAR) when the provider requires it or
    /// `delivery.push` is ``AuthorizationDelivery/Push/always``, signed into a request object
    /// (JAR) when `delivery.requestObject` is set, else in the URL. Without a `delivery`, in the
    /// URL, and `pushed_authorization_required` when the provider requires pushing.
    func delivered(
        _ request: AuthorizationRequest, delivery: AuthorizationDelivery?
    ) async throws(FederateError) -> BuiltAuthorizationRequest {
        if delivery == nil, metadata.requiresPushedAuthorizationRequests {
            throw FederateError(
                .pushedAuthorizationRequired,
                "the provider requires pushed authorization requests (RFC 9126): build the request with delivery:")
        }
        return try await observability.span(
            "federate.authorization.start",
            attributes: ["federate.provider": .string(request.providerID), "federate.issuer": .string(metadata.issuer)]
        ) { () async throws(FederateError) in
            let prepared = try request.prepare(for: metadata, now: clock.now, logger: logger)
            let parameters = try deliverable(prepared.parameters, signing: delivery?.requestObject)
            // Without a delivery the provider does not require pushing (refused above).
            guard delivery?.push == .always || metadata.requiresPushedAuthorizationRequests else {
                return prepared.inURL(of: metadata.authorizationEndpoint, parameters: parameters)
            }
            var pushed = try await push(parameters)
            if delivery?.repeatsRequiredParameters == true {
                for name in ["response_type", "scope", "redirect_uri"] {
                    pushed.repeatedParameters[name] = prepared.parameters.first { $0.0 == name }?.1
                }
            }
            var built = BuiltAuthorizationRequest(
                url: try pushed.redirectURL(at: clock.now), pending: prepared.pending, droppedParameters: prepared.dropped)
            built.pushed = pushed
            return built
        }
    }

    /// The parameters as sent: unchanged, or with a request object, `client_id`, `request`,
    /// and the `response_type` and `scope` OpenID Connect Core §6.1 asks to repeat outside it.
    private func deliverable(_ parameters: [(String, String)], signing: RequestObjectSigning?) throws(FederateError) -> [(String, String)] {
        guard let signing else { return parameters }
        if let advertised = metadata.requestObjectSigningAlgValuesSupported, !advertised.contains(signing.algorithm.rawValue) {
            throw FederateError(.invalidConfiguration, "the provider does not advertise \(signing.algorithm.rawValue) for request objects")
        }
        let object = try RequestObject.sign(parameters, clientID: clientID, issuer: metadata.issuer, signing: signing, now: clock.now)
        var outer: [(String, String)] = [("client_id", clientID)]
        for name in ["response_type", "scope"] {
            if let value = parameters.first(where: { $0.0 == name })?.1 { outer.append((name, value)) }
        }
        outer.append(("request", object))
        return outer
    }

    /// Pushes `parameters` to the provider's pushed-authorization endpoint, authenticated as
    /// this client, and reads the answer (201, or 200 from lenient providers).
    func push(_ parameters: [(String, String)]) async throws(FederateError) -> PushedAuthorization {
        guard let endpoint = metadata.pushedAuthorizationRequestEndpoint else {
            throw profile.explain(FederateError(.endpointNotAvailable, "the provider advertises no pushed_authorization_request_endpoint"))
        }
        try EndpointSecurity.validate(endpoint, field: "pushed_authorization_request_endpoint", destination: metadata.destination)
        let response = try await postForm(authentication.formWithClientID(parameters, clientID: clientID), to: endpoint)
        guard response.status == 201 || response.status == 200 else {
            throw logged(Self.errorFromResponse(response, endpoint: "pushed authorization endpoint"), endpoint: endpoint)
        }
        let pushed = try PushedAuthorization(
            answer: response.body, receivedAt: clock.now, authorizationEndpoint: metadata.authorizationEndpoint, clientID: clientID)
        logger.debug("authorization request pushed", metadata: ["endpoint": "\(endpoint)", "expires_at": "\(pushed.expiresAt)"])
        return pushed
    }
}

extension ClientAuthentication {
    /// `form` with `client_id` exactly once: every method but Basic adds it when it applies
    /// itself, so it is removed here for them and kept for Basic (RFC 9126 §2.1 and RFC 8628
    /// §3.1 want it in the body).
    func formWithClientID(_ form: [(String, String)], clientID: String) -> [(String, String)] {
        let rest = form.filter { $0.0 != "client_id" }
        if case .clientSecretBasic = self { return [("client_id", clientID)] + rest }
        return rest
    }
}
