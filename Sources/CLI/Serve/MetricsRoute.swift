import Crypto
import Federate
import FederateHummingbird
import Hummingbird
import Prometheus

/// `GET /metrics`: the registry in Prometheus's text format, behind a bearer token compared in
/// constant time (the SHA-256 digests of the two, so not even the length leaks). The token
/// is never logged.
struct MetricsRoute {
    let registry: PrometheusCollectorRegistry
    let settings: MetricsSettings

    /// Adds the route to `router`; nothing when the metrics are off, so `/metrics` is a 404.
    func register(on router: Router<FederateContext>) {
        guard settings.enabled else { return }
        let expected = settings.bearerToken.map { Array(SHA256.hash(data: Array($0.utf8))) }
        router.get("metrics") { request, _ in
            if let expected {
                guard let presented = Self.bearerToken(request.headers[.authorization]),
                    ConstantTime.equals(Array(SHA256.hash(data: Array(presented.utf8))), expected)
                else {
                    return Response(status: .unauthorized, headers: [.wwwAuthenticate: "Bearer", .cacheControl: "no-store"])
                }
            }
            var buffer: [UInt8] = []
            registry.emit(into: &buffer)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: buffer)))
        }
    }

    /// The token of `Authorization: Bearer TOKEN` (scheme case-insensitive), or `nil`.
    static func bearerToken(_ header: String?) -> String? {
        guard let header, header.count > 7, header.prefix(7).lowercased() == "bearer " else { return nil }
        return String(header.dropFirst(7))
    }
}
