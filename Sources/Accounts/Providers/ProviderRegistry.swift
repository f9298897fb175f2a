import FederateRelyingParty
public import FederateTokens
import Synchronization

/// The providers a server signs users in with, each under a route name (`google` in
/// `/auth/google/start`) and its provider ID (`google.com`), with the capabilities it
/// declared (``ProviderCapabilities``).
///
/// Both keys are matched byte for byte (`ExactString`): a look-alike such as `dev\u{037E}`
/// for `dev;` names no provider. The server routes, the readiness check, the warmer,
/// `federate serve` and the CLI find providers here, and nowhere else.
///
/// ```swift
/// let providers = try ProviderRegistry(["google": google, "apple": apple, "corp": corp])
/// ```
public struct ProviderRegistry: Sendable {
    /// One registered provider.
    package struct Entry: Sendable {
        /// The route name.
        package let name: String
        /// The provider.
        package let provider: any SignInProvider
        /// What it declared it can do, read once at registration.
        package let capabilities: ProviderCapabilities

        /// The provider ID its credentials carry.
        package var providerID: String { provider.providerID }
    }

    /// Every provider, sorted by route name.
    package let entries: [Entry]
    private let byName: [ExactString: Int]
    private let byProviderID: [ExactString: Int]
    private let background = BackgroundWarming()

    /// Registers `providers` by route name. Throws `invalid_configuration` for a route name
    /// that is not 1–64 of `A-Z a-z 0-9 . _ -`, or for two providers with one provider ID
    /// (an identity's provider must name one of them).
    public init(_ providers: [String: any SignInProvider]) throws(FederateError) {
        var entries: [Entry] = []
        for (name, provider) in providers.sorted(by: { Array($0.key.utf8).lexicographicallyPrecedes($1.key.utf8) }) {
            guard Self.isValidName(name) else {
                throw FederateError(.invalidConfiguration, "a provider's route name is 1-64 of [A-Za-z0-9._-]")
            }
            entries.append(Entry(name: name, provider: provider, capabilities: provider.capabilities))
        }
        var byName: [ExactString: Int] = [:], byProviderID: [ExactString: Int] = [:]
        for (index, entry) in entries.enumerated() {
            byName[ExactString(entry.name)] = index
            if let other = byProviderID.updateValue(index, forKey: ExactString(entry.providerID)) {
                throw FederateError(
                    .invalidConfiguration, "the providers '\(entries[other].name)' and '\(entry.name)' have the same provider ID")
            }
        }
        self.entries = entries
        self.byName = byName
        self.byProviderID = byProviderID
    }

    /// The provider whose route name is exactly `name`.
    package func entry(named name: String) -> Entry? {
        byName[ExactString(name)].map { entries[$0] }
    }

    /// The provider whose provider ID is exactly `providerID`.
    package func entry(providerID: String) -> Entry? {
        byProviderID[ExactString(providerID)].map { entries[$0] }
    }

    /// Starts fetching, in the background, the discovery documents and key sets of the
    /// providers with the warming capability, unless it started less than `interval` ago:
    /// what a readiness check does when a provider is cold, so an application that runs no
    /// `ProviderWarmer` still turns ready. Each provider's cache fetches once for concurrent
    /// callers; failures are left to the next check.
    package func warmInBackground(atMostEvery interval: Duration = .seconds(2)) {
        background.start(entries.compactMap(\.capabilities.warming), atMostEvery: interval)
    }

    /// Whether `name` is 1–64 of `A-Z a-z 0-9 . _ -`: a route name, and the name part of the
    /// `oidc.` and `oauth2.` provider IDs.
    package static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                    return true
                default:
                    return false
                }
            }
    }
}

/// When a background warming last started, shared by copies of a registry.
private final class BackgroundWarming: Sendable {
    private let lastStart = Mutex<ContinuousClock.Instant?>(nil)

    func start(_ providers: [any WarmableProvider], atMostEvery interval: Duration) {
        let now = FederateClock.system.instant
        let due = lastStart.withLock { last in
            if let started = last, now - started < interval { return false }
            last = now
            return true
        }
        guard due, !providers.isEmpty else { return }
        Task {
            for provider in providers where !provider.isWarm {
                try? await provider.warm()
            }
        }
    }
}
