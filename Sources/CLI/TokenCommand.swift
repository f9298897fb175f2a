import ArgumentParser
import Federate

/// `federate token`: refresh and revoke tokens at a provider, and get the service's own
/// (client credentials, token exchange).
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Refresh or revoke tokens, or get this service's own (client credentials, token exchange).",
        subcommands: [Refresh.self, Revoke.self, ClientCredentials.self, Exchange.self]
    )

    /// `federate token refresh`.
    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Exchange a refresh token for new tokens.",
            discussion: """
                Prints {"access_token", "token_type", "expires_at", "refresh_token", "id_token", "claims", \
                "granted_scopes", "refused_scopes"} and exits 0, or {"error": CODE, "message": ...} and exits 1 \
                (invalid_grant: the refresh token is dead; sign in again).
                """
        )

        @OptionGroup var client: ClientOptions

        @Option(name: .customLong("refresh-token"), help: "The refresh token.")
        var refreshToken: String

        @Option(help: "Narrower scopes to ask for, space-separated.")
        var scope: String?

        func run() async throws {
            try client.checkOptions()
            do {
                let openID = try await client.makeClient()
                let tokens = try await openID.refresh(refreshToken, scopes: scope.map { $0.split(separator: " ").map(String.init) })
                var output = CLIOutput.tokenSetObject(tokens, includeTokens: true)
                if case .object(let raw)? = output.removeValue(forKey: "tokens") {
                    output.merge(raw) { first, _ in first }
                }
                CLIOutput.line(.object(output))
            } catch {
                throw CLIOutput.fail(error)
            }
        }
    }

    /// `federate token revoke`.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke an access or refresh token (RFC 7009).",
            discussion: "Prints {\"revoked\": true} and exits 0, or {\"error\": CODE, \"message\": ...} and exits 1."
        )

        enum Hint: String, ExpressibleByArgument, CaseIterable {
            case accessToken = "access_token"
            case refreshToken = "refresh_token"
        }

        @OptionGroup var client: ClientOptions

        @Option(help: "The token to revoke.")
        var token: String

        @Option(help: "token_type_hint: access_token or refresh_token.")
        var hint: Hint?

        @Option(name: .customLong("revocation-endpoint"), help: "The revocation endpoint, when discovery does not advertise one.")
        var revocationEndpoint: String?

        func run() async throws {
            try client.checkOptions()
            do {
                let openID = try await client.makeClient(revocationEndpoint: revocationEndpoint)
                try await openID.revoke(token, hint: hint?.rawValue)
                CLIOutput.line(["revoked": true])
            } catch {
                throw CLIOutput.fail(error)
            }
        }
    }
}
