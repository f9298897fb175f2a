public import FederateRelyingParty
public import FederateTokens

/// What finishing a provider's callback gives the browser (``AccountService/completeSignIn(with:callback:pending:session:mergeTicket:)``).
public struct SignInCompletion: Sendable {
    /// The new session and what led to it, when the browser gets one: a sign-in, a
    /// reauthentication, a guest's link. `nil` after a full account's link, whose session stays.
    public let result: AuthResult?
    /// The merge ticket the browser held, issued to the new session instead; `nil` when none moved.
    public let mergeTicket: String?
}

extension AccountService {
    /// Starts a sign-in with `provider` for `request`'s intent, the first half of the sign-in use
    /// case (the second is ``completeSignIn(with:callback:pending:session:mergeTicket:)``): the
    /// provider's authorization request, its pending part (`state`, nonce, PKCE verifier, intent)
    /// to keep sealed until the callback. A link or reauthentication acts for `session`'s user,
    /// whose uid the pending part records (`user_mismatch` without a session). With `stepUp`, the
    /// provider is asked for that authentication level (`invalid_request` when it has no
    /// step-up capability, `ProviderCapabilities(stepUp:)`).
    public func beginSignIn(
        with provider: any SignInProvider, _ request: SignInRequest, session: AccountSession?, stepUp: StepUpRequest? = nil
    ) async throws(FederateError) -> BuiltAuthorizationRequest {
        var uid: String?
        if request.intent != .signIn {
            guard let session else {
                throw FederateError(.userMismatch, "a \(request.intent.rawValue) acts for a signed-in user: pass their session")
            }
            uid = session.uid
        }
        var built: BuiltAuthorizationRequest
        if let stepUp {
            guard let stepping = provider.capabilities.stepUp else {
                throw FederateError(.invalidRequest, "\(provider.providerID) cannot be asked for an authentication level")
            }
            built = try await stepping.beginSignIn(request, stepUp: stepUp)
        } else {
            built = try await provider.beginSignIn(request)
        }
        built.pending.uid = uid
        return built
    }

    /// Finishes a provider's callback, the whole sign-in use case in one call: the provider
    /// completes the flow `pending` describes (`SignInProvider.completeSignIn(_:pending:)`:
    /// the callback's checks, the code exchange, the ID token, UserInfo), then the flow's intent
    /// runs in the account layer:
    ///
    /// - sign-in: ``signIn(with:)``;
    /// - link and reauthentication act for the user who started the flow, who must still hold
    ///   `session` (else `user_mismatch`): ``link(_:with:authenticatedAfter:session:)`` (a
    ///   refused link's merge ticket is issued to `session`, in the error's `accountContext`) and
    ///   ``reauthenticate(_:with:authenticatedAfter:)``, both needing the provider to have signed
    ///   the user in since the flow began. When they issue a new session, `session` is signed
    ///   out: the session rotates.
    ///
    /// `mergeTicket`, a ticket the browser holds for `session`, moves to the new session
    /// (``moveMergeTicket(_:from:to:)``). Errors: the provider's, and the account layer's.
    public func completeSignIn(
        with provider: any SignInProvider, callback: AuthorizationResponse, pending: PendingAuthorization,
        session: AccountSession?, mergeTicket: String? = nil
    ) async throws(FederateError) -> SignInCompletion {
        let credential = try await provider.completeSignIn(callback, pending: pending)
        let result: AuthResult?
        switch pending.intent {
        case .signIn:
            result = try await signIn(with: credential)
        case .link, .reauthenticate:
            guard let uid = pending.uid, let session, session.uid.exactlyEquals(uid) else {
                throw FederateError(.userMismatch, "the signed-in user changed during the flow")
            }
            if pending.intent == .link {
                // A guest that links is upgraded and gets a full session: the guest's one ends.
                let linked = try await link(uid, with: credential, authenticatedAfter: pending.createdAt, session: session)
                result = linked.sessionToken == nil ? nil : linked
            } else {
                result = try await reauthenticate(uid, with: credential, authenticatedAfter: pending.createdAt)
            }
            if result != nil { try await signOut(session) }
        }
        guard let mergeTicket, let session, let issued = result?.session else { return SignInCompletion(result: result, mergeTicket: nil) }
        return SignInCompletion(result: result, mergeTicket: await moveMergeTicket(mergeTicket, from: session, to: issued))
    }
}
