public import FederateRelyingParty
public import FederateTokens

extension KeySetFormat {
    /// Google's `{kid: PEM certificate}` map, served for Firebase ID tokens and some Google
    /// service accounts (`JSONWebKeySet.init(x509Map:)`).
    public static let x509Map = KeySetFormat(name: "x509") { (document) throws(FederateError) in try JSONWebKeySet(x509Map: document) }
}

extension JSONWebKeySet {
    /// Parses Google's x509 key map: a JSON object `{kid: "-----BEGIN CERTIFICATE-----..."}`,
    /// as served for Firebase ID tokens and some Google service accounts.
    ///
    /// Each certificate's public key becomes a key with that `kid`; RSA keys go through the
    /// same checks as JWKS keys. Entries that are not PEM certificates with a supported key
    /// are skipped, never fatal to the set.
    public init(x509Map document: some Collection<UInt8>) throws(FederateError) {
        let members: [String: JSONValue]
        do {
            members = try JSONParser().parseObject(document)
        } catch {
            throw FederateError(.invalidKeySet, "the x509 key map is not a JSON object (\(error))")
        }
        var usable: [JSONWebKey] = []
        var skipped: [SkippedKey] = []
        for kid in members.keys.sorted() {
            guard case .string(let pem)? = members[kid] else {
                skipped.append(SkippedKey(keyID: kid, reason: "value is not a string"))
                continue
            }
            do {
                usable.append(try JSONWebKey(keyID: kid, certificatePEM: pem))
            } catch {
                skipped.append(SkippedKey(keyID: kid, reason: error.message))
            }
        }
        self.init(droppingAmbiguous: usable, skipped: skipped)
    }
}
