public import FederateTokens

/// Who may sign in: the app registration's supported account types, and, for the
/// multi-tenant ones, which tenants this application accepts. There is no default tenant
/// list: a multi-tenant audience names its tenants or says `.anyTenant` explicitly.
public enum MicrosoftAudience: Sendable, Hashable {
    /// One organisation's accounts (`AzureADMyOrg`): authority `/TENANT_ID/v2.0`, and `tid`
    /// must be this tenant.
    case tenant(String)
    /// Work and school accounts of any organisation (`AzureADMultipleOrgs`): authority
    /// `/organizations/v2.0`. Personal accounts are refused even with `.anyTenant`.
    case organizations(AcceptedTenants)
    /// Personal Microsoft accounts only (`PersonalMicrosoftAccount`): authority
    /// `/consumers/v2.0`, `tid` the personal-accounts tenant.
    case consumers
    /// Work, school and personal accounts (`AzureADandPersonalMicrosoftAccount`): authority
    /// `/common/v2.0`. List `MicrosoftEndpoints.personalAccountsTenantID` to accept
    /// personal accounts from a tenant list.
    case common(AcceptedTenants)

    /// The authority's path segment: the tenant ID, `organizations`, `consumers` or `common`.
    package var segment: String {
        switch self {
        case .tenant(let id): return id
        case .organizations: return "organizations"
        case .consumers: return "consumers"
        case .common: return "common"
        }
    }

    /// The tenants accepted, as the tenant rule holds them.
    var acceptedTenants: AcceptedTenants {
        switch self {
        case .tenant(let id): return .only([id])
        case .organizations(let tenants), .common(let tenants): return tenants
        case .consumers: return .only([MicrosoftEndpoints.personalAccountsTenantID])
        }
    }

    /// Whether tokens of personal accounts are refused whatever the tenant list says.
    var refusesPersonalAccounts: Bool {
        if case .organizations = self { return true }
        return false
    }
}
