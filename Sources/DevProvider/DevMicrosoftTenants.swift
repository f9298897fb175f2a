import Crypto
import Federate

/// The Microsoft flavour's tenants: each test user belongs to the tenant of their email's
/// domain, so a configuration with users at several domains serves several tenants.
///
/// Personal domains (`outlook.com`, `hotmail.com`, `live.com`, `msn.com`) are the personal
/// accounts' tenant `9188040d-6c67-4c5b-b112-36a304b66dad`; any other domain is a tenant whose
/// ID is a GUID derived from the domain (SHA-256, lower-case hex), stable across runs.
public enum DevMicrosoftTenants {
    /// The personal Microsoft accounts' tenant.
    package static let personalAccountsTenantID = "9188040d-6c67-4c5b-b112-36a304b66dad"
    /// Domains whose users are personal accounts.
    static let personalDomains: Set<String> = ["outlook.com", "hotmail.com", "live.com", "msn.com"]

    /// The tenant of `user` (by their email's domain).
    package static func tenantID(for user: DevUser) -> String {
        let domain = user.email.split(separator: "@").last.map(String.init) ?? ""
        return tenantID(forDomain: domain)
    }

    /// The tenant of users at `domain`.
    public static func tenantID(forDomain domain: String) -> String {
        personalDomains.contains(domain.lowercased()) ? personalAccountsTenantID : guid("tenant:" + domain.lowercased())
    }

    /// The user's object ID (`oid`) in their tenant.
    package static func objectID(for user: DevUser) -> String { guid("oid:" + user.subject) }

    /// A lower-case GUID from the first 16 bytes of SHA-256 of `seed`.
    static func guid(_ seed: String) -> String {
        let hex = SHA256.hash(data: Array(seed.utf8)).prefix(16).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }
}

extension DevProviderConfiguration {
    /// The Microsoft flavour, ready to use: confidential client
    /// `11111111-2222-3333-4444-555555555555` (secret `dev-microsoft-secret`) and public client
    /// `11111111-2222-3333-4444-666666666666`, both with loopback redirects; users alice at
    /// `contoso.example`, bob at `fabrikam.example` (two organisations) and carol at
    /// `outlook.com` (a personal account); alice auto-approved.
    static let microsoftStandard = DevProviderConfiguration(
        flavor: .microsoft,
        clients: [
            DevClient(id: "11111111-2222-3333-4444-555555555555", secret: "dev-microsoft-secret", redirectURIs: loopbackRedirects),
            DevClient(id: "11111111-2222-3333-4444-666666666666", redirectURIs: loopbackRedirects),
        ],
        users: [
            DevUser(subject: "AAAAAAAAAAAAAAAAAAAAAKs0alice0000000000000", email: "alice@contoso.example", name: "Alice Example"),
            DevUser(subject: "AAAAAAAAAAAAAAAAAAAAAKs0bob000000000000000", email: "bob@fabrikam.example", name: "Bob Example"),
            DevUser(subject: "AAAAAAAAAAAAAAAAAAAAAKs0carol0000000000000", email: "carol@outlook.com", name: "Carol Example"),
        ],
        autoApproveSubject: "AAAAAAAAAAAAAAAAAAAAAKs0alice0000000000000")
}
