import Federate
import Foundation

/// A DPoP-bound request's proof (RFC 9449): ES256, for `GET` of an API URL, carrying the
/// access token's hash, checked by a verifier whose clock stays at the proof's `iat`.
public struct DPoPFixture: Sendable {
    public static let url = "https://api.bench.federate.dev/orders"
    public let accessToken: String
    public let proof: String
    public let thumbprint: String
    public let verifier: DPoPProofVerifier

    init() {
        do {
            let key = DPoPKey.generateES256()
            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            accessToken = Fixture.shared.rsaToken
            proof = try key.proof(method: "GET", uri: Self.url, issuedAt: now, accessToken: accessToken)
            thumbprint = key.thumbprint
            verifier = DPoPProofVerifier(clock: .fixed(at: now))
        } catch {
            fatalError("DPoP fixture: \(error)")
        }
    }

    public static let shared = DPoPFixture()
}

/// The proof checks of one DPoP-bound request: the proof verified for the request and the
/// token (`ath`), and its key compared with the token's `cnf.jkt`. The replay store is left
/// out: its cost is the store's.
@inline(never)
public func verifyDPoPProof(_ fixture: DPoPFixture) {
    do {
        let proof = try fixture.verifier.verify(fixture.proof, method: "GET", uri: DPoPFixture.url, accessToken: fixture.accessToken)
        precondition(proof.thumbprint == fixture.thumbprint)
        sink(proof)
    } catch {
        fatalError("DPoP verification failed: \(error)")
    }
}
