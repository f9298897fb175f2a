import ArgumentParser
import Federate
import Foundation

/// `federate verify`: verifies ID tokens given as an argument or one per line on standard input.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify ID tokens against an issuer (discovery) or a key set.",
        discussion: """
            With TOKEN: prints {"valid": true, "claims": {...}} and exits 0, or {"valid": false, "error": CODE, \
            "message": ...} and exits 1. Without TOKEN: reads tokens from standard input, one per line, and writes \
            one JSON line per token in the same order, flushed after each line; exits 0 at end of input. \
            --output summary prints only "N valid, M invalid".
            """
    )

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case json, summary
    }

    @Option(help: "Discover this issuer and use its jwks_uri; 'iss' must equal it.")
    var issuer: String?

    @Option(help: "Verify as a built-in provider does: google, firebase, firebase-session, apple or microsoft.")
    var provider: ProviderVerification.Name?

    @Option(
        name: .customLong("project-id"),
        help: "With --provider firebase or firebase-session: the Firebase project (else GOOGLE_CLOUD_PROJECT, GCLOUD_PROJECT).")
    var projectID: String?

    @Option(
        name: .customLong("keys-url"),
        help:
            "With --provider google, firebase, firebase-session or apple: a JWKS or x509-map file or URL instead of the provider's real keys."
    )
    var keysURL: String?

    @Option(
        name: .customLong("firebase-emulator"),
        help:
            "With --provider firebase or firebase-session: the Auth emulator's host:port (loopback only). Only its unsigned tokens are then accepted. Never on by default; FIREBASE_AUTH_EMULATOR_HOST is not read."
    )
    var firebaseEmulator: String?

    @Option(help: "With --provider microsoft: the one tenant (ID) whose users are accepted.")
    var tenant: String?

    @Option(
        name: .customLong("account-types"), help: "With --provider microsoft: organizations, common or consumers (instead of --tenant).")
    var accountTypes: String?

    @Option(name: .customLong("allowed-tenant"), help: "With --account-types organizations or common: an accepted tenant ID (repeatable).")
    var allowedTenants: [String] = []

    @Flag(name: .customLong("any-tenant"), help: "With --account-types organizations or common: accept every tenant, explicitly.")
    var anyTenant = false

    @Option(
        name: .customLong("authority-host"),
        help: "With --provider microsoft: the authority host (a national cloud); default https://login.microsoftonline.com.")
    var authorityHost: String?

    @Option(help: "A JWKS file path or URL to verify with (instead of --issuer).")
    var jwks: String?

    @Option(name: .customLong("expected-issuer"), help: "With --jwks: the accepted 'iss' (repeatable). Without it, 'iss' is not checked.")
    var expectedIssuers: [String] = []

    @Option(name: .customLong("audience"), help: "An accepted client ID (repeatable; at least one).")
    var audiences: [String] = []

    @Option(help: "The expected 'nonce'.")
    var nonce: String?

    @Option(name: .customLong("max-age"), help: "Require 'auth_time' no older than this many seconds.")
    var maxAge: Double?

    @Option(
        name: .customLong("alg"),
        help: "An allowed algorithm (repeatable). Default: the issuer's advertised algorithms, or every asymmetric algorithm with --jwks.")
    var algorithms: [String] = []

    @Option(name: .customLong("at"), help: "Evaluate time claims at this UNIX time instead of now.")
    var at: Double?

    @Option(help: "json (default) or summary.")
    var output: OutputFormat = .json

    @OptionGroup var privateNetwork: PrivateNetworkOptions

    @Argument(help: "The ID token. Without it, tokens are read from standard input, one per line.")
    var token: String?

    /// The checks ArgumentParser's `validate()` would make, run from `run()` instead: then an
    /// unknown option (a misspelt `--audiance`) is reported as unknown before any missing one.
    func checkOptions() throws {
        guard [issuer != nil, jwks != nil, provider != nil].filter({ $0 }).count == 1 else {
            throw ValidationError("Give exactly one of --issuer, --jwks or --provider.")
        }
        if provider == nil, projectID != nil || keysURL != nil {
            throw ValidationError("--project-id and --keys-url go with --provider.")
        }
        if let provider, provider.isFirebase {
            guard audiences.isEmpty else {
                throw ValidationError("With --provider \(provider.rawValue) the audience is the project: use --project-id.")
            }
        } else {
            guard !audiences.isEmpty else { throw ValidationError("Give at least one --audience.") }
            if projectID != nil { throw ValidationError("--project-id goes with --provider firebase or firebase-session.") }
        }
        if let firebaseEmulator {
            guard provider?.isFirebase == true else {
                throw ValidationError("--firebase-emulator goes with --provider firebase or firebase-session.")
            }
            guard ProviderVerification.loopbackEmulator(firebaseEmulator) != nil else {
                throw ValidationError(
                    "--firebase-emulator is the emulator's host:port on a loopback host (127.0.0.1:9099, [::1]:9099, localhost:9099).")
            }
        }
        try checkMicrosoftOptions()
        if issuer != nil, !expectedIssuers.isEmpty {
            throw ValidationError("--expected-issuer goes with --jwks; with --issuer, 'iss' must equal the issuer.")
        }
        if let at, NumericDate(secondsSince1970: at) == nil {
            throw ValidationError("--at is a UNIX time from 0 to 2^53.")
        }
        if let maxAge, !(maxAge.isFinite && maxAge >= 0 && maxAge <= NumericDate.maximum) {
            throw ValidationError("--max-age is a number of seconds from 0 to 2^53.")
        }
        _ = try privateNetwork.allowList()
        for name in algorithms where JWSAlgorithm(rawValue: name) == nil {
            throw ValidationError("Unknown algorithm '\(name)'. Known: \(JWSAlgorithm.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
    }

    /// `--tenant`, `--account-types`, `--allowed-tenant`, `--any-tenant` and `--authority-host`:
    /// with `--provider microsoft` only, and there they must name who may sign in.
    private func checkMicrosoftOptions() throws {
        let given = tenant != nil || accountTypes != nil || !allowedTenants.isEmpty || anyTenant || authorityHost != nil
        guard provider == .microsoft else {
            if given {
                throw ValidationError(
                    "--tenant, --account-types, --allowed-tenant, --any-tenant and --authority-host go with --provider microsoft.")
            }
            return
        }
        if keysURL != nil { throw ValidationError("With --provider microsoft the keys come from the authority: use --authority-host.") }
        guard audiences.count == 1 else {
            throw ValidationError("With --provider microsoft give one --audience: the application (client) ID.")
        }
        do throws(FederateError) {
            _ = try MicrosoftAudienceChoice.audience(
                tenant: tenant, accountTypes: accountTypes, allowedTenants: allowedTenants, anyTenant: anyTenant)
        } catch {
            throw ValidationError(
                "With --provider microsoft: \(error.message) (--tenant ID, or --account-types with --allowed-tenant ID or --any-tenant).")
        }
    }

    func run() async throws {
        try checkOptions()
        if firebaseEmulator != nil {
            CLIOutput.warn(
                "Firebase Auth emulator mode: only unsigned emulator tokens are accepted, signed ones are refused. Never use it in production."
            )
        }
        let session: VerificationSession
        do {
            session = try await makeSession()
        } catch {
            CLIOutput.line(CLIOutput.errorObject(error))
            throw ExitCode(1)
        }
        let expectations = IDTokenExpectations(nonce: nonce, maxAge: maxAge.flatMap(Duration.checkedSeconds))

        if let token {
            let verdict = await session.verify(token, expectations: expectations)
            if output == .summary {
                CLIOutput.write(verdict.isValid ? "1 valid, 0 invalid\n" : "0 valid, 1 invalid\n")
            } else {
                CLIOutput.line(verdict.json)
            }
            if !verdict.isValid { throw ExitCode(1) }
            return
        }

        var valid = 0, invalid = 0
        var lines = StandardInputLines()
        while let line = lines.next() {
            let verdict = await session.verify(Self.trimmed(line), expectations: expectations)
            if verdict.isValid { valid += 1 } else { invalid += 1 }
            if output == .json { CLIOutput.line(verdict.json) }
        }
        if output == .summary { CLIOutput.write("\(valid) valid, \(invalid) invalid\n") }
    }

    /// `line` without leading and trailing spaces, tabs and carriage returns. Byte-level:
    /// Foundation's `trimmingCharacters(in:)` cost a third of the time per token.
    static func trimmed(_ line: String) -> String {
        let utf8 = line.utf8
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D }
        guard let first = utf8.firstIndex(where: { !isBlank($0) }), let last = utf8.lastIndex(where: { !isBlank($0) }) else {
            return ""
        }
        if first == utf8.startIndex && utf8.index(after: last) == utf8.endIndex { return line }
        return String(line[first...last])
    }

    /// The time tokens are checked at: `--at`, else the system's.
    private var clock: FederateClock {
        at.map { FederateClock.fixed(at: Date(timeIntervalSince1970: $0)) } ?? .system
    }

    private func makeSession() async throws -> VerificationSession {
        let explicitAlgorithms = Set(algorithms.compactMap(JWSAlgorithm.init(rawValue:)))
        let allowList = try privateNetwork.allowList()
        if let provider {
            var settings = ProviderVerification.Settings(audiences: audiences, projectID: projectID, keysSource: keysURL, clock: clock)
            settings.emulator = firebaseEmulator.flatMap(ProviderVerification.loopbackEmulator)
            if provider == .microsoft {
                settings.microsoftAudience = try MicrosoftAudienceChoice.audience(
                    tenant: tenant, accountTypes: accountTypes, allowedTenants: allowedTenants, anyTenant: anyTenant)
                settings.authorityHost = authorityHost
            }
            settings.allowList = allowList
            return try await ProviderVerification.make(provider, settings)
        }
        if let issuer {
            let metadata = try await DiscoveryClient(httpClient: AsyncHTTPClientTransport.shared)
                .metadata(for: issuer, tenantIssuer: nil, privateNetworkAllowList: allowList)
            var policy = IDTokenPolicy(metadata: metadata, clientID: audiences[0])
            policy.audiences = IdentifierSet(audiences)
            if !explicitAlgorithms.isEmpty { policy.allowedAlgorithms = explicitAlgorithms }
            return VerificationSession(
                policy: policy,
                keys: .remote(
                    try RemoteKeySet(url: metadata.jwksURI, destination: metadata.destination, httpClient: AsyncHTTPClientTransport.shared)),
                checkIssuer: true, clock: clock)
        }
        let source = jwks ?? ""
        let keys: VerificationSession.Keys
        if source.hasPrefix("https://") || source.hasPrefix("http://") {
            keys = .remote(
                try RemoteKeySet(
                    url: source, destination: DestinationPolicy(issuer: source, allowing: allowList),
                    httpClient: AsyncHTTPClientTransport.shared))
        } else {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: source))
            } catch {
                throw FederateError(.invalidKeySet, "cannot read key set file '\(source)'")
            }
            keys = .fixed(try JSONWebKeySet(jwks: Array(data)))
        }
        let policy = IDTokenPolicy(
            issuers: IdentifierSet(expectedIssuers), audiences: IdentifierSet(audiences),
            allowedAlgorithms: explicitAlgorithms.isEmpty ? JWSAlgorithm.asymmetric : explicitAlgorithms
        )
        return VerificationSession(policy: policy, keys: keys, checkIssuer: !expectedIssuers.isEmpty, clock: clock)
    }
}

/// The verifier the command built, and how it verifies one token: one verifier for the whole
/// run, each token parsed once.
struct VerificationSession {
    /// A value kept by reference.
    final class Box<Value: Sendable>: Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    enum Keys {
        case fixed(JSONWebKeySet)
        case remote(RemoteKeySet)
    }

    /// Verifies one token and returns its claims.
    typealias ClaimsVerifier = @Sendable (String, IDTokenExpectations) async throws(FederateError) -> JSONMembers

    private enum Verifier {
        /// A built-in provider's verifier of its own kind (Firebase's, which may take emulator tokens).
        case claims(ClaimsVerifier)
        /// One verifier for every token (with keys at hand, it verifies without suspending).
        /// Boxed: taking a struct payload out of the enum copied the whole verifier per token.
        case fixed(Box<IDTokenVerifier>)
    }

    private let verifier: Verifier

    /// A built-in provider's own verifier.
    init(claims: @escaping ClaimsVerifier) {
        verifier = .claims(claims)
    }

    /// `policy` with `keys`, checking tokens at `clock`'s time; without `checkIssuer`, any
    /// string `iss` passes (`--jwks` without `--expected-issuer`), still required.
    init(policy: IDTokenPolicy, keys: Keys, checkIssuer: Bool, clock: FederateClock) {
        var policy = policy
        policy.acceptsAnyIssuer = !checkIssuer
        switch keys {
        case .fixed(let keySet): verifier = .fixed(Box(IDTokenVerifier(policy: policy, keys: keySet, clock: clock)))
        case .remote(let remote): verifier = .fixed(Box(IDTokenVerifier(policy: policy, keys: remote, clock: clock)))
        }
    }

    /// The outcome for one token; its JSON is built only when printed (not in summary mode).
    struct Verdict {
        let claims: JSONMembers?
        let error: FederateError?

        var isValid: Bool { error == nil }

        var json: JSONValue {
            if let error { return ["valid": false, "error": .string(error.code.rawValue), "message": .string(error.message)] }
            return ["valid": true, "claims": claims?.jsonValue ?? .object([:])]
        }
    }

    func verify(_ token: String, expectations: IDTokenExpectations) async -> Verdict {
        do {
            let claims: JSONMembers
            switch verifier {
            case .claims(let verify):
                claims = try await verify(token, expectations)
            case .fixed(let box):
                claims = try await box.value.verify(token, expecting: expectations).claims
            }
            return Verdict(claims: claims, error: nil)
        } catch {
            return Verdict(claims: nil, error: CLIOutput.asFederateError(error))
        }
    }
}
