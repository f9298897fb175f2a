/// A set of public verification keys, as fetched from a provider.
///
/// Built from a JWKS document (``init(jwks:)``), from keys in hand (``init(keys:)``), or by a
/// provider module's own format (`init(droppingAmbiguous:skipped:)`).
///
/// Loading is tolerant per key and strict per set: a key that is unknown, unsupported,
/// for encryption, symmetric or weak is skipped (and listed in ``skipped``), never fatal to
/// the set; a `kid` that appears on more than one usable key is ambiguous, and all keys with
/// that `kid` are dropped. Keys without `kid` are kept: a token without `kid` tries every
/// key that fits its algorithm, in document order (`JWSSignatureVerifier`). `kid`s are
/// compared byte for byte (`ExactString`).
public struct JSONWebKeySet: Sendable {
    /// The usable keys, in document order.
    public let keys: [JSONWebKey]
    /// Keys that were left out, with the reason, for diagnostics.
    public let skipped: [SkippedKey]
    private let byKeyID: [ExactString: JSONWebKey]
    /// Identifies this particular load, so a cache can tell a newer set from the one a
    /// caller already tried.
    package let identity: UInt64

    /// A key left out of a set, and why.
    public struct SkippedKey: Sendable, Hashable {
        /// The key's `kid`, if it had one.
        public let keyID: String?
        /// Why it was left out.
        public let reason: String

        /// Records a key left out.
        package init(keyID: String?, reason: String) {
            self.keyID = keyID
            self.reason = reason
        }
    }

    /// An empty key set.
    package static let empty = JSONWebKeySet(validKeys: [], skipped: [])

    /// Creates a set from keys in hand. Keys without `kid` are allowed here (they are tried
    /// for tokens without `kid`); a repeated `kid` throws ``FederateError/Code/invalidKeySet``.
    public init(keys: [JSONWebKey]) throws(FederateError) {
        var seen = Set<ExactString>()
        for key in keys {
            if let kid = key.keyID, !seen.insert(ExactString(kid)).inserted {
                throw FederateError(.invalidKeySet, "kid '\(kid)' appears twice")
            }
        }
        self.init(validKeys: keys, skipped: [])
    }

    /// Parses a JWKS document (`{"keys": [...]}`, RFC 7517 §5).
    public init(jwks document: some Collection<UInt8>) throws(FederateError) {
        let members: [String: JSONValue]
        do {
            members = try JSONParser().parseObject(document)
        } catch {
            throw FederateError(.invalidKeySet, "the key set is not a JSON object (\(error))")
        }
        guard case .array(let entries)? = members["keys"] else {
            throw FederateError(.invalidKeySet, "the key set has no 'keys' array")
        }
        var usable: [JSONWebKey] = []
        var skipped: [SkippedKey] = []
        for entry in entries {
            guard case .object(let jwk) = entry else {
                skipped.append(SkippedKey(keyID: nil, reason: "not a JSON object"))
                continue
            }
            let kid = jwk["kid"]?.stringValue
            do {
                usable.append(try JSONWebKey(jwk: jwk))
            } catch {
                skipped.append(SkippedKey(keyID: kid, reason: error.message))
            }
        }
        self.init(droppingAmbiguous: usable, skipped: skipped)
    }

    /// A set from keys a parser loaded: a `kid` on more than one key is ambiguous, and all
    /// keys with it are dropped (and listed in ``skipped``), as for a JWKS document.
    package init(droppingAmbiguous usable: [JSONWebKey], skipped: [SkippedKey]) {
        var counts: [ExactString: Int] = [:]
        for key in usable { if let kid = key.keyID { counts[ExactString(kid), default: 0] += 1 } }
        var skipped = skipped
        var keys: [JSONWebKey] = []
        for key in usable {
            if let kid = key.keyID, let count = counts[ExactString(kid)], count > 1 {
                skipped.append(SkippedKey(keyID: kid, reason: "kid is shared by \(count) keys (ambiguous)"))
            } else {
                keys.append(key)
            }
        }
        self.init(validKeys: keys, skipped: skipped)
    }

    private init(validKeys: [JSONWebKey], skipped: [SkippedKey]) {
        self.keys = validKeys
        self.skipped = skipped
        var index: [ExactString: JSONWebKey] = [:]
        for key in validKeys { if let kid = key.keyID { index[ExactString(kid)] = key } }
        self.byKeyID = index
        self.identity = UInt64.random(in: .min ... .max)
    }

    /// The key with exactly this `kid` (byte for byte), if any.
    package func key(withID keyID: String) -> JSONWebKey? {
        // A provider's set holds a handful of keys: comparing bytes beats hashing the `kid`.
        guard keys.count > 8 else { return keys.first { $0.keyID?.exactlyEquals(keyID) == true } }
        return byKeyID[ExactString(keyID)]
    }

    /// The key IDs in the set.
    package var keyIDs: [String] { keys.compactMap(\.keyID) }
}
