/// The two WebAuthn ceremonies a challenge is issued for.
public enum WebAuthnCeremony: String, Sendable, Hashable, CaseIterable {
    /// Creating a credential: `navigator.credentials.create()`, client data type `webauthn.create`.
    case registration
    /// Using one: `navigator.credentials.get()`, client data type `webauthn.get`.
    case authentication

    /// The client data `type` of this ceremony.
    var clientDataType: String {
        switch self {
        case .registration: "webauthn.create"
        case .authentication: "webauthn.get"
        }
    }
}
