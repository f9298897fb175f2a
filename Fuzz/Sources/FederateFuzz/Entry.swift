import CFuzzDriver
import Foundation

/// The libFuzzer entry point: runs the target named by `FEDERATE_FUZZ_TARGET` on one input.
///
/// A target may throw a `FederateError` for any input (that is the point: every bad input
/// must end in a typed error); it must never crash, hang, leak or accept what it should not.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    FuzzTarget.selected.run(bytes)
    return 0
}

/// Builds every fixture the selected target uses before the first input, so that lazily
/// initialised globals are not reported as leaks of the input that happened to touch them.
@_cdecl("federate_fuzz_initialize")
public func fuzzInitialize() {
    let target = FuzzTarget.selected
    for seed in FuzzTarget.warmUpInputs { target.run(Array(seed.utf8)) }
    _ = (Fixtures.keySet, Fixtures.verifier, Fixtures.signedTokens, Fixtures.metadata, Fixtures.sealer, Fixtures.sealedValues)
    _ = (EdgeTargets.policies, EdgeTargets.allowList)
    _ = (WebAuthnTarget.configuration, WebAuthnTarget.challenge, WebAuthnTarget.clientDataJSON, WebAuthnTarget.rpIDHash)
}

/// The fuzz targets, one per parser.
enum FuzzTarget: String, CaseIterable {
    case compactJWS = "jws"
    case keySet = "jwks"
    case x509Map = "x509"
    case discovery
    case tokenResponse = "token-response"
    case callback
    case sealedPending = "sealed-pending"
    case appleUser = "apple-user"
    case appleNotification = "apple-notification"
    case claims
    case endpointURL = "endpoint-url"
    case terminalText = "terminal-text"
    case cbor

    /// The target named in the environment; an unknown name stops the run with the list.
    static let selected: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["FEDERATE_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("set FEDERATE_FUZZ_TARGET to one of: \(names)\n".utf8))
            exit(2)
        }
        return target
    }()

    /// Inputs run once before fuzzing starts (see ``fuzzInitialize()``).
    static let warmUpInputs = ["", "{}", "a.b.c", "code=a&state=b"]

    func run(_ bytes: [UInt8]) {
        switch self {
        case .compactJWS: Targets.compactJWS(bytes)
        case .keySet: Targets.keySet(bytes)
        case .x509Map: Targets.x509Map(bytes)
        case .discovery: Targets.discovery(bytes)
        case .tokenResponse: Targets.tokenResponse(bytes)
        case .callback: Targets.callback(bytes)
        case .sealedPending: Targets.sealedPending(bytes)
        case .appleUser: Targets.appleUser(bytes)
        case .appleNotification: Targets.appleNotification(bytes)
        case .claims: ClaimsTarget.run(bytes)
        case .endpointURL: EdgeTargets.endpointURL(bytes)
        case .terminalText: EdgeTargets.terminalText(bytes)
        case .cbor: WebAuthnTarget.run(bytes)
        }
    }
}
