import ArgumentParser

/// The `federate` command-line tool.
@main
struct FederateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "federate",
        abstract: "OpenID Connect relying-party tools: discover and diagnose issuers, verify ID tokens, sign in, refresh and revoke.",
        subcommands: [
            DiscoverCommand.self, DoctorCommand.self, VerifyCommand.self, LoginCommand.self, TokenCommand.self, AppleCommand.self,
            DevProviderCommand.self, ServeCommand.self, AccountsCommand.self,
        ]
    )
}
