import Crypto
import Federate
import FederateDevProvider
import FederateOIDC
import FederateVapor
import Foundation
import Synchronization
import Vapor
import VaporTesting

/// The repository's root, from this file's path (Integrations/FederateVapor/Tests/FederateVaporTests/…).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

/// An app origin tests address the in-memory application at (nothing listens there).
let testOrigin = "http://127.0.0.1:8080"

/// A Vapor application with Federate's routes for two in-process dev providers (`dev`, `corp`),
/// an in-memory account store (guests when `allowsGuests`), and whatever `extra` registers;
/// shut down after `body`.
func withFederateApp<T>(
    accountConfiguration: AccountServiceConfiguration = AccountServiceConfiguration(issuer: testOrigin),
    allowsGuests: Bool = false,
    extra: (Application, FederateServerConfiguration) async throws -> Void = { _, _ in },
    _ body: (Application, FederateServerConfiguration, [DevProvider]) async throws -> T
) async throws -> T {
    let dev = try await DevProvider.start()
    let corp = try await DevProvider.start()
    let cache = ProviderCache(httpClient: AsyncHTTPClientTransport.shared)
    var configuration = try FederateServerConfiguration(
        origin: testOrigin,
        providers: [
            "dev": try OIDCProvider(id: "oidc.dev", issuer: dev.issuer, clientID: "dev-client", clientSecret: "dev-secret", cache: cache),
            "corp": try OIDCProvider(
                id: "oidc.corp", issuer: corp.issuer, clientID: "dev-client", clientSecret: "dev-secret", cache: cache),
        ],
        accounts: AccountService(store: InMemoryAccountStore(), configuration: accountConfiguration),
        sealer: PendingAuthorizationSealer(keys: try SealingKeyRing([.init(id: "t", key: SymmetricKey(size: .bits256))])))
    configuration.allowsGuests = allowsGuests
    let result: T
    do {
        result = try await withApp { app in
            try app.register(collection: FederateRoutes(configuration: configuration))
            try await extra(app, configuration)
            return try await body(app, configuration, [dev, corp])
        }
    } catch {
        try? await dev.stop()
        try? await corp.stop()
        throw error
    }
    try await dev.stop()
    try await corp.stop()
    return result
}

/// A browser against an in-memory Vapor application: a cookie jar, and redirects followed by
/// hand — to the application in memory, to the dev providers over loopback HTTP.
final class TestBrowser: Sendable {
    let app: Application
    private let jar = Mutex<[String: String]>([:])

    init(app: Application) {
        self.app = app
    }

    struct Answer: Sendable {
        let status: Int
        let headers: [(name: String, value: String)]
        let body: [UInt8]

        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
        func headers(_ name: String) -> [String] { headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value) }
        var text: String { String(decoding: body, as: UTF8.self) }
        var json: [String: JSONValue] { DecodedJSON.object(body) ?? [:] }
    }

    func cookie(_ name: String) -> String? { jar.withLock { $0[name] } }

    /// One request; the application's when `url` is on ``testOrigin`` or a path.
    func send(_ method: Vapor.HTTPMethod, _ url: String, headers: [(String, String)] = [], body: String? = nil) async throws -> Answer {
        let answer: Answer
        if url.hasPrefix("/") || url.hasPrefix(testOrigin) {
            let path = url.hasPrefix("/") ? url : String(url.dropFirst(testOrigin.count))
            var fields = HTTPHeaders(headers)
            let cookies = jar.withLock { $0.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
            if !cookies.isEmpty { fields.add(name: "Cookie", value: cookies) }
            if body != nil, fields["Content-Type"].isEmpty { fields.add(name: "Content-Type", value: "application/x-www-form-urlencoded") }
            let response = try await app.testing().sendRequest(method, path, headers: fields, body: body.map { ByteBuffer(string: $0) })
            answer = Answer(
                status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
                body: Array(response.body.readableBytesView))
        } else {
            let response = try await AsyncHTTPClientTransport.shared.send(
                Federate.HTTPRequest(
                    method: method.rawValue, url: url, headers: headers.map { (name: $0.0, value: $0.1) }, body: body.map { Array($0.utf8) }
                ))
            answer = Answer(status: response.status, headers: response.headers, body: response.body)
        }
        for value in answer.headers("Set-Cookie") {
            let pair = value.split(separator: ";")[0]
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<equals]), cookie = String(pair[pair.index(after: equals)...])
            jar.withLock { if value.contains("Max-Age=0") { $0.removeValue(forKey: name) } else { $0[name] = cookie } }
        }
        return answer
    }

    /// Follows redirects from `url`, a navigation from one of the application's pages
    /// (`Sec-Fetch-Site: same-origin` while every hop stays on it, as browsers send it); the
    /// last answer. The dev providers approve alice at once, unless the flow asks for a new
    /// sign-in (`prompt=login`: a link or a reauthentication): then `pick` signs in as that
    /// user, as the dev provider's page would.
    func navigate(_ url: String, pick: String? = nil) async throws -> Answer {
        var sameOrigin = url.hasPrefix("/") || url.hasPrefix(testOrigin + "/")
        func fetchSite(_ url: String) -> [(String, String)] {
            sameOrigin = sameOrigin && (url.hasPrefix("/") || url.hasPrefix(testOrigin + "/"))
            return [("Sec-Fetch-Site", sameOrigin ? "same-origin" : "cross-site")]
        }
        var answer = try await send(.GET, url, headers: fetchSite(url))
        for _ in 0..<10 {
            guard [302, 303].contains(answer.status), var location = answer.header("Location") else { break }
            if let pick, location.contains("/authorize?"), location.contains("prompt=login") {
                location += "&user=" + pick
            }
            answer = try await send(.GET, location, headers: fetchSite(location))
        }
        return answer
    }
}

/// A free TCP port on 127.0.0.1.
func freeLoopbackPort() throws -> Int {
    let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
    }
    guard bound else { throw FederateError(.invalidConfiguration, "no free loopback port") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Runs `arguments` in `directory` with a deadline; its standard output, error and status.
/// The output goes to files, polled without blocking a thread: the app under test answers on
/// this process's cooperative threads while the child runs (a blocking pipe read would starve it).
func runProcess(
    _ arguments: [String], in directory: URL, timeout: TimeInterval, environment: [String: String] = [:]
) async throws
    -> (status: Int32, stdout: String, stderr: String, timedOut: Bool)
{
    let files = FileManager.default.temporaryDirectory.appendingPathComponent("federate-vapor-run-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: files) }
    let outURL = files.appendingPathComponent("stdout"), errURL = files.appendingPathComponent("stderr")
    FileManager.default.createFile(atPath: outURL.path, contents: nil)
    FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
    defer {
        try? out.close()
        try? err.close()
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.currentDirectoryURL = directory
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
    let timedOut = process.isRunning
    if timedOut {
        process.terminate()
        while process.isRunning { try await Task.sleep(for: .milliseconds(50)) }
    }
    let stdout = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
    let stderr = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
    return (process.terminationStatus, stdout, stderr, timedOut)
}

/// A JSON value read with Foundation's decoder (Federate's JSON parser is internal to it).
struct DecodedJSON: Decodable {
    let value: JSONValue

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            value = .null
        } else if let bool = try? container.decode(Bool.self) {
            value = .bool(bool)
        } else if let integer = try? container.decode(Int64.self) {
            value = .integer(integer)
        } else if let double = try? container.decode(Double.self) {
            value = .double(double)
        } else if let string = try? container.decode(String.self) {
            value = .string(string)
        } else if let array = try? container.decode([DecodedJSON].self) {
            value = .array(array.map(\.value))
        } else {
            value = .object(try container.decode([String: DecodedJSON].self).mapValues(\.value))
        }
    }

    /// The members of the JSON object `bytes`, or nil when `bytes` is not one.
    static func object(_ bytes: [UInt8]) -> [String: JSONValue]? {
        (try? JSONDecoder().decode([String: DecodedJSON].self, from: Data(bytes)))?.mapValues(\.value)
    }
}

/// `pairs` as an `application/x-www-form-urlencoded` query, percent-encoded with Foundation's
/// rules (an independent encoder: Federate's own is not public).
func formEncoded(_ pairs: [(String, String)]) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    func escaped(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed) ?? "" }
    return pairs.map { "\(escaped($0.0))=\(escaped($0.1))" }.joined(separator: "&")
}
