import ArgumentParser
import Federate

/// `--allow-private-endpoint`, shared by every command that talks to a provider: the only way
/// to let a provider whose issuer is not on loopback use a loopback, link-local, private or
/// unspecified address (Docs/CLI.md, Docs/Security.md).
struct PrivateNetworkOptions: ParsableArguments {
    @Option(
        name: .customLong("allow-private-endpoint"),
        help: ArgumentHelp(
            "A host name, address or CIDR network (10.0.0.0/8) the provider may use although its issuer is not on loopback (repeatable). Without it, such a provider's loopback, link-local, private and unspecified destinations are refused.",
            valueName: "host-or-cidr"))
    var entries: [String] = []

    /// The entries as an allow-list; a malformed entry is a usage error.
    func allowList() throws -> PrivateNetworkAllowList {
        do {
            return try PrivateNetworkAllowList(entries)
        } catch {
            throw ValidationError("--allow-private-endpoint: \(error.message)")
        }
    }
}
