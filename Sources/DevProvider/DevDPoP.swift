import Federate
import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// The dev provider's DPoP (RFC 9449) state: the proofs it accepted (each is single use), its
/// nonce secret, and the `dpop_jkt` of codes whose authorization request named a key (§10).
final class DevDPoPState: Sendable {
    let replay = InMemoryReplayStore()
    let nonces: DPoPNonces?
    private let codeBindings = Mutex<[ExactString: String]>([:])

    init() {
        nonces = try? DPoPNonces(secret: SecureRandom.bytes(32))
    }

    /// Remembers that `code` may only be exchanged with a proof of the key `thumbprint`.
    func bind(code: String, to thumbprint: String?) {
        guard let thumbprint else { return }
        codeBindings.withLock { $0[ExactString(code)] = thumbprint }
    }

    /// The key `code` is bound to, forgotten as it is read.
    func takeBinding(of code: String) -> String? {
        codeBindings.withLock { $0.removeValue(forKey: ExactString(code)) }
    }
}

extension HTTPField.Name {
    // Both names are valid field names: the initializer never fails, the fallback is never taken.
    static let dpop = Self("DPoP") ?? .authorization
    static let dpopNonce = Self("DPoP-Nonce") ?? .cacheControl
}

/// The outcome of checking a request's DPoP proof: no proof, a verified one, or the response refusing it.
enum DevDPoPCheck {
    case absent
    case verified(DPoPProof)
    case refused(Response)
}

extension DevRoutes {
    /// What proofs must satisfy here: this provider's clock, single use, and nonces when
    /// ``DevProviderConfiguration/requiresDPoPNonce`` is on.
    var dpopValidator: DPoPProofValidator {
        DPoPProofValidator(
            verifier: DPoPProofVerifier(clock: configuration.clock), replayStore: state.dpop.replay,
            nonces: configuration.requiresDPoPNonce ? state.dpop.nonces : nil)
    }

    /// The `DPoP` header of a token request, checked (RFC 9449 §5): refusals are 400
    /// `invalid_dpop_proof`, or `use_dpop_nonce` with a `DPoP-Nonce` header (§8).
    func tokenRequestProof(_ proofs: [String]) async -> DevDPoPCheck {
        guard !proofs.isEmpty else { return .absent }
        let validator = dpopValidator
        do throws(FederateError) {
            guard proofs.count == 1 else { throw FederateError(.invalidDPoPProof, "more than one DPoP header") }
            return .verified(try await validator.validate(proof: proofs[0], method: "POST", uri: baseURL + endpoints.token))
        } catch {
            let code = error.code == .useDPoPNonce ? "use_dpop_nonce" : "invalid_dpop_proof"
            var response = oauthError(code, error.message)
            if let nonce = validator.currentNonce() { response.headers[.dpopNonce] = nonce }
            return .refused(response)
        }
    }

    /// `Authorization: DPoP` at UserInfo (RFC 9449 §7): the token must be DPoP-bound to the
    /// proof's key. Refusals are 401 with `WWW-Authenticate: DPoP error=...`.
    func userinfoProof(token: String, grant: DevTokenGrant, proofs: [String], method: String, path: String) async -> Response? {
        let validator = dpopValidator
        do throws(FederateError) {
            guard proofs.count == 1 else { throw FederateError(.invalidDPoPProof, "exactly one DPoP header is required") }
            _ = try await validator.validate(proof: proofs[0], method: method, uri: baseURL + path, accessToken: token, boundTo: grant.jkt)
            return nil
        } catch {
            let code = error.code == .useDPoPNonce ? "use_dpop_nonce" : "invalid_dpop_proof"
            var response = Response(
                status: .unauthorized, headers: [.wwwAuthenticate: "DPoP error=\"\(code)\", algs=\"\(validator.algorithmsParameter)\""])
            if let nonce = validator.currentNonce() { response.headers[.dpopNonce] = nonce }
            return response
        }
    }
}
