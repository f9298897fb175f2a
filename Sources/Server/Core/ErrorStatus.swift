import Federate
import HTTPTypes

extension ErrorResponse {
    /// The HTTP status for a Federate error code in the JSON API and the sign-in routes.
    static func status(for code: FederateError.Code) -> HTTPTypes.HTTPResponse.Status {
        switch code {
        case .requiresRecentLogin, .insufficientAuthenticationLevel, .userMismatch, .userDisabled, .csrfFailed, .providerSignInRequired,
            .mergeSourceNotGuest, .mergeRequiresFreshSignIn:
            return .forbidden
        case .mergeHookFailed: return .internalServerError
        case .passkeyNotFound, .passkeysNotConfigured: return .notFound
        case .accountExistsWithDifferentCredential, .credentialAlreadyInUse, .providerAlreadyLinked, .emailAlreadyInUse, .alreadySignedIn:
            return .conflict
        case .sessionRevoked, .tokenExpired, .userNotFound, .invalidSignature, .unknownKey, .malformedToken: return .unauthorized
        case .accountStoreFailed, .storeUnavailable, .storeSchemaMismatch: return .serviceUnavailable
        default: return .badRequest
        }
    }

    /// A JSON error with the status ``status(for:)`` gives.
    static func json(_ error: FederateError) -> ServerResponse {
        json(status(for: error.code), error)
    }
}
