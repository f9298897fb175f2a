import Federate
import Foundation
import Logging

/// `federate doctor`'s first step: fetch and validate the discovery document with Federate's own
/// `DiscoveryClient`, and explain a refusal in plain words from the recorded response.
struct DiscoveryDiagnosis {
    /// The findings (`discovery.fetch`, `discovery.issuer`, `discovery.document`, and
    /// `endpoints.tls` when the document names an insecure endpoint).
    var checks: [DoctorCheck] = []
    /// The validated metadata, when Federate accepts the document; later checks need it.
    var metadata: ProviderMetadata?

    /// Runs the discovery checks for `issuer` over `http`.
    static func run(issuer: String, http: RecordingHTTPClient) async -> DiscoveryDiagnosis {
        var diagnosis = DiscoveryDiagnosis()
        let url = ProviderMetadata.discoveryURL(forIssuer: issuer)
        var logger = Logger(label: "federate.doctor")
        logger.logLevel = .critical  // The doctor reports everything itself.
        do throws(FederateError) {
            let metadata = try await DiscoveryClient(httpClient: http, logger: logger).metadata(for: issuer)
            diagnosis.metadata = metadata
            diagnosis.checks.append(fetched(url: url, http: http))
            diagnosis.checks.append(DoctorCheck(
                "discovery.issuer", .ok, "The document's issuer is exactly \(DoctorText.quoted(issuer)).",
                federate: "Federate accepts the document: its issuer equals the configured one byte for byte (Discovery §4.3)."))
            diagnosis.checks.append(DoctorCheck(
                "discovery.document", .ok,
                "The required fields are present: issuer, authorization_endpoint, token_endpoint, jwks_uri, response_types_supported, subject_types_supported, id_token_signing_alg_values_supported.",
                federate: "Federate caches the document per issuer (Cache-Control max-age, clamped) and builds clients from it."))
        } catch {
            diagnosis.checks += refused(error, issuer: issuer, url: url, http: http)
        }
        return diagnosis
    }

    private static func fetched(url: String, http: RecordingHTTPClient) -> DoctorCheck {
        let size = http.latest(for: url)?.response.body.count ?? 0
        return DoctorCheck(
            "discovery.fetch", .ok, "Fetched \(DoctorText.clipped(url, limit: 200)): HTTP 200, \(size) bytes.",
            federate: "Federate fetches this URL (no redirects followed, 10 s deadline, at most 1 MiB) before anything else.")
    }

    private static func refused(_ error: FederateError, issuer: String, url: String, http: RecordingHTTPClient) -> [DoctorCheck] {
        guard let exchange = http.latest(for: url) else {
            // Nothing was fetched: the issuer itself is refused, or the transport failed.
            let federate: String
            switch error.code {
            case .insecureEndpoint, .invalidURL:
                federate = "Federate refuses the issuer before any request: it must be an absolute https URL (plain http only on loopback hosts) without user information."
            default:
                switch (error.cause as? FederateError)?.code {
                case .responseTooLarge?:
                    federate = "Federate reads at most 1 MiB of a discovery document and refuses a larger one: it cannot discover the provider."
                case .httpTimeout?:
                    federate = "Federate gives an exchange 10 s; the provider did not answer in time, so Federate cannot discover it."
                default:
                    federate = "Federate cannot discover the provider, so it cannot sign in or verify its tokens."
                }
            }
            return [DoctorCheck("discovery.fetch", .failure, DoctorText.clipped(error.message, limit: 400), federate: federate, code: error.code.rawValue)]
        }
        guard exchange.response.status == 200 else {
            var message = "\(DoctorText.clipped(url, limit: 200)) answered HTTP \(exchange.response.status)."
            var federate = "Federate needs HTTP 200 with the document; it cannot discover the provider."
            if (300...399).contains(exchange.response.status) {
                if let location = exchange.response.header("Location") {
                    message += " It redirects to \(DoctorText.quoted(location, limit: 200))."
                }
                federate = "Federate does not follow redirects for discovery: the document must be served at ISSUER/.well-known/openid-configuration itself. Check the issuer (a trailing slash, http instead of https, another host)."
            }
            return [DoctorCheck("discovery.fetch", .failure, message, federate: federate, code: error.code.rawValue)]
        }
        var checks = [fetched(url: url, http: http)]
        switch error.code {
        case .discoveryIssuerMismatch:
            checks.append(issuerMismatch(error, issuer: issuer, body: exchange.response.body))
        case .insecureEndpoint, .invalidURL:
            checks.append(DoctorCheck(
                "discovery.document", .failure, DoctorText.clipped(error.message, limit: 400),
                federate: "Federate refuses the whole document when one endpoint is not https (plain http only on loopback hosts).",
                code: error.code.rawValue))
            checks.append(insecureEndpoints(body: exchange.response.body))
        default:
            checks.append(DoctorCheck(
                "discovery.document", .failure, DoctorText.clipped(error.message, limit: 400),
                federate: "Federate refuses the document: it must be one JSON object (at most 1 MiB, 32 levels deep) with the required fields, strings where strings are due.",
                code: error.code.rawValue))
        }
        return checks
    }

    /// Why the document's issuer is not the configured one, in the words that help most.
    private static func issuerMismatch(_ error: FederateError, issuer: String, body: [UInt8]) -> DoctorCheck {
        let federate = "Federate refuses the document (discovery_issuer_mismatch): the issuer must match byte for byte, or one provider could pass as another."
        guard let members = try? JSONParser().parseObject(body), case .string(let advertised)? = members["issuer"] else {
            return DoctorCheck("discovery.issuer", .failure, DoctorText.clipped(error.message, limit: 400), federate: federate, code: error.code.rawValue)
        }
        var base = issuer, other = advertised
        while base.hasSuffix("/") { base.removeLast() }
        while other.hasSuffix("/") { other.removeLast() }
        let message: String
        if base == other {
            message = "The issuer has a trailing slash mismatch: configured \(DoctorText.quoted(issuer)), the document says \(DoctorText.quoted(advertised))."
        } else if base.lowercased() == other.lowercased() {
            message = "The issuer differs only in letter case: configured \(DoctorText.quoted(issuer)), the document says \(DoctorText.quoted(advertised))."
        } else {
            message = "The document's issuer is \(DoctorText.quoted(advertised)), not the configured \(DoctorText.quoted(issuer))."
        }
        return DoctorCheck(
            "discovery.issuer", .failure, message + " Configure the issuer exactly as the provider's tokens carry it in 'iss'.",
            federate: federate, code: error.code.rawValue)
    }

    /// Every endpoint field of the raw document that Federate would refuse, each with the reason.
    private static func insecureEndpoints(body: [UInt8]) -> DoctorCheck {
        var refused: [String] = []
        if let members = try? JSONParser().parseObject(body) {
            for field in EndpointDiagnosis.endpointFields {
                guard case .string(let value)? = members[field] else { continue }
                do throws(FederateError) {
                    try EndpointSecurity.validate(value, field: field)
                } catch {
                    refused.append("\(field) (\(error.code.rawValue))")
                }
            }
        }
        return DoctorCheck(
            "endpoints.tls", .failure, "Endpoints Federate refuses: \(DoctorText.list(refused)).",
            federate: "Federate calls only https endpoints, or plain http on a loopback host (127.0.0.0/8, ::1, localhost) for development.",
            code: FederateError.Code.insecureEndpoint.rawValue)
    }
}
