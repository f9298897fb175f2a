/// Where Microsoft Entra ID (the Microsoft identity platform, v2.0 endpoints) lives: the
/// authority host, from which every authority (`/common/v2.0`, `/organizations/v2.0`,
/// `/consumers/v2.0`, `/TENANT/v2.0`) and the issuer template derive.
///
/// The global cloud (`https://login.microsoftonline.com`) is the default; ``at(_:)`` points at
/// another host: a national cloud (`https://login.microsoftonline.us`) or the dev provider's
/// Microsoft flavour in tests.
public struct MicrosoftEndpoints: Sendable, Hashable {
    /// The authority host, without a trailing `/` (`https://login.microsoftonline.com`).
    package let host: String

    /// The global cloud, `https://login.microsoftonline.com`.
    package static let microsoft = MicrosoftEndpoints(host: "https://login.microsoftonline.com")

    /// The tenant of personal Microsoft accounts (Outlook.com, Xbox, Skype): the `tid` of
    /// every consumer account's tokens.
    public static let personalAccountsTenantID = "9188040d-6c67-4c5b-b112-36a304b66dad"

    /// Endpoints at another authority host (a national cloud, or a stand-in in tests).
    public static func at(_ host: String) -> MicrosoftEndpoints {
        var trimmed = host
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        return MicrosoftEndpoints(host: trimmed)
    }

    private init(host: String) {
        self.host = host
    }

    /// The issuer template of v2.0 ID tokens: `HOST/{tenantid}/v2.0`.
    package var issuerTemplate: String { host + "/" + "{tenantid}" + "/v2.0" }

    /// The authority (the URL discovery is fetched under) for a path segment: `HOST/SEGMENT/v2.0`.
    package func authority(_ segment: String) -> String { host + "/" + segment + "/v2.0" }
}
