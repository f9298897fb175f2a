import ArgumentParser
import Federate
import FederateDevProvider
import Foundation

/// `federate dev-provider`: runs the local OpenID provider until interrupted.
struct DevProviderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dev-provider",
        abstract: "Run Federate's local OpenID provider for development and tests.",
        discussion: """
            Listens on 127.0.0.1, prints {"issuer": URL, "flavor": F, "login": COMMAND} on standard output (the COMMAND \
            signs in with the first client; for the Apple flavour it carries a client secret valid for an hour), and serves \
            until interrupted. Without --config, each flavour has ready-made clients and users (see Docs/DevProvider.md); \
            the generic one: client dev-client / dev-secret and public client dev-public (loopback redirects on any port and path), \
            users alice and bob, alice auto-approved.
            """
    )

    @Option(help: "The port (default: a free port).")
    var port: Int = 0

    @Option(help: "The flavour: generic, google, apple, firebase, microsoft or github.")
    var flavor: String = "generic"

    @Option(help: "A JSON file declaring clients and users (see Docs/DevProvider.md); its \"flavor\" wins over --flavor.")
    var config: String?

    /// The checks ArgumentParser's `validate()` would make, run from `run()` instead: then an
    /// unknown option (a misspelt `--audiance`) is reported as unknown before any missing one.
    func checkOptions() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535.") }
    }

    func run() async throws {
        try checkOptions()
        do {
            guard let flavor = DevFlavor(rawValue: flavor) else {
                throw FederateError(
                    .invalidConfiguration, "unknown flavour '\(self.flavor)' (generic, google, apple, firebase, microsoft or github)")
            }
            var configuration = DevProviderConfiguration.standard(for: flavor)
            if let config {
                guard let data = FileManager.default.contents(atPath: config) else {
                    throw FederateError(.invalidConfiguration, "cannot read '\(config)'")
                }
                configuration = try DevProviderConfiguration(json: Array(data), defaultFlavor: flavor)
            }
            let provider = try await DevProvider.start(configuration: configuration, port: port)
            let client = configuration.clients[0]
            var issuer = provider.issuer
            if configuration.flavor == .microsoft,
                let user = configuration.users.first(where: { $0.subject == configuration.autoApproveSubject }) ?? configuration.users.first
            {
                // The issuer is a {tenantid} template: log in at one tenant's own authority, whose issuer is concrete.
                issuer = provider.baseURL + "/" + DevMicrosoftTenants.tenantID(for: user) + "/v2.0"
            }
            if configuration.flavor == .github {
                // OAuth 2.0 without OpenID: no `federate login`; GitHubEndpoints.enterprise(URL) points at it.
                CLIOutput.line(["issuer": .string(provider.issuer), "flavor": "github", "enterprise_url": .string(provider.baseURL)])
                try await provider.waitUntilStopped()
                return
            }
            var login = "federate login --no-browser --show-tokens --issuer \(issuer) --client-id \(client.id)"
            if let secret = try provider.clientSecret(for: client) { login += " --client-secret=\(secret)" }
            if configuration.flavor == .apple { login += " --scope openid" }
            CLIOutput.line(["issuer": .string(provider.issuer), "flavor": .string(configuration.flavor.rawValue), "login": .string(login)])
            try await provider.waitUntilStopped()
        } catch {
            throw CLIOutput.fail(error)
        }
    }
}
