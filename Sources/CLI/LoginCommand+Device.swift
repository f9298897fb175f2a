import Federate
import Foundation

extension LoginCommand {
    /// `federate login --device`: the device authorization grant (RFC 8628). The person opens
    /// the verification URI elsewhere and enters the code; this polls until they answer, for
    /// at most the code's lifetime and `--timeout`. `--device-authorization-endpoint` serves
    /// when discovery advertises no endpoint; it is checked (HTTPS, or HTTP on loopback)
    /// before anything is sent.
    func deviceLogin() async throws {
        if let endpoint = deviceAuthorizationEndpoint {
            try EndpointSecurity.validate(
                endpoint, field: "--device-authorization-endpoint",
                destination: DestinationPolicy(issuer: client.issuer, allowing: try client.privateNetwork.allowList()))
        }
        let openID = try await client.makeClient(deviceAuthorizationEndpoint: deviceAuthorizationEndpoint)
        if let option = deviceAuthorizationEndpoint, let discovered = openID.metadata.deviceAuthorizationEndpoint, discovered != option {
            CLIOutput.warn("warning: --device-authorization-endpoint ignored: discovery advertises \(discovered)")
        }
        let authorization = try await openID.startDeviceAuthorization(scopes: scope.split(separator: " ").map(String.init))
        CLIOutput.warn("To sign in, open this URL on any device:")
        CLIOutput.warn(authorization.verificationURI)
        CLIOutput.warn("and enter the code: \(authorization.userCode)")
        if let complete = authorization.verificationURIComplete {
            CLIOutput.warn("Or open this URL, which carries the code:")
            CLIOutput.warn(complete)
        }
        let seconds = timeout
        let tokens = try await withThrowingTaskGroup(of: TokenSet.self) { group in
            group.addTask { try await openID.waitForDeviceAuthorization(authorization) }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                throw FederateError(.callbackTimeout, "no approval within \(seconds) seconds")
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw FederateError(.cancelled, "the device authorization ended") }
            return first
        }
        try await printResult(tokens, client: openID)
    }
}
