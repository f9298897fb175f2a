package import FederateTokens
import Foundation

extension DestinationPolicy {
    /// Whether a request for a URL with this host may connect to any address without a check:
    /// the policy allows any address, or the host is a name on the allow-list (a name entry
    /// allows the name wherever it resolves).
    package func allowsAnyAddress(forHost host: String) -> Bool {
        guard let allowList = publicOnlyExceptions else { return true }
        return IPAddress(host: host) == nil && allowList.permits(host: host)
    }

    /// Whether a connection to `address` is allowed, whatever host it was made for.
    package func permits(address: IPAddress) -> Bool {
        guard let allowList = publicOnlyExceptions else { return true }
        return address.scope == .public || allowList.permits(address: address)
    }

    /// Resolves `url`'s host as the system resolver does (`getaddrinfo`) and throws
    /// `FederateError/Code/privateAddressRefused` unless every address it gives is allowed.
    /// For transports that cannot check the address they connect to: the connection resolves
    /// the name again, so a name whose answers change between the two lookups (DNS rebinding)
    /// can still reach a refused address (Docs/Security.md).
    package func checkResolvedAddresses(of url: String) async throws(FederateError) {
        guard let host = Self.host(of: url), !allowsAnyAddress(forHost: host) else { return }
        let unbracketed = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let addresses = try await Self.resolve(unbracketed)
        for address in addresses where !permits(address: address) {
            throw refusal(origin: HTTPRequest.redactedOrigin(of: url), address: address.bytes)
        }
    }

    /// The addresses `host` resolves to, from `getaddrinfo` on a thread of its own (it blocks).
    private static func resolve(_ host: String) async throws(FederateError) -> [IPAddress] {
        let result: Result<[IPAddress], FederateError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: lookUp(host))
            }
            thread.start()
        }
        return try result.get()
    }

    private static func lookUp(_ host: String) -> Result<[IPAddress], FederateError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            return .failure(FederateError(.httpFailed, "the host '\(host.prefix(100))' could not be resolved"))
        }
        defer { freeaddrinfo(first) }
        var addresses: [IPAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let socketAddress = current.pointee.ai_addr {
                switch Int32(current.pointee.ai_family) {
                case AF_INET:
                    let bytes = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                        withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
                    }
                    if let address = IPAddress(bytes: bytes) { addresses.append(address) }
                case AF_INET6:
                    let bytes = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                        withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                    }
                    if let address = IPAddress(bytes: bytes) { addresses.append(address) }
                default:
                    break
                }
            }
            entry = current.pointee.ai_next
        }
        guard !addresses.isEmpty else {
            return .failure(FederateError(.httpFailed, "the host '\(host.prefix(100))' resolved to no address"))
        }
        return .success(addresses)
    }
}
