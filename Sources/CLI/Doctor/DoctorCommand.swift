import ArgumentParser
import Federate

/// `federate doctor ISSUER [--client-id ID] [--output text|json]`: checks a provider's
/// configuration the way Federate will use it, and says what Federate does about each quirk.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check an OpenID provider's discovery, keys, algorithms, endpoints and clock against what Federate does.",
        discussion: """
            Each check has an id, a status (ok, warning or failure), a message and what Federate does about it. \
            Exit 0 when no check fails (warnings do not fail), 1 when one does. --output json prints one JSON object \
            {"issuer", "client_id", "result", "summary", "checks": [{"id", "status", "message", "federate", "code"?, "details"?}]}.
            """
    )

    /// The output formats.
    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Argument(help: "The issuer URL, exactly as it appears in its tokens' 'iss' claim.")
    var issuer: String

    @Option(name: .customLong("client-id"), help: "Also check what can be checked for this client without its secret.")
    var clientID: String?

    @Option(help: "text (default) or json.")
    var output: OutputFormat = .text

    @Option(help: "Seconds each request to the provider may take, 1 to 600 (default 10, as Federate's own requests).")
    var timeout: Int = 10

    @OptionGroup var privateNetwork: PrivateNetworkOptions

    /// The checks ArgumentParser's `validate()` would make, run from `run()` instead: then an
    /// unknown option is reported as unknown before any other problem.
    func checkOptions() throws {
        if let clientID, clientID.isEmpty { throw ValidationError("--client-id must not be empty.") }
        guard (1...600).contains(timeout) else { throw ValidationError("--timeout is 1 to 600 seconds.") }
        _ = try privateNetwork.allowList()
    }

    func run() async throws {
        try checkOptions()
        let report = await Self.examine(
            issuer: issuer, clientID: clientID, allowList: try privateNetwork.allowList(), httpClient: AsyncHTTPClientTransport.shared,
            timeout: .seconds(timeout))
        switch output {
        case .text: CLIOutput.write(report.text)
        case .json: CLIOutput.line(report.json)
        }
        if report.result == .failure { throw ExitCode(1) }
    }

    /// Runs every check against `issuer` over `httpClient`, each request allowed `timeout`.
    /// Never throws: whatever goes wrong is a finding, and a finding never stops the checks
    /// that can still be made: when Federate refuses the document only for its `issuer`, the
    /// rest of it (keys, algorithms, endpoints, the client) is judged as if the issuer were
    /// right, with the configured issuer's destination policy, and trusted for nothing.
    static func examine(
        issuer: String, clientID: String?, allowList: PrivateNetworkAllowList = .none, httpClient: any HTTPClient, timeout: Duration
    ) async -> DoctorReport {
        let http = RecordingHTTPClient(base: httpClient, timeout: timeout)
        let discovery = await DiscoveryDiagnosis.run(issuer: issuer, allowList: allowList, http: http)
        var checks = discovery.checks
        if let metadata = discovery.metadata ?? discovery.judgedDespiteIssuer {
            checks += AlgorithmDiagnosis.checks(metadata)
            checks += await KeySetDiagnosis.run(metadata: metadata, http: http)
            checks += EndpointDiagnosis.checks(metadata)
            if let clientID { checks += ClientDiagnosis.checks(metadata, clientID: clientID) }
        }
        if !http.exchanges.isEmpty { checks.append(ClockDiagnosis.check(http.exchanges)) }
        return DoctorReport(issuer: issuer, clientID: clientID, checks: checks)
    }
}
