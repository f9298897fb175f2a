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
            Listens on 127.0.0.1, prints {"issuer": URL, "login": COMMAND} on standard output (the COMMAND signs in \
            with the first client), and serves until interrupted. Without --config: client dev-client / dev-secret \
            and public client dev-public (loopback redirects on any port), users alice and bob, alice auto-approved.
            """
    )

    @Option(help: "The port (default: a free port).")
    var port: Int = 0

    @Option(help: "The flavour: generic (google, apple and firebase are not built yet).")
    var flavor: String = "generic"

    @Option(help: "A JSON file declaring clients and users (see Docs/DevProvider.md).")
    var config: String?

    func run() async throws {
        do {
            guard flavor == "generic" else {
                throw FederateError(.invalidConfiguration, "only the generic flavour exists yet")
            }
            var configuration = DevProviderConfiguration.standard
            if let config {
                guard let data = FileManager.default.contents(atPath: config) else {
                    throw FederateError(.invalidConfiguration, "cannot read '\(config)'")
                }
                configuration = try DevProviderConfiguration(json: Array(data))
            }
            let provider = try await DevProvider.start(configuration: configuration, port: port)
            let client = configuration.clients[0]
            var login = "federate login --no-browser --issuer \(provider.issuer) --client-id \(client.id)"
            if let secret = client.secret { login += " --client-secret \(secret)" }
            CLIOutput.line(["issuer": .string(provider.issuer), "login": .string(login)])
            try await provider.waitUntilStopped()
        } catch {
            throw CLIOutput.fail(error)
        }
    }
}
