package import FederateTokens

/// What a discovery document's `issuer` must be: exactly the issuer it was fetched for
/// (OpenID Connect Discovery §4.3), or, only when the caller configured a
/// `TenantIssuerRule`, the rule's tenant template or its issuer for an accepted tenant.
struct DiscoveredIssuer: Sendable {
    enum Kind: Sendable {
        case exactly(String)
        case tenantTemplate(authority: String, rule: TenantIssuerRule)
    }

    let kind: Kind

    static func exactly(_ issuer: String) -> DiscoveredIssuer { DiscoveredIssuer(kind: .exactly(issuer)) }

    private init(kind: Kind) { self.kind = kind }

    /// The expectation for a document at `authority`: exact without `tenantIssuer`; with it,
    /// `authority` must be the template with one path segment (`common`, `organizations`,
    /// `consumers`, a tenant ID) in the placeholder's place, else `discovery_issuer_mismatch`.
    init(authority: String, tenantIssuer: TenantIssuerRule?) throws(FederateError) {
        guard let rule = tenantIssuer else {
            self.init(kind: .exactly(authority))
            return
        }
        let template = rule.template
        var trimmed = authority
        while trimmed.hasSuffix("/"), !template.suffix.hasSuffix("/") { trimmed.removeLast() }
        let bytes = Array(trimmed.utf8), prefix = Array(template.prefix.utf8), suffix = Array(template.suffix.utf8)
        guard bytes.count > prefix.count + suffix.count, bytes.starts(with: prefix), bytes.reversed().starts(with: suffix.reversed()),
            TenantIDFormat.segment.accepts(String(decoding: bytes[prefix.count..<(bytes.count - suffix.count)], as: UTF8.self))
        else {
            throw FederateError(
                .discoveryIssuerMismatch,
                "the authority '\(authority.prefix(200))' is not the tenant template '\(template)' with a tenant in it")
        }
        self.init(kind: .tenantTemplate(authority: authority, rule: rule))
    }

    /// The discovery cache's key: a templated fetch never shares an entry with a strict one,
    /// nor with one for other tenants (whether a concrete `issuer` is accepted depends on them),
    /// and a look-alike authority (`ExactString`) never with the real one.
    var cacheKey: ExactString {
        switch kind {
        case .exactly(let issuer): return ExactString(issuer)
        case .tenantTemplate(let authority, let rule):
            return ExactString(
                authority + " " + rule.template.template + " " + String(describing: rule.format) + " " + String(describing: rule.tenants))
        }
    }

    /// Checks the document's `issuer`; returns the URL whose security to validate (for a
    /// template, the template's issuer for a well-formed stand-in tenant).
    func accept(_ issuer: String) throws(FederateError) -> String {
        switch kind {
        case .exactly(let expected):
            guard issuer.exactlyEquals(expected) else {
                throw FederateError(
                    .discoveryIssuerMismatch,
                    "the document's issuer '\(issuer.prefix(200))' differs from the requested issuer '\(expected.prefix(200))'")
            }
            return issuer
        case .tenantTemplate(let authority, let rule):
            if issuer.exactlyEquals(rule.template.template) {
                return rule.template.issuer(forTenant: "00000000-0000-0000-0000-000000000000")
            }
            let template = rule.template
            let bytes = Array(issuer.utf8), prefix = Array(template.prefix.utf8), suffix = Array(template.suffix.utf8)
            if bytes.count > prefix.count + suffix.count, bytes.starts(with: prefix), bytes.reversed().starts(with: suffix.reversed()) {
                let tenant = String(decoding: bytes[prefix.count..<(bytes.count - suffix.count)], as: UTF8.self)
                if rule.format.accepts(tenant), rule.tenants.accepts(tenant), issuer.exactlyEquals(template.issuer(forTenant: tenant)) {
                    return issuer
                }
            }
            throw FederateError(
                .discoveryIssuerMismatch,
                "the document at '\(authority.prefix(200))' names issuer '\(issuer.prefix(200))': neither the tenant template '\(template)' nor its issuer for an accepted tenant"
            )
        }
    }
}

extension ProviderMetadata {
    /// Parses and validates a discovery document fetched from `authority` of a multi-tenant
    /// provider: its `issuer` may be `tenantIssuer`'s template, or the template's issuer for a
    /// tenant the rule accepts (see `DiscoveryClient/metadata(for:tenantIssuer:privateNetworkAllowList:)`).
    package init(document bytes: some Collection<UInt8>, authority: String, tenantIssuer: TenantIssuerRule) throws(FederateError) {
        try self.init(document: bytes, expecting: try DiscoveredIssuer(authority: authority, tenantIssuer: tenantIssuer))
    }

    /// The issuer as a tenant template, when the document gave one (`{tenantid}`), else `nil`.
    /// Such a document is only ever accepted for a caller that configured a `TenantIssuerRule`.
    package var issuerTemplate: IssuerTemplate? { issuer.contains(IssuerTemplate.placeholder) ? try? IssuerTemplate(issuer) : nil }
}
