/// Which tenants of a multi-tenant issuer a relying party accepts. There is no default: the
/// caller says ``only(_:)`` or ``anyTenant``, so accepting every organisation in the world
/// is never an accident.
public enum AcceptedTenants: Sendable, Hashable {
    /// These tenants only (compared byte for byte, after `TenantIDFormat.canonical(_:)`).
    case only(IdentifierSet)
    /// Any tenant whose identifier is well formed. The application must then authorise
    /// users itself: with Microsoft Entra's `/common` endpoint this admits every work, school
    /// and personal account.
    case anyTenant

    /// Whether `tenant` (already well formed) is accepted.
    package func accepts(_ tenant: String) -> Bool {
        switch self {
        case .only(let tenants): return tenants.contains(tenant)
        case .anyTenant: return true
        }
    }
}

extension FederateError.Code {
    /// A multi-tenant token's tenant (Entra's `tid`, Firebase's `firebase.tenant`) is not one
    /// the relying party accepts, or the token has no tenant where one is required.
    public static let tenantNotAllowed: Self = "tenant_not_allowed"
}
