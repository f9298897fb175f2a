import FederateTestSupport
import Foundation
import Testing
@testable import FederateTokens

/// DPoP proofs across implementations nobody here wrote: idpy-oidc's `DPoPProof` (the one its
/// provider's DPoP add-on uses) and joserfc make proofs Federate's verifier must accept with
/// the thumbprints they compute; Federate's proof is verified by both, and its thumbprint and
/// `ath` agree with theirs. Run by `Tests/Interop/dpop_interop.py` in the interop venv
/// (`Tests/Interop/venv.sh`); a missing Python fails the test, never skips it.
@Suite("Interop: DPoP proofs with idpy-oidc and joserfc")
struct DPoPInteropTests {
    @Test(.timeLimit(.minutes(20)))
    func proofsAndThumbprintsAgree() async throws {
        let root = try ExternalProcess.packageRoot()
        let python = try await InteropPython.prepare(root: root)

        let key = DPoPKey.generateES256()
        let accessToken = "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"
        let tokenURL = "https://as.example.com/token"
        let resource = "https://rs.example.com/orders?page=2"
        let ours = try key.proof(method: "GET", uri: resource, issuedAt: Date(), accessToken: accessToken)
        let run = await ExternalProcess.run(
            [python, "Tests/Interop/dpop_interop.py", tokenURL, ours, accessToken, resource], in: root, timeout: 120)
        try #require(run.status == 0, "dpop_interop.py failed: \(ExternalProcess.tail(run.stderr))")
        let output = try JSONParser().parseObject(Array(run.stdout.utf8))

        // Their proofs verify here, with their thumbprints.
        let verifier = DPoPProofVerifier()
        let proofs = try #require(output["proofs"]?.arrayValue)
        #expect(proofs.count == 5)
        for entry in proofs {
            let by = entry["by"]?.stringValue ?? "?"
            let proof = try #require(entry["proof"]?.stringValue)
            let verified = try verifier.verify(proof, method: "POST", uri: tokenURL)
            #expect(verified.thumbprint == entry["jkt"]?.stringValue, "\(by)")
            #expect(throws: FederateError.self, "\(by)") { try verifier.verify(proof, method: "GET", uri: tokenURL) }
        }

        // Our proof verifies there: claims, thumbprint and `ath` as they compute them.
        let verified = try #require(output["verified"])
        #expect(verified["jkt"]?.stringValue == key.thumbprint)
        #expect(verified["joserfc_jkt"]?.stringValue == key.thumbprint)
        #expect(verified["claims"]?["ath"]?.stringValue == verified["ath"]?.stringValue)
        #expect(verified["claims"]?["htu"] == "https://rs.example.com/orders")
        #expect(verified["private_members"] == [])
    }
}
