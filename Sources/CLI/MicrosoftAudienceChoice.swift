import Federate
import FederateMicrosoft

/// Who may sign in with Microsoft, as `federate serve --config` (`"tenant"`, `"account_types"`,
/// `"allowed_tenants"`, `"any_tenant"`) and `federate verify --provider microsoft` (`--tenant`,
/// `--account-types`, `--allowed-tenant`, `--any-tenant`) say it: one rule for both.
///
/// - a `tenant` alone: that organisation only (`MicrosoftAudience.tenant`);
/// - `organizations` or `common`: the `allowed_tenants` listed, or every tenant with an
///   explicit `any_tenant` (exactly one of the two: there is no default tenant list);
/// - `consumers`: personal Microsoft accounts, no tenant setting.
enum MicrosoftAudienceChoice {
    /// The audience the settings describe; `invalid_configuration` with what is wrong otherwise.
    static func audience(
        tenant: String?, accountTypes: String?, allowedTenants: [String], anyTenant: Bool
    ) throws(FederateError) -> MicrosoftAudience {
        guard let accountTypes else {
            guard let tenant, allowedTenants.isEmpty, !anyTenant else {
                throw FederateError(
                    .invalidConfiguration,
                    "give a tenant (one organisation), or account types organizations, common or consumers; allowed tenants and any tenant go with organizations or common"
                )
            }
            return .tenant(tenant)
        }
        guard tenant == nil else {
            throw FederateError(.invalidConfiguration, "a tenant is its own audience; with account types, list allowed tenants instead")
        }
        switch accountTypes {
        case "consumers":
            guard allowedTenants.isEmpty, !anyTenant else {
                throw FederateError(.invalidConfiguration, "consumers takes no tenant setting (personal accounts have one tenant)")
            }
            return .consumers
        case "organizations", "common":
            let tenants: AcceptedTenants
            switch (allowedTenants.isEmpty, anyTenant) {
            case (false, false): tenants = .only(IdentifierSet(allowedTenants))
            case (true, true): tenants = .anyTenant
            default:
                throw FederateError(
                    .invalidConfiguration,
                    "\(accountTypes) needs either allowed tenants or an explicit any tenant (never both; there is no default)")
            }
            return accountTypes == "common" ? .common(tenants) : .organizations(tenants)
        default:
            throw FederateError(.invalidConfiguration, "account types are organizations, common or consumers")
        }
    }
}
