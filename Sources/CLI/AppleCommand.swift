import ArgumentParser
import Federate
import FederateApple
import Foundation

/// `federate apple`: Sign in with Apple helpers.
struct AppleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple",
        abstract: "Sign in with Apple helpers.",
        subcommands: [ClientSecret.self]
    )

    /// `federate apple client-secret`.
    struct ClientSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "client-secret",
            abstract: "Print a client secret (an ES256 JWT) for Apple's token and revocation endpoints.",
            discussion:
                "Prints {\"client_secret\": JWT, \"expires_at\": UNIX_TIME} and exits 0, or {\"error\": CODE, \"message\": ...} and exits 1."
        )

        @Option(name: .customLong("team-id"), help: "The Apple developer team ID (the secret's iss).")
        var teamID: String

        @Option(name: .customLong("key-id"), help: "The Sign in with Apple key ID (the header kid).")
        var keyID: String

        @Option(name: .customLong("client-id"), help: "The Services ID or bundle ID (the secret's sub).")
        var clientID: String

        @Option(name: .customLong("key-file"), help: "The .p8 private key file from Apple.")
        var keyFile: String

        @Option(help: "Seconds the secret is valid (at most 15777000, about six months).")
        var lifetime: Int = 15_777_000

        func run() async throws {
            do {
                guard let data = FileManager.default.contents(atPath: keyFile) else {
                    throw FederateError(.invalidConfiguration, "cannot read the key file '\(keyFile)'")
                }
                let generator = try AppleClientSecret(
                    teamID: teamID, keyID: keyID, clientID: clientID, privateKeyPEM: String(decoding: data, as: UTF8.self),
                    lifetime: .seconds(lifetime))
                let now = FederateClock.system.now
                let secret = try generator.make(now: now)
                CLIOutput.line([
                    "client_secret": .string(secret),
                    "expires_at": .integer(SafeNumber.clampedInt64(now.timeIntervalSince1970) &+ Int64(lifetime)),
                ])
            } catch {
                throw CLIOutput.fail(error)
            }
        }
    }
}
