package import FederateTokens

/// The `user` JSON Apple posts with the callback on a user's first authorization only:
/// `{"name":{"firstName":…,"lastName":…},"email":…}`. Store it then: it never comes again,
/// and the name is never in the ID token.
package struct AppleUser: Sendable, Hashable {
    /// Given name, if the user shared it.
    package let firstName: String?
    /// Family name, if the user shared it.
    package let lastName: String?
    /// The email (possibly a private relay address), if sent.
    package let email: String?

    /// Parses the `user` parameter. Throws `FederateError/Code/invalidCallback` when it is
    /// not a JSON object of that shape (unknown members are ignored).
    package init(json: String) throws(FederateError) {
        let object: [String: JSONValue]
        do {
            object = try JSONParser(limits: .init(maxBytes: 4096, maxDepth: 4)).parseObject(Array(json.utf8))
        } catch {
            throw FederateError(.invalidCallback, "Apple's user parameter is not a JSON object")
        }
        func string(_ value: JSONValue?, _ name: String) throws(FederateError) -> String? {
            guard let value else { return nil }
            guard case .string(let text) = value else { throw FederateError(.invalidCallback, "user.\(name) is not a string") }
            return text
        }
        var firstName: String?, lastName: String?
        if let name = object["name"] {
            guard case .object(let parts) = name else { throw FederateError(.invalidCallback, "user.name is not an object") }
            firstName = try string(parts["firstName"], "name.firstName")
            lastName = try string(parts["lastName"], "name.lastName")
        }
        self.firstName = firstName
        self.lastName = lastName
        self.email = try string(object["email"], "email")
    }

    /// "First Last", from whichever parts were shared.
    package var displayName: String? {
        let parts = [firstName, lastName].compactMap { $0 }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}
