import Federate
import FederateHummingbird
import Hummingbird

/// `GET /me/provider-tokens/{name}` (with `"provider_token_route": true`; off by default): the
/// session's user's access token at provider `name`, from the tokens the account layer keeps
/// for it, refreshed when needed (``AccountService/accessToken(for:providerID:)``):
/// `{"provider_id": ID, "access_token": TOKEN}`. For a server's own pages and for checking the
/// refresh across instances: the token is the user's own, behind their session cookie (a GET
/// that another site's page cannot read), but an application normally uses it server-side only.
/// 403 `provider_sign_in_required` when the provider refused the refresh token: sign in with it again.
struct ProviderTokenRoute {
    let accounts: AccountService
    let providers: ProviderRegistry

    func register(on router: Router<FederateContext>, origin: String) {
        router.group("me/provider-tokens").add(
            middleware: SessionAuthenticationMiddleware<FederateContext>(accounts: accounts, origin: origin)
        )
        .get("{name}") { _, context in
            guard let session = context.federate.session else {
                throw FederateHTTPError(.unauthorized, code: .sessionRequired, message: "sign in first")
            }
            guard let name = context.parameters.get("name"), let entry = providers.entry(named: name) else {
                throw FederateHTTPError(.notFound, code: .unknownProvider, message: "no provider by this name is configured")
            }
            let token = try await accounts.accessToken(for: session.uid, providerID: entry.providerID)
            return DemoNotes.json(["provider_id": .string(entry.providerID), "access_token": .string(token)])
        }
    }
}
