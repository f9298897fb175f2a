public import FederateTokens
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension FederateError.Code {
    /// A server could not listen: the port is taken by another process. Pick another port,
    /// or stop the other process.
    public static let addressInUse: Self = "address_in_use"
}

extension FederateError {
    /// `FederateError.Code.addressInUse` when `error` says that `address` is taken by
    /// another process (`EADDRINUSE` from the bind), else `nil`.
    package static func addressInUse(_ error: any Error, address: String) -> FederateError? {
        guard let io = error as? IOError, io.errnoCode == EADDRINUSE else { return nil }
        return FederateError(.addressInUse, "\(address) is in use by another process: pick another port", cause: io)
    }
}
