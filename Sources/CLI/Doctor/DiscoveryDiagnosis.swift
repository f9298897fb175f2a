import Federate
import Foundation
import Logging

/// `federate doctor`'s first step: fetch and validate the discovery document with Federate's own
/// `DiscoveryClient`, and explain a refusal in plain words from the recorded response.
struct DiscoveryDiagnosis {
    /// The findings (`discovery.fetch`, `discovery.issuer`, `discovery.document`, and
    /// `endpoints.tls` and `endpoints.private` when the document names endpoints Federate refuses).
    var checks: [DoctorCheck] = []
    /// The validated metadata, when Federate accepts the document; later checks need it.
    var metadata: ProviderMetadata?
    /// When Federate refuses the document only for naming another issuer: the document
    /// validated as if its issuer were the configured one (so under the configured issuer's
    /// destination policy), for the checks that can still be made. Trusted for nothing.
    var judgedDespiteIssuer: ProviderMetadata?

    /// Runs the discovery checks for `issuer` over `http`; `allowList` is the provider's
    /// private-network allow-list (`--allow-private-endpoint`).
    static func run(issuer: String, allowList: PrivateNetworkAllowList, http: RecordingHTTPClient) async -> DiscoveryDiagnosis {
        var diagnosis = DiscoveryDiagnosis()
        let url = ProviderMetadata.discoveryURL(forIssuer: issuer)
        var logger = Logger(label: "federate.doctor")
        logger.logLevel = .critical  // The doctor reports everything itself.
        do throws(FederateError) {
            let metadata = try await DiscoveryClient(httpClient: http, logger: logger)
                .metadata(for: issuer, tenantIssuer: nil, privateNetworkAllowList: allowList)
            diagnosis.metadata = metadata
            diagnosis.checks.append(fetched(url: url, http: http))
            diagnosis.checks.append(
                DoctorCheck(
                    "discovery.issuer", .ok, "The document's issuer is exactly \(DoctorText.quoted(issuer)).",
                    federate: "Federate accepts the document: its issuer equals the configured one byte for byte (Discovery §4.3)."))
            diagnosis.checks.append(
                DoctorCheck(
                    "discovery.document", .ok,
                    "The required fields are present: issuer, authorization_endpoint, token_endpoint, jwks_uri, response_types_supported, subject_types_supported, id_token_signing_alg_values_supported.",
                    federate: "Federate caches the document per issuer (Cache-Control max-age, clamped) and builds clients from it."))
        } catch {
            diagnosis.checks += refused(error, issuer: issuer, allowList: allowList, url: url, http: http)
            if error.code == .discoveryIssuerMismatch, let body = http.latest(for: url)?.response.body,
                var members = try? JSONParser().parseObject(body)
            {
                members["issuer"] = .string(issuer)
                do throws(FederateError) {
                    diagnosis.judgedDespiteIssuer = try ProviderMetadata(
                        members: members, expectedIssuer: issuer, privateNetworkAllowList: allowList)
                } catch {
                    diagnosis.checks += refusedDocument(error, issuer: issuer, allowList: allowList, body: body)
                }
            }
        }
        return diagnosis
    }

    private static func fetched(url: String, http: RecordingHTTPClient) -> DoctorCheck {
        let size = http.latest(for: url)?.response.body.count ?? 0
        return DoctorCheck(
            "discovery.fetch", .ok, "Fetched \(DoctorText.clipped(url, limit: 200)): HTTP 200, \(size) bytes.",
            federate: "Federate fetches this URL (no redirects followed, 10 s deadline, at most 1 MiB) before anything else.")
    }

    private static func refused(
        _ error: FederateError, issuer: String, allowList: PrivateNetworkAllowList, url: String, http: RecordingHTTPClient
    ) -> [DoctorCheck] {
        guard let exchange = http.latest(for: url) else {
            // Nothing was fetched: the issuer itself is refused, or the transport failed.
            let federate: String
            switch error.code {
            case .insecureEndpoint, .invalidURL:
                federate =
                    "Federate refuses the issuer before any request: it must be an absolute https URL (plain http only on loopback hosts) without user information."
            case .privateAddressRefused:
                federate =
                    "Federate refuses a loopback, link-local, private or unspecified address for an issuer that is not on loopback, named or resolved to, and sends nothing there: allow it with --allow-private-endpoint (a per-provider allow-list in the library and in serve) only if this is a provider on your own network."
            default:
                switch (error.cause as? FederateError)?.code {
                case .responseTooLarge?:
                    federate =
                        "Federate reads at most 1 MiB of a discovery document and refuses a larger one: it cannot discover the provider."
                case .httpTimeout?:
                    federate = "Federate gives an exchange 10 s; the provider did not answer in time, so Federate cannot discover it."
                default:
                    federate = "Federate cannot discover the provider, so it cannot sign in or verify its tokens."
                }
            }
            return [
                DoctorCheck(
                    "discovery.fetch", .failure, DoctorText.clipped(error.message, limit: 400), federate: federate,
                    code: error.code.rawValue)
            ]
        }
        guard exchange.response.status == 200 else {
            var message = "\(DoctorText.clipped(url, limit: 200)) answered HTTP \(exchange.response.status)."
            var federate = "Federate needs HTTP 200 with the document; it cannot discover the provider."
            if (300...399).contains(exchange.response.status) {
                if let location = exchange.response.header("Location") {
                    message += " It redirects to \(DoctorText.quoted(location, limit: 200))."
                }
                federate =
                    "Federate does not follow redirects for discovery: the document must be served at ISSUER/.well-known/openid-configuration itself. Check the issuer (a trailing slash, http instead of https, another host)."
            }
            return [DoctorCheck("discovery.fetch", .failure, message, federate: federate, code: error.code.rawValue)]
        }
        var checks = [fetched(url: url, http: http)]
        if error.code == .discoveryIssuerMismatch {
            checks.append(issuerMismatch(error, issuer: issuer, body: exchange.response.body))
        } else {
            checks += refusedDocument(error, issuer: issuer, allowList: allowList, body: exchange.response.body)
        }
        return checks
    }

    /// Why Federate refuses the document (for anything but its issuer), with every endpoint it refuses.
    private static func refusedDocument(
        _ error: FederateError, issuer: String, allowList: PrivateNetworkAllowList, body: [UInt8]
    ) -> [DoctorCheck] {
        switch error.code {
        case .insecureEndpoint, .invalidURL, .privateAddressRefused:
            return [
                DoctorCheck(
                    "discovery.document", .failure, DoctorText.clipped(error.message, limit: 400),
                    federate:
                        "Federate refuses the whole document when one endpoint is not printable-ASCII https (plain http only on loopback hosts of a loopback issuer), or names a loopback, link-local, private or unspecified address while the issuer is not on loopback.",
                    code: error.code.rawValue)
            ] + refusedEndpoints(body: body, destination: DestinationPolicy(issuer: issuer, allowing: allowList))
        default:
            return [
                DoctorCheck(
                    "discovery.document", .failure, DoctorText.clipped(error.message, limit: 400),
                    federate:
                        "Federate refuses the document: it must be one JSON object (at most 1 MiB, 32 levels deep) with the required fields, strings where strings are due.",
                    code: error.code.rawValue)
            ]
        }
    }

    /// Why the document's issuer is not the configured one, in the words that help most.
    private static func issuerMismatch(_ error: FederateError, issuer: String, body: [UInt8]) -> DoctorCheck {
        let federate =
            "Federate refuses the document (discovery_issuer_mismatch): the issuer must match byte for byte, or one provider could pass as another."
        guard let members = try? JSONParser().parseObject(body), case .string(let advertised)? = members["issuer"] else {
            return DoctorCheck(
                "discovery.issuer", .failure, DoctorText.clipped(error.message, limit: 400), federate: federate, code: error.code.rawValue)
        }
        var base = issuer, other = advertised
        while base.hasSuffix("/") { base.removeLast() }
        while other.hasSuffix("/") { other.removeLast() }
        let message: String
        if base == other {
            message =
                "The issuer has a trailing slash mismatch: configured \(DoctorText.quoted(issuer)), the document says \(DoctorText.quoted(advertised))."
        } else if base.lowercased() == other.lowercased() {
            message =
                "The issuer differs only in letter case: configured \(DoctorText.quoted(issuer)), the document says \(DoctorText.quoted(advertised))."
        } else {
            message = "The document's issuer is \(DoctorText.quoted(advertised)), not the configured \(DoctorText.quoted(issuer))."
        }
        return DoctorCheck(
            "discovery.issuer", .failure, message + " Configure the issuer exactly as the provider's tokens carry it in 'iss'.",
            federate: federate, code: error.code.rawValue)
    }

    /// Every endpoint member of the raw document that Federate refuses under the configured
    /// issuer's `destination`, each with the reason: `endpoints.tls` for insecure or unusable
    /// URLs, `endpoints.private` for loopback, link-local, private or unspecified addresses.
    private static func refusedEndpoints(body: [UInt8], destination: DestinationPolicy) -> [DoctorCheck] {
        var insecure: [String] = [], privateAddresses: [String] = []
        if let members = try? JSONParser().parseObject(body) {
            for (field, value) in members.sorted(by: { $0.key < $1.key }) where ProviderMetadata.isEndpointMember(field) {
                guard case .string(let url) = value else { continue }
                do throws(FederateError) {
                    try EndpointSecurity.validate(url, field: field, destination: destination)
                } catch  where error.code == .privateAddressRefused {
                    privateAddresses.append("\(field) (\(url))")
                } catch {
                    insecure.append("\(field) (\(error.code.rawValue))")
                }
            }
        }
        var checks: [DoctorCheck] = []
        if !insecure.isEmpty {
            checks.append(
                DoctorCheck(
                    "endpoints.tls", .failure, "Endpoints Federate refuses: \(DoctorText.list(insecure)).",
                    federate:
                        "Federate calls only printable-ASCII https endpoints, or plain http on a loopback host (127.0.0.0/8, ::1, localhost) when the issuer itself is on loopback (development).",
                    code: FederateError.Code.insecureEndpoint.rawValue))
        }
        if !privateAddresses.isEmpty {
            checks.append(
                DoctorCheck(
                    "endpoints.private", .failure,
                    "Endpoints on loopback, link-local, private or unspecified addresses, while the issuer is not on loopback: \(DoctorText.list(privateAddresses)).",
                    federate:
                        "Federate sends nothing there: a remote provider could otherwise steer its requests (with the client secret) to services on your own network. Allow a provider on your own network with --allow-private-endpoint HOST-OR-CIDR.",
                    code: FederateError.Code.privateAddressRefused.rawValue))
        }
        return checks
    }
}
