import Foundation

/// A free TCP port on 127.0.0.1, for a server a test starts in another process (or one that
/// must know its own URL before it listens).
public enum FreePort {
    /// Thrown when no port could be found.
    public struct Unavailable: Error {}

    /// Binds port 0 on 127.0.0.1, reads the port the system chose, and releases it.
    public static func loopback() throws -> Int {
        try RefusingPort().port  // released as soon as the port is read
    }
}

/// A port on 127.0.0.1 that refuses connections for as long as this value lives: its socket is
/// bound and never listens, so no other server (a test running in parallel) can take the port
/// meanwhile, as it could take a port found free and released.
public final class RefusingPort: Sendable {
    /// The port.
    public let port: Int
    private let descriptor: Int32

    /// Binds a port the system chooses.
    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FreePort.Unavailable() }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        let named = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        guard bound == 0, named == 0 else {
            close(fd)
            throw FreePort.Unavailable()
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(descriptor)
    }
}
