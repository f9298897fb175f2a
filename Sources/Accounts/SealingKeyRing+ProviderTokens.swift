import FederateRelyingParty
import FederateTokens
import Foundation

/// How provider tokens are sealed at rest: bound to their identity (provider ID and subject)
/// and to the key's ID as associated data, so a value copied onto another identity's record
/// does not open.
extension SealingKeyRing {
    /// `tokens` sealed for the identity (`providerID`, `subject`) with the current key.
    func seal(_ tokens: ProviderTokens, providerID: String, subject: String) throws(FederateError) -> (keyID: String, sealed: [UInt8]) {
        var members: [String: JSONValue] = [:]
        if let access = tokens.accessToken { members["a"] = .string(access) }
        if let refresh = tokens.refreshToken { members["r"] = .string(refresh) }
        guard
            let (keyID, combined) = seal(
                JSONSerializer.bytes(.object(members)),
                associatedData: { Self.associatedData(keyID: $0, providerID: providerID, subject: subject) })
        else { throw FederateError(.accountStoreFailed, "sealing provider tokens failed") }
        return (keyID, combined)
    }

    /// The tokens of a sealed record; `invalid_configuration` when its key is not in the ring
    /// (it was removed before ``AccountService/reencryptProviderTokens(batchSize:)`` finished),
    /// `account_store_failed` when it does not authenticate.
    func open(_ record: SealedProviderTokens) throws(FederateError) -> ProviderTokens {
        guard hasKey(record.keyID.utf8) else {
            throw FederateError(
                .invalidConfiguration,
                "provider tokens are sealed with key '\(record.keyID)', which the key ring no longer has: add it back and re-encrypt")
        }
        guard
            let plaintext = open(
                record.sealed, keyID: record.keyID.utf8,
                associatedData: Self.associatedData(keyID: record.keyID, providerID: record.providerID, subject: record.subject))
        else {
            throw FederateError(.accountStoreFailed, "sealed provider tokens do not authenticate (altered, or moved from another identity)")
        }
        guard let members = try? JSONParser(limits: .init(maxBytes: 64 * 1024, maxDepth: 2)).parseObject(plaintext) else {
            throw FederateError(.accountStoreFailed, "sealed provider tokens are malformed")
        }
        return ProviderTokens(
            accessToken: members["a"]?.stringValue, refreshToken: members["r"]?.stringValue,
            accessTokenExpiresAt: record.accessTokenExpiresAt)
    }

    /// What a sealed value is bound to: the format, the key and the identity, lengths spelled
    /// out so that no two identities share it.
    private static func associatedData(keyID: String, providerID: String, subject: String) -> [UInt8] {
        Array("federate-provider-tokens.v1:\(keyID):\(providerID.utf8.count):\(providerID)\(subject)".utf8)
    }
}
