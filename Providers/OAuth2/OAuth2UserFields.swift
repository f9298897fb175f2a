package import FederateTokens

/// Which members of a provider's user-endpoint answer say who the user is: the JSON fields
/// for the immutable ID, the email, whether the provider verified it, the name, the picture,
/// the login name, and, as a freshness proof, when the user last authenticated.
///
/// Each is a member of the top-level object, by its exact name. `id` is required; a field
/// `nil` here is not read.
public struct OAuth2UserFields: Sendable, Hashable {
    /// The provider's immutable user ID: a string, or a whole number (never a login name or an email).
    package var id: String
    /// The email address.
    package var email: String?
    /// The member that is JSON `true` when the provider verified the email; without it, no email counts as verified.
    package var emailVerified: String?
    /// The display name.
    package var name: String?
    /// The picture's URL.
    package var picture: String?
    /// The login name, kept as the profile's username (it can change; it never identifies the user).
    package var username: String?
    /// A freshness proof: the member holding when the user last authenticated at the provider,
    /// in seconds since 1970. Set it only when the provider documents that the field is the
    /// time of the user's last interactive sign-in; then the provider can reauthenticate
    /// (`Docs/Accounts.md`, "Reauthentication"). `nil` (the default): it cannot.
    package var authTime: String?

    /// Names the fields.
    public init(
        id: String = "id", email: String? = "email", emailVerified: String? = "email_verified", name: String? = "name",
        picture: String? = "picture", username: String? = nil, authTime: String? = nil
    ) {
        self.id = id
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.picture = picture
        self.username = username
        self.authTime = authTime
    }
}

/// What a user endpoint said about the user, checked: the parts a credential is made of.
package struct OAuth2User: Sendable, Hashable {
    /// The immutable ID, as a string (a whole number in decimal).
    package let id: String
    /// The email, if any.
    package let email: String?
    /// Whether the provider says the email is verified.
    package let emailVerified: Bool
    /// The display name, if any.
    package let name: String?
    /// The picture URL, if any.
    package let picture: String?
    /// The login name, if any.
    package let username: String?
    /// When the user last authenticated, from the freshness proof, if configured.
    package let authenticatedAt: NumericDate?

    /// The largest ID accepted, in bytes; longer is `invalid_user_response`.
    static let maximumIDBytes = 255
    /// The largest whole-number ID accepted: 2^53 - 1, the largest every JSON parser reads exactly.
    static let maximumNumericID: Int64 = 9_007_199_254_740_991

    /// Reads `answer` (the user endpoint's JSON) with `fields`. Throws `invalid_user_response`
    /// for an answer that is not an object; an `id` missing, empty, longer than
    /// ``maximumIDBytes``, holding control or bidirectional characters, or a number that is not
    /// a whole number from 1 to ``maximumNumericID`` (`1e300`, `2^63`, `1.5` are refused);
    /// an email that is not a string of at most 320 bytes with an `@` and no spaces, control or
    /// bidirectional characters; an authentication time that is not a number of seconds.
    /// Profile fields of the wrong type are left out.
    init(answer: JSONValue, fields: OAuth2UserFields) throws(FederateError) {
        guard case .object(let members) = answer else {
            throw FederateError(.invalidUserResponse, "the user endpoint's answer is not a JSON object")
        }
        self.id = try Self.identifier(members[fields.id], field: fields.id)
        var email: String?
        if let field = fields.email, let value = members[field], value != .null {
            guard case .string(let text) = value else { throw FederateError(.invalidUserResponse, "'\(field)' is not a string") }
            email = try Self.checkedEmail(text)
        }
        self.email = email
        if let field = fields.emailVerified, case .bool(true)? = members[field] {
            self.emailVerified = email != nil
        } else {
            self.emailVerified = false
        }
        func text(_ field: String?) -> String? {
            guard let field, case .string(let value)? = members[field], !value.isEmpty, value.utf8.count <= 1024 else { return nil }
            return value
        }
        self.name = text(fields.name)
        self.picture = text(fields.picture)
        self.username = text(fields.username)
        if let field = fields.authTime {
            guard let seconds = members[field]?.doubleValue, let date = NumericDate(secondsSince1970: seconds) else {
                throw FederateError(
                    .invalidUserResponse, "'\(field)' (the configured authentication time) is not a number of seconds since 1970")
            }
            self.authenticatedAt = date
        } else {
            self.authenticatedAt = nil
        }
    }

    /// Creates a value (for a provider module that reads its provider's answers itself).
    init(
        id: String, email: String?, emailVerified: Bool, name: String?, picture: String?, username: String?,
        authenticatedAt: NumericDate? = nil
    ) {
        self.id = id
        self.email = email
        self.emailVerified = emailVerified && email != nil
        self.name = name
        self.picture = picture
        self.username = username
        self.authenticatedAt = authenticatedAt
    }

    /// An ID member: a non-empty string of at most ``maximumIDBytes`` without control or
    /// bidirectional characters, or a whole number from 1 to ``maximumNumericID`` (as decimal).
    package static func identifier(_ value: JSONValue?, field: String, numericOnly: Bool = false) throws(FederateError) -> String {
        switch value {
        case .integer(let number)? where (1...maximumNumericID).contains(number):
            return String(number)
        case .string(let text)? where !numericOnly:
            guard (1...maximumIDBytes).contains(text.utf8.count), text.unicodeScalars.allSatisfy({ !isForbidden($0) }) else {
                throw FederateError(
                    .invalidUserResponse, "'\(field)' is empty, longer than \(maximumIDBytes) bytes or holds control characters")
            }
            return text
        case nil, .null?:
            throw FederateError(.invalidUserResponse, "the user endpoint's answer has no '\(field)': no immutable user ID")
        default:
            throw FederateError(
                .invalidUserResponse,
                numericOnly
                    ? "'\(field)' is not a whole number from 1 to 2^53-1" : "'\(field)' is not a string or a whole number from 1 to 2^53-1")
        }
    }

    /// An email address as a provider sent it: at most 320 bytes, one `@` not at either end,
    /// no white space, control or bidirectional characters. Throws `invalid_user_response`.
    package static func checkedEmail(_ text: String) throws(FederateError) -> String {
        let scalars = text.unicodeScalars
        guard (3...320).contains(text.utf8.count), scalars.filter({ $0 == "@" }).count == 1, !text.hasPrefix("@"), !text.hasSuffix("@"),
            scalars.allSatisfy({ !isForbidden($0) && !$0.properties.isWhitespace })
        else {
            throw FederateError(.invalidUserResponse, "an email from the user endpoint is not a plain address")
        }
        return text
    }

    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
