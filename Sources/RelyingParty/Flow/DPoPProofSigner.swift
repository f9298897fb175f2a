public import FederateTokens
import Synchronization

/// A client's DPoP key (RFC 9449) and the nonces servers gave it: what signs the proofs of
/// its token, refresh and UserInfo requests, and of the API calls it makes with DPoP-bound
/// access tokens.
///
/// One key per client, ES256 by default, made once and shared by copies of the client
/// (this is a reference). Nonces are remembered per server (scheme, host and port): the
/// authorization server's and each resource server's (§8, §9), at most 64 servers.
///
/// ```swift
/// let client = try OpenIDClient(metadata: metadata, clientID: "app", authentication: .none, httpClient: http)
///     .withDPoP(DPoPProofSigner())
/// ```
public final class DPoPProofSigner: Sendable, CustomStringConvertible {
    /// The key.
    package let key: DPoPKey
    private let clock: FederateClock
    /// The nonce of each server, by its exact origin bytes (`ExactString`).
    private let nonces = Mutex<[ExactString: String]>([:])
    private static let maximumServers = 64

    /// A signer with `key` (default: a fresh ES256 key), dating its proofs by `clock`.
    public init(key: DPoPKey = .generateES256(), clock: FederateClock = .system) {
        self.key = key
        self.clock = clock
    }

    /// The key's thumbprint: `dpop_jkt` in authorization requests, `cnf.jkt` of bound tokens.
    package var thumbprint: String { key.thumbprint }

    /// A proof for a `method` request to `url`, presenting `accessToken` (then with `ath`),
    /// carrying the nonce last remembered for `url`'s server, if any.
    package func proof(method: String, url: String, accessToken: String? = nil) throws(FederateError) -> String {
        let nonce = Self.origin(of: url).flatMap { origin in nonces.withLock { $0[ExactString(origin)] } }
        return try key.proof(method: method, uri: url, issuedAt: clock.now, accessToken: accessToken, nonce: nonce)
    }

    /// The nonce remembered for `url`'s server, if any.
    package func nonce(for url: String) -> String? {
        guard let origin = Self.origin(of: url) else { return nil }
        return nonces.withLock { $0[ExactString(origin)] }
    }

    /// Remembers the `DPoP-Nonce` of `response` from `url`'s server; returns whether it was
    /// a new nonce (then a request refused with `use_dpop_nonce` is worth one retry).
    @discardableResult
    package func remember(nonceFrom response: HTTPResponse, of url: String) -> Bool {
        guard let nonce = response.header("DPoP-Nonce"), Self.isNonceSyntax(nonce), let origin = Self.origin(of: url).map(ExactString.init)
        else {
            return false
        }
        return nonces.withLock { nonces in
            guard !(nonces[origin]?.exactlyEquals(nonce) ?? false) else { return false }
            if nonces[origin] == nil, nonces.count >= Self.maximumServers { nonces.removeAll() }
            nonces[origin] = nonce
            return true
        }
    }

    /// `scheme://host[:port]` of `url`, lower-cased; `nil` when it has none.
    static func origin(of url: String) -> String? {
        guard let target = HTTPTargetURI(url), let separator = target.normalized.firstRange(of: "://") else { return nil }
        let rest = target.normalized[separator.upperBound...]
        return String(target.normalized[..<separator.upperBound]) + String(rest.prefix { $0 != "/" })
    }

    /// RFC 9449 §8.1: `nonce = 1*NQCHAR` (printable ASCII but `"` and `\`), at most 512 characters here.
    static func isNonceSyntax(_ nonce: String) -> Bool {
        (1...512).contains(nonce.utf8.count) && nonce.utf8.allSatisfy { $0 >= 0x21 && $0 <= 0x7E && $0 != 0x22 && $0 != 0x5C }
    }

    /// Redacted.
    public var description: String { "DPoPProofSigner(jkt: \(key.thumbprint))" }
}

extension HTTPResponse {
    /// Whether a resource server refused with `WWW-Authenticate: DPoP error="use_dpop_nonce"` (RFC 9449 §9).
    var asksForDPoPNonce: Bool {
        guard status == 401, let challenge = header("WWW-Authenticate") else { return false }
        return challenge.lowercased().hasPrefix("dpop") && challenge.contains("use_dpop_nonce")
    }
}
