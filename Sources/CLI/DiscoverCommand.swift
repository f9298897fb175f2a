import ArgumentParser
import Federate

/// `federate discover ISSUER`: prints the validated discovery document.
struct DiscoverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discover",
        abstract: "Fetch and validate an issuer's discovery document; print it as JSON.",
        discussion: "Exit 0 with the document on standard output, or exit 1 with {\"error\": CODE, \"message\": ...}."
    )

    @Argument(help: "The issuer URL, exactly as it appears in its tokens' 'iss' claim.")
    var issuer: String

    @OptionGroup var privateNetwork: PrivateNetworkOptions

    func run() async throws {
        let allowList = try privateNetwork.allowList()
        do {
            let metadata = try await DiscoveryClient(httpClient: AsyncHTTPClientTransport.shared)
                .metadata(for: issuer, tenantIssuer: nil, privateNetworkAllowList: allowList)
            CLIOutput.line(.object(metadata.document))
        } catch {
            CLIOutput.line(CLIOutput.errorObject(error))
            throw ExitCode(1)
        }
    }
}
