/// The form a tenant identifier must have before it is substituted into an
/// `IssuerTemplate` or compared with an allow-list.
///
/// Both forms are ASCII only: a look-alike (a Unicode dash, a fullwidth digit, a Cyrillic
/// letter) is not a tenant. Neither admits `/`, `%`, `..`, `?`, `#` or an empty string, so a
/// substituted tenant can never change the issuer's path, query or host.
public enum TenantIDFormat: Sendable, Hashable {
    /// A GUID as Microsoft Entra writes `tid`: 36 characters, `8-4-4-4-12` lower-case
    /// hexadecimal digits (`9188040d-6c67-4c5b-b112-36a304b66dad`).
    case guid
    /// A path segment of 1 to 64 ASCII letters, digits, `-`, `_` or `.`, other than `.` and
    /// `..` (for providers whose tenants are names).
    case segment

    /// Whether `tenant` has this form.
    package func accepts(_ tenant: String) -> Bool {
        let bytes = tenant.utf8
        switch self {
        case .guid:
            guard bytes.count == 36 else { return false }
            for (offset, byte) in bytes.enumerated() {
                if [8, 13, 18, 23].contains(offset) {
                    guard byte == UInt8(ascii: "-") else { return false }
                } else {
                    guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                    else { return false }
                }
            }
            return true
        case .segment:
            guard (1...64).contains(bytes.count), !tenant.exactlyEquals("."), !tenant.exactlyEquals("..") else { return false }
            return bytes.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                    return true
                default:
                    return false
                }
            }
        }
    }

    /// `tenant` as an allow-list keeps it: a GUID in lower case (Entra's spelling), a segment
    /// as written; `nil` when it does not have this form.
    package func canonical(_ tenant: String) -> String? {
        let candidate: String
        switch self {
        case .guid:
            // ASCII-only lower-casing: never Unicode case mapping, which folds look-alikes.
            candidate = String(
                decoding: tenant.utf8.map { (UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
        case .segment:
            candidate = tenant
        }
        return accepts(candidate) ? candidate : nil
    }
}
