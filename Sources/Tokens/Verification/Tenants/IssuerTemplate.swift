/// An issuer identifier with one tenant placeholder, as a multi-tenant provider's discovery
/// document gives it: Microsoft Entra's `https://login.microsoftonline.com/{tenantid}/v2.0`.
///
/// A template is never an issuer: no token's `iss` is compared with it. A token's tenant
/// (``TenantIssuerRule``) is substituted for the placeholder, and the result must equal the
/// token's `iss` byte for byte.
///
/// Accepted templates are strict: printable ASCII with no spaces, a scheme (`://`), exactly
/// one `placeholder` standing as a whole path segment (after a `/`, before a `/` or the
/// end), and no other `{` or `}`. A template with two placeholders, with the placeholder in
/// the host, or with none is ``FederateError/Code/invalidConfiguration``.
package struct IssuerTemplate: Sendable, Hashable, CustomStringConvertible {
    /// The placeholder: `{tenantid}`, as Microsoft Entra writes it.
    package static let placeholder = "{tenantid}"

    /// The template as written.
    package let template: String
    /// What comes before the placeholder (`https://login.microsoftonline.com/`).
    package let prefix: String
    /// What comes after it (`/v2.0`).
    package let suffix: String

    /// Parses `template`; throws ``FederateError/Code/invalidConfiguration`` when it is not a
    /// template as described above.
    package init(_ template: String) throws(FederateError) {
        let bytes = Array(template.utf8)
        guard !bytes.isEmpty, bytes.count <= 2048, bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw FederateError(.invalidConfiguration, "an issuer template is 1-2048 printable ASCII characters without spaces")
        }
        let marker = Array(Self.placeholder.utf8)
        var found: [Int] = []
        var index = 0
        while index + marker.count <= bytes.count {
            if bytes[index..<(index + marker.count)].elementsEqual(marker) {
                found.append(index)
                index += marker.count
            } else {
                index += 1
            }
        }
        guard found.count == 1, let start = found.first else {
            throw FederateError(.invalidConfiguration, "an issuer template has exactly one '\(Self.placeholder)' (found \(found.count))")
        }
        let before = Array(bytes[..<start])
        let after = Array(bytes[(start + marker.count)...])
        guard !before.contains(UInt8(ascii: "{")), !before.contains(UInt8(ascii: "}")), !after.contains(UInt8(ascii: "{")),
            !after.contains(UInt8(ascii: "}"))
        else {
            throw FederateError(.invalidConfiguration, "an issuer template has no braces besides '\(Self.placeholder)'")
        }
        // A scheme, a host, then the placeholder after a `/`: `scheme://host/…/{tenantid}`.
        let separator = Array("://".utf8)
        let schemeEnd = (0..<max(0, before.count - 2)).first { before[$0..<($0 + 3)].elementsEqual(separator) }
        let afterScheme = schemeEnd.map { before[($0 + 3)...] } ?? []
        guard let schemeEnd, schemeEnd > 0, let slash = afterScheme.firstIndex(of: UInt8(ascii: "/")), slash > afterScheme.startIndex,
            before.last == UInt8(ascii: "/")
        else {
            throw FederateError(
                .invalidConfiguration, "the tenant placeholder of an issuer template is a whole path segment after the host")
        }
        guard after.isEmpty || after.first == UInt8(ascii: "/") else {
            throw FederateError(.invalidConfiguration, "the tenant placeholder of an issuer template is a whole path segment")
        }
        self.template = template
        self.prefix = String(decoding: before, as: UTF8.self)
        self.suffix = String(decoding: after, as: UTF8.self)
    }

    /// The issuer of `tenant`: the template with `tenant` in place of the placeholder. The
    /// caller checks the tenant's form first (``TenantIDFormat``); this only substitutes.
    package func issuer(forTenant tenant: String) -> String {
        prefix + tenant + suffix
    }

    package var description: String { template }
}
