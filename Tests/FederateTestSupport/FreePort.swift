import Foundation

/// A free TCP port on 127.0.0.1, for a server a test starts in another process (or one that
/// must know its own URL before it listens).
public enum FreePort {
    /// Thrown when no port could be found.
    public struct Unavailable: Error {}

    /// A port on 127.0.0.1 that is free now and that the system will not hand out meanwhile.
    ///
    /// A port the system chooses (port 0) comes from its ephemeral range, from which it also
    /// gives every outgoing connection and every other port-0 server its port: between the
    /// release and the server's start, a test running in parallel can take it ("cannot listen
    /// on 127.0.0.1:…"). So the port is drawn at random below that range, where only a server
    /// asking for that exact port can take it, and checked free by binding it.
    public static func loopback() throws -> Int {
        let ephemeralStart = ephemeralRangeStart()
        guard ephemeralStart > lowest + 1000 else { return try RefusingPort().port }
        for _ in 0..<64 {
            let candidate = Int.random(in: lowest..<ephemeralStart)
            if let held = try? RefusingPort(port: candidate) { return held.port }  // released here
        }
        throw Unavailable()
    }

    /// The lowest port drawn: above the well-known and most registered services' ports.
    private static let lowest = 20000

    /// The first port of the system's ephemeral range (Linux's
    /// `/proc/sys/net/ipv4/ip_local_port_range`; 32768, its default, elsewhere).
    private static func ephemeralRangeStart() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8),
            let first = text.split(whereSeparator: \.isWhitespace).first, let start = Int(first)
        else { return 32768 }
        return start
    }
}

/// A port on 127.0.0.1 that refuses connections for as long as this value lives: its socket is
/// bound and never listens, so no other server (a test running in parallel) can take the port
/// meanwhile, as it could take a port found free and released.
public final class RefusingPort: Sendable {
    /// The port.
    public let port: Int
    private let descriptor: Int32

    /// Binds `port`, or a port the system chooses when it is 0.
    public init(port: Int = 0) throws {
        guard let requested = UInt16(exactly: port) else { throw FreePort.Unavailable() }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FreePort.Unavailable() }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = requested.bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound == 0, named == 0 else {
            close(fd)
            throw FreePort.Unavailable()
        }
        descriptor = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(descriptor)
    }
}
