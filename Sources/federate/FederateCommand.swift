import ArgumentParser

/// The `federate` command-line tool.
@main
struct FederateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "federate",
        abstract: "OpenID Connect relying-party tools: discover issuers and verify ID tokens.",
        subcommands: [DiscoverCommand.self, VerifyCommand.self]
    )
}
