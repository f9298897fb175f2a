import ArgumentParser
import Federate
import FederateOIDC
import Foundation

/// `federate login`: the authorization-code flow for a person at this machine, with a
/// loopback redirect (RFC 8252 §7.3).
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in at an OpenID provider through the browser and print the verified result.",
        discussion: """
            Discovers the issuer, listens on http://127.0.0.1:PORT/callback, prints the authorization URL on a line \
            of its own on standard error and opens the browser (unless --no-browser). On success prints one JSON \
            object {"claims", "userinfo", "granted_scopes", "refused_scopes", "expires_at"} (plus "tokens" with \
            --show-tokens) and exits 0; on any failure prints {"error": CODE, "message": ...} and exits 1. \
            The request is pushed first (PAR, RFC 9126) when the provider requires it, or with --par.

            With --device, uses the device authorization grant (RFC 8628) instead, for a machine without a \
            browser: prints the verification URI and the code to enter there on standard error, polls until the \
            sign-in is approved on another device, then prints the same JSON object. \
            --device-authorization-endpoint names the endpoint for a provider whose discovery does not \
            advertise one.
            """
    )

    @OptionGroup var client: ClientOptions

    @Option(help: "The scopes to request, space-separated ('openid' is always included).")
    var scope: String = "openid email profile"

    @Option(help: "The loopback port to listen on (default: a free port).")
    var port: Int = 0

    @Flag(name: .customLong("no-browser"), help: "Do not open the browser; only print the URL.")
    var noBrowser = false

    @Option(name: .customLong("param"), help: "A custom authorization parameter KEY=VALUE (repeatable).")
    var parameters: [String] = []

    @Flag(name: .customLong("show-tokens"), help: "Also print the raw access, refresh and ID tokens.")
    var showTokens = false

    @Option(help: "Seconds to wait for the browser to come back.")
    var timeout: Int = 300

    @Flag(help: "Sign in on another device (RFC 8628 device authorization grant): no browser or listener here.")
    var device = false

    @Option(
        name: .customLong("device-authorization-endpoint"),
        help: "With --device: the device authorization endpoint, when discovery does not advertise one (https, or http on loopback)."
    )
    var deviceAuthorizationEndpoint: String?

    @Flag(help: "Push the authorization request to the provider first (PAR, RFC 9126), even when it does not require it.")
    var par = false

    @Option(
        name: .customLong("resource"),
        help:
            "An API the access token is for (RFC 8707 resource indicator, an absolute URI; repeatable): sent on the authorization and token requests."
    )
    var resources: [String] = []

    /// The checks ArgumentParser's `validate()` would make, run from `run()` instead: then an
    /// unknown option (a misspelt `--audiance`) is reported as unknown before any missing one.
    func checkOptions() throws {
        try client.checkOptions()
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535.") }
        guard (1...86_400).contains(timeout) else { throw ValidationError("--timeout must be 1...86400 seconds.") }
        _ = try customParameters()
        if device, !parameters.isEmpty { throw ValidationError("--param does not apply to --device.") }
        if device, par { throw ValidationError("--par does not apply to --device.") }
        if device, !resources.isEmpty { throw ValidationError("--resource does not apply to --device.") }
        if !device, deviceAuthorizationEndpoint != nil { throw ValidationError("--device-authorization-endpoint goes with --device.") }
    }

    /// `--param` values as a dictionary; a repeated key or a missing `=` is a usage error.
    func customParameters() throws -> [String: String] {
        var result: [String: String] = [:]
        for parameter in parameters {
            guard let equals = parameter.firstIndex(of: "="), equals != parameter.startIndex else {
                throw ValidationError("--param takes KEY=VALUE, got '\(parameter)'.")
            }
            let key = String(parameter[..<equals])
            guard result[key] == nil else { throw ValidationError("--param \(key) is given twice.") }
            result[key] = String(parameter[parameter.index(after: equals)...])
        }
        return result
    }

    func run() async throws {
        try checkOptions()
        do {
            if device {
                try await deviceLogin()
            } else {
                try await login()
            }
        } catch {
            throw CLIOutput.fail(error)
        }
    }

    private func login() async throws {
        var provider = try client.provider()
        provider.scopes = scope.split(separator: " ").map(String.init)
        provider.customParameters = try customParameters()
        let openID = try await client.makeClient().withResources(resources)
        let listener = try await LoopbackRedirectListener.start(host: "127.0.0.1", port: port, answerAfterFinish: true)
        defer { listener.close() }

        let built = try await provider.authorizationRequest(
            with: openID, redirectURI: listener.redirectURI, delivery: par ? .pushed : .automatic)
        listener.expect(state: built.pending.state)
        for name in built.droppedParameters {
            CLIOutput.warn("warning: --param \(name) dropped: Federate sets '\(name)' itself")
        }
        CLIOutput.warn("Open this URL in a browser to sign in:")
        CLIOutput.warn(built.url)
        if !noBrowser { Self.openBrowser(built.url) }

        let response = try await callback(from: listener)
        // The browser's page waits for the code exchange: it says "finished" only if it worked.
        let tokens: TokenSet
        do {
            tokens = try await openID.finish(response, pending: built.pending).tokens
        } catch {
            await listener.finish(succeeded: false)
            throw error
        }
        await listener.finish(succeeded: true)
        try await printResult(tokens, client: openID)
    }

    /// The callback of this flow. When it is this flow's own but malformed (`invalid_callback`),
    /// the browser's page is told the sign-in failed before the error ends the command.
    private func callback(from listener: LoopbackRedirectListener) async throws(FederateError) -> AuthorizationResponse {
        do {
            return try await listener.waitForCallback(timeout: .seconds(timeout))
        } catch {
            if error.code == .invalidCallback { await listener.finish(succeeded: false) }
            throw error
        }
    }

    /// Prints the verified result: claims, userinfo when the provider has the endpoint, scopes, expiry.
    func printResult(_ tokens: TokenSet, client openID: OpenIDClient) async throws {
        var output = CLIOutput.tokenSetObject(tokens, includeTokens: showTokens)
        if openID.metadata.userinfoEndpoint != nil, let subject = tokens.idTokenClaims?.subject {
            output["userinfo"] = try await openID.userInfo(accessToken: tokens.accessToken, expectedSubject: subject).jsonValue
        }
        CLIOutput.line(.object(output))
    }

    /// Opens `url` with the desktop's opener; a failure only leaves the printed URL to use.
    static func openBrowser(_ url: String) {
        let process = Process()
        #if os(macOS)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/open")
            process.arguments = [url]
        #else
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["xdg-open", url]
        #endif
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            CLIOutput.warn("could not open a browser; open the URL above by hand")
        }
    }
}
