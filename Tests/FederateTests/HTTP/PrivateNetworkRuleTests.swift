import AsyncHTTPClient
import Federate
@testable import FederateRelyingParty
import FederateTestSupport
import Foundation
import Synchronization
import Testing

/// The private-network rule (Docs/Security.md): a provider whose issuer is not on loopback may
/// not reach a loopback, link-local, private or unspecified address, neither by naming one in
/// any endpoint (every spelling counts) nor through a name that resolves to one (checked on
/// the address the transport connects to). An explicit per-provider allow-list is the only
/// way around it.
@Suite("Private-network rule")
struct PrivateNetworkRuleTests {
    static let issuer = "https://op.example"

    /// A sound document for `issuer`, with `overrides`.
    static func members(issuer: String = issuer, _ overrides: [String: JSONValue] = [:]) -> [String: JSONValue] {
        var members: [String: JSONValue] = [
            "issuer": .string(issuer), "authorization_endpoint": .string(issuer + "/authorize"),
            "token_endpoint": .string(issuer + "/token"),
            "jwks_uri": .string(issuer + "/jwks"), "response_types_supported": ["code"], "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
        ]
        members.merge(overrides) { _, new in new }
        return members
    }

    static func refusal(
        _ members: [String: JSONValue], issuer: String = issuer, allowing: PrivateNetworkAllowList = .none
    ) -> FederateError? {
        do {
            _ = try ProviderMetadata(members: members, expectedIssuer: issuer, privateNetworkAllowList: allowing)
            return nil
        } catch {
            return error
        }
    }

    /// Every spelling of a loopback, link-local, private or unspecified host.
    static let forbiddenHosts = [
        "127.0.0.1", "127.1", "127.0.1", "2130706433", "0x7f000001", "0x7f.0.0.1", "0177.0.0.1", "0177.1", "127.0.0.1.", "127.255.255.254",
        "[::1]", "[0:0:0:0:0:0:0:1]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[::127.0.0.1]", "[64:ff9b::7f00:1]", "[2002:7f00:1::]",
        "localhost", "LOCALHOST", "localhost.", "admin.localhost",
        "169.254.169.254", "[fe80::1]", "[fe80::1%25eth0]", "[febf::1]", "[::ffff:169.254.169.254]",
        "10.0.0.1", "012.0.0.1", "0xa.1", "167772161", "172.16.0.1", "172.31.255.255", "192.168.1.1", "0xc0.0xa8.1.1", "100.64.0.1",
        "[fd00::1]", "[fc00::1]", "[fec0::1]", "[::ffff:10.0.0.1]", "[::ffff:192.168.0.1]",
        "0.0.0.0", "0", "0x0", "[::]", "0.1.2.3",
    ]

    /// Hosts that are public (or names, left to the connection check).
    static let publicHosts = [
        "8.8.8.8", "172.32.0.1", "172.15.255.255", "192.169.0.1", "100.128.0.1", "[2001:db8::1]", "[::ffff:8.8.8.8]", "op.example",
        "keys.op.example",
    ]

    @Test(arguments: forbiddenHosts)
    func aNonLoopbackIssuerCannotNameAPrivateAddressInAnySpelling(host: String) {
        let error = Self.refusal(Self.members(["jwks_uri": .string("https://\(host)/keys")]))
        #expect(error?.code == .privateAddressRefused, "\(host): \(String(describing: error))")
        // Plain http is refused there too, for the same reason first.
        let plain = Self.refusal(Self.members(["token_endpoint": .string("http://\(host):8080/token")]))
        #expect(plain?.code == .privateAddressRefused, "\(host): \(String(describing: plain))")
    }

    @Test(arguments: publicHosts)
    func publicAddressesAndNamesPass(host: String) {
        #expect(Self.refusal(Self.members(["jwks_uri": .string("https://\(host)/keys")])) == nil, "\(host)")
    }

    /// One rule over every endpoint member, present and future, and the RFC 8705 aliases.
    @Test(arguments: [
        "authorization_endpoint", "token_endpoint", "jwks_uri", "userinfo_endpoint", "revocation_endpoint", "introspection_endpoint",
        "device_authorization_endpoint", "pushed_authorization_request_endpoint", "end_session_endpoint", "registration_endpoint",
        "backchannel_authentication_endpoint", "some_future_endpoint", "signed_jwks_uri",
    ])
    func everyEndpointMemberIsChecked(field: String) {
        let error = Self.refusal(Self.members([field: "https://127.0.0.1:9000/admin?action=delete-everything"]))
        #expect(error?.code == .privateAddressRefused, "\(field)")
        #expect(error?.message.contains(field) == true)
        #expect(Self.refusal(Self.members([field: 42]))?.code == .invalidDiscoveryDocument, "\(field) not a string")
        #expect(Self.refusal(Self.members([field: "http://op.example/x"]))?.code == .insecureEndpoint, "\(field) plain http")
    }

    @Test func mutualTLSAliasesAreEndpointsToo() {
        let error = Self.refusal(Self.members(["mtls_endpoint_aliases": ["token_endpoint": "https://10.0.0.7/token"]]))
        #expect(error?.code == .privateAddressRefused)
        #expect(error?.message.contains("mtls_endpoint_aliases.token_endpoint") == true)
        #expect(Self.refusal(Self.members(["mtls_endpoint_aliases": "x"]))?.code == .invalidDiscoveryDocument)
        #expect(Self.refusal(Self.members(["mtls_endpoint_aliases": ["token_endpoint": "https://mtls.op.example/token"]])) == nil)
    }

    /// The issue's document: an HTTPS issuer on a non-loopback host naming loopback key,
    /// token and userinfo endpoints.
    @Test func theReportedDocumentIsRefused() {
        let error = Self.refusal(
            Self.members([
                "jwks_uri": "http://127.0.0.1:8081/admin/keys?action=delete-everything", "token_endpoint": "http://127.0.0.1:8081/token",
                "userinfo_endpoint": "http://127.0.0.1:8081/userinfo",
            ]))
        #expect(error?.code == .privateAddressRefused)
    }

    @Test func aLoopbackIssuerMayUseLoopbackHTTPButNothingPlainElsewhere() {
        for issuer in ["http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080", "http://127.1:8080"] {
            #expect(Self.refusal(Self.members(issuer: issuer, ["jwks_uri": "http://127.0.0.1:9/keys"]), issuer: issuer) == nil, "\(issuer)")
            #expect(Self.refusal(Self.members(issuer: issuer, ["jwks_uri": "https://10.0.0.1/keys"]), issuer: issuer) == nil, "\(issuer)")
            let plain = Self.refusal(Self.members(issuer: issuer, ["jwks_uri": "http://op.example/keys"]), issuer: issuer)
            #expect(plain?.code == .insecureEndpoint, "\(issuer)")
        }
        // A non-loopback issuer gets no plain http, even to a loopback host it allows.
        let allowed = try? PrivateNetworkAllowList(["127.0.0.0/8"])
        let plain = Self.refusal(Self.members(["jwks_uri": "http://127.0.0.1:9/keys"]), allowing: allowed ?? .none)
        #expect(plain?.code == .insecureEndpoint)
    }

    @Test func theAllowListIsTheOnlyWayAround() throws {
        let allowList = try PrivateNetworkAllowList(["10.0.0.0/8", "keycloak.corp.example", "fd00::/8", "169.254.0.1"])
        #expect(allowList.entries == ["keycloak.corp.example", "10.0.0.0/8", "169.254.0.1/32", "fd00::/8"])
        #expect(Self.refusal(Self.members(["jwks_uri": "https://10.20.30.40/keys"]), allowing: allowList) == nil)
        #expect(Self.refusal(Self.members(["jwks_uri": "https://012.1.2.3/keys"]), allowing: allowList) == nil)  // 10.1.2.3
        #expect(Self.refusal(Self.members(["jwks_uri": "https://[::ffff:10.0.0.1]/keys"]), allowing: allowList) == nil)
        #expect(Self.refusal(Self.members(["jwks_uri": "https://[fd12::1]/keys"]), allowing: allowList) == nil)
        #expect(Self.refusal(Self.members(["jwks_uri": "https://169.254.0.1/keys"]), allowing: allowList) == nil)
        #expect(Self.refusal(Self.members(["jwks_uri": "https://169.254.0.2/keys"]), allowing: allowList)?.code == .privateAddressRefused)
        #expect(Self.refusal(Self.members(["jwks_uri": "https://192.168.0.1/keys"]), allowing: allowList)?.code == .privateAddressRefused)
        #expect(Self.refusal(Self.members(["jwks_uri": "https://127.0.0.1/keys"]), allowing: allowList)?.code == .privateAddressRefused)
        // A private issuer needs the list as well.
        let corp = "https://10.1.1.1"
        #expect(Self.refusal(Self.members(issuer: corp), issuer: corp)?.code == .privateAddressRefused)
        #expect(Self.refusal(Self.members(issuer: corp), issuer: corp, allowing: allowList) == nil)
        for bad in ["10.0.0.0/33", "10.0.0.0/", "/8", "*.corp", "a b", "10.0.0.0/8/1", "", "caf\u{E9}.example", "fd00::/129"] {
            #expect(throws: FederateError.self, "\(bad)") { try PrivateNetworkAllowList([bad]) }
        }
    }

    @Test func theDestinationFollowsTheIssuer() throws {
        #expect(DestinationPolicy(issuer: "http://127.0.0.1:1").allowsAnyAddress)
        #expect(DestinationPolicy(issuer: "http://localhost:1").allowsAnyAddress)
        #expect(DestinationPolicy(issuer: "http://[::1]:1").allowsAnyAddress)
        #expect(!DestinationPolicy(issuer: "https://op.example").allowsAnyAddress)
        #expect(!DestinationPolicy(issuer: "https://10.0.0.1").allowsAnyAddress)
        #expect(!DestinationPolicy(issuer: "https://0.0.0.0").allowsAnyAddress)
        let policy = DestinationPolicy(issuer: "https://op.example", allowing: try PrivateNetworkAllowList(["10.0.0.0/8", "idp.corp"]))
        #expect(policy.permits(host: "op.example", address: [93, 184, 216, 34]))
        #expect(!policy.permits(host: "op.example", address: [127, 0, 0, 1]))
        #expect(!policy.permits(host: "op.example", address: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 127, 0, 0, 1]))
        #expect(policy.permits(host: "op.example", address: [10, 9, 8, 7]))
        #expect(policy.permits(host: "IDP.corp.", address: [127, 0, 0, 1]))
        #expect(!policy.permits(host: "op.example", address: [1, 2, 3]))
        let metadata = try ProviderMetadata(members: Self.members(), expectedIssuer: Self.issuer)
        #expect(metadata.destination == .publicAddresses())
    }

    /// The rule is per endpoint: a provider on loopback lends "any address" only to its URLs on
    /// loopback. An OAuth 2.0 server configured by hand with a loopback authorization endpoint
    /// (its "issuer") and a token endpoint on a name: the token request, which carries the
    /// client's secret, may reach public addresses only, so a name that resolves to 127.0.0.1
    /// is refused at connect time.
    @Test func theRuleIsPerEndpoint() async throws {
        #expect(HTTPRequest(url: "http://127.0.0.1:9000/token", destination: .anyAddress).destination == .anyAddress)
        #expect(HTTPRequest(url: "http://localhost:9000/token", destination: .anyAddress).destination == .anyAddress)
        #expect(HTTPRequest(url: "https://tokens.corp.example/token", destination: .anyAddress).destination == .publicAddresses())
        let listed = DestinationPolicy.publicAddresses(except: try PrivateNetworkAllowList(["10.0.0.0/8"]))
        #expect(HTTPRequest(url: "https://tokens.corp.example/token", destination: listed).destination == listed)

        final class Recording: Federate.HTTPClient {
            let destinations = Mutex<[DestinationPolicy]>([])
            func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                destinations.withLock { $0.append(request.destination) }
                return HTTPResponse(status: 500)
            }
        }
        let recording = Recording()
        let client = try ServiceTokenClient(
            tokenEndpoint: "https://tokens.corp.example/token", issuer: "http://127.0.0.1:9000", clientID: "svc",
            authentication: .clientSecretBasic(secret: "the secret"), httpClient: recording)
        _ = try? await client.clientCredentials()
        #expect(recording.destinations.withLock { $0 } == [.publicAddresses()])
    }

    // MARK: At connect time, on the address the transport reached

    /// `localhost` resolves to 127.0.0.1 here, as a provider's name may: a request whose policy
    /// allows public addresses only is refused after the connection is made, before a byte of
    /// the request is written, and the server never sees it.
    @Test func aNameThatResolvesToLoopbackIsRefusedAtConnectTime() async throws {
        let server = try await LoopbackHTTPServer.start { _ in .json("{}") }
        let url = "http://localhost:\(server.port)/admin?action=delete-everything"
        await #expect(throws: FederateError.self) {
            do {
                _ = try await AsyncHTTPClientTransport.shared.send(HTTPRequest(url: url, destination: .publicAddresses()))
            } catch let error as FederateError {
                #expect(error.code == .privateAddressRefused, "\(error)")
                #expect(error.message.contains("127.0.0.1") || error.message.contains("::1"), "\(error.message)")
                throw error
            }
        }
        #expect(server.requestCount == 0)
        // The allow-list lets it through, by network or by name; so does a loopback issuer's policy.
        let byNetwork = DestinationPolicy.publicAddresses(except: try PrivateNetworkAllowList(["127.0.0.0/8", "::1"]))
        #expect(try await AsyncHTTPClientTransport.shared.send(HTTPRequest(url: url, destination: byNetwork)).status == 200)
        let byName = DestinationPolicy.publicAddresses(except: try PrivateNetworkAllowList(["localhost"]))
        #expect(try await AsyncHTTPClientTransport.shared.send(HTTPRequest(url: url, destination: byName)).status == 200)
        #expect(try await AsyncHTTPClientTransport.shared.send(HTTPRequest(url: url, destination: .anyAddress)).status == 200)
        #expect(server.requestCount == 3)
        try await server.stop()
    }

    /// A redirect is a connection too: a request that follows redirects is checked by address
    /// on every connection it makes (a host name on the allow-list does not extend to it), so
    /// no redirect can carry it to a loopback address the list does not name.
    @Test func aRequestThatFollowsRedirectsIsCheckedOnEveryConnection() async throws {
        let target = try await LoopbackHTTPServer.start { _ in .json("{}") }
        let redirecting = try await LoopbackHTTPServer.start { _ in .redirect(to: target.baseURL + "/admin") }
        let byName = DestinationPolicy.publicAddresses(except: try PrivateNetworkAllowList(["localhost"]))
        await #expect(throws: FederateError.self) {
            _ = try await AsyncHTTPClientTransport.shared.send(
                HTTPRequest(url: "http://localhost:\(redirecting.port)/", followRedirects: true, destination: byName))
        }
        #expect(redirecting.requestCount == 0 && target.requestCount == 0)
        // Listed by network, both connections are allowed and the redirect is followed.
        let byNetwork = DestinationPolicy.publicAddresses(except: try PrivateNetworkAllowList(["127.0.0.0/8", "::1"]))
        let followed = try await AsyncHTTPClientTransport.shared.send(
            HTTPRequest(url: "http://localhost:\(redirecting.port)/", followRedirects: true, destination: byNetwork))
        #expect(followed.status == 200)
        #expect(redirecting.requestCount == 1 && target.requestCount == 1)
        try await target.stop()
        try await redirecting.stop()
    }

    /// A transport on an AsyncHTTPClient of the caller's own resolves the host first.
    @Test func aTransportOnYourOwnClientResolvesFirst() async throws {
        let server = try await LoopbackHTTPServer.start { _ in .json("{}") }
        let transport = AsyncHTTPClientTransport(client: .shared)
        let url = "http://localhost:\(server.port)/"
        await #expect(throws: FederateError.self) {
            _ = try await transport.send(HTTPRequest(url: url, destination: .publicAddresses()))
        }
        #expect(server.requestCount == 0)
        #expect(try await transport.send(HTTPRequest(url: url, destination: .anyAddress)).status == 200)
        try await server.stop()
    }

    /// End to end through discovery and the key set: the provider `https://op.example` (served
    /// from loopback by a client that stands in for DNS) publishes a key set on a name that
    /// resolves to loopback. Discovery accepts the name; the key fetch carries the issuer's
    /// policy and is refused where the connection lands, with the real transport.
    @Test func thePolicyTravelsFromDiscoveryToTheKeyFetch() async throws {
        let admin = try await LoopbackHTTPServer.start { _ in .json(#"{"keys":[]}"#) }
        let provider = try await LoopbackHTTPServer.start { _ in
            .json(JSONSerializer.string(.object(Self.members(["jwks_uri": "https://keys.op.example/admin/keys?action=delete-everything"]))))
        }
        let http = NameMappingClient(names: [
            "op.example": (provider.baseURL, .anyAddress),  // the provider itself: public, as far as this test's DNS goes
            "keys.op.example": ("http://localhost:\(admin.port)", nil),  // resolves to 127.0.0.1
        ])
        let metadata = try await DiscoveryClient(httpClient: http).metadata(for: Self.issuer)
        #expect(metadata.destination == .publicAddresses())
        let keys = try RemoteKeySet(url: metadata.jwksURI, destination: metadata.destination, httpClient: http)
        await #expect(throws: FederateError.self) {
            do throws(FederateError) {
                _ = try await keys.keySet()
            } catch {
                #expect(error.code == .privateAddressRefused, "\(error)")
                throw error
            }
        }
        #expect(admin.requestCount == 0)
        #expect(http.destinations.last == .publicAddresses())
        // A document naming the loopback address itself never gets that far.
        let literal = try await LoopbackHTTPServer.start { _ in
            .json(JSONSerializer.string(.object(Self.members(["jwks_uri": .string("http://127.0.0.1:\(admin.port)/admin/keys")]))))
        }
        let direct = NameMappingClient(names: ["op.example": (literal.baseURL, .anyAddress)])
        await #expect(throws: FederateError.self) { _ = try await DiscoveryClient(httpClient: direct).metadata(for: Self.issuer) }
        #expect(admin.requestCount == 0)
        for server in [admin, provider, literal] { try await server.stop() }
    }
}

/// Stands in for DNS: sends a request for `https://NAME/…` to the mapped base URL instead, with
/// the request's own destination policy unless the mapping gives one, over the real transport.
final class NameMappingClient: FederateRelyingParty.HTTPClient {
    private let names: [String: (base: String, destination: DestinationPolicy?)]
    private let seen = Mutex<[DestinationPolicy]>([])

    init(names: [String: (String, DestinationPolicy?)]) {
        self.names = names.mapValues { (base: $0.0, destination: $0.1) }
    }

    /// The destination policy of every request received, in order.
    var destinations: [DestinationPolicy] { seen.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        seen.withLock { $0.append(request.destination) }
        guard let components = URLComponents(string: request.url), let host = components.host, let mapped = names[host] else {
            throw FederateError(.httpFailed, "no mapping for \(request.url)")
        }
        var forwarded = request
        forwarded.url = mapped.base + components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        if let destination = mapped.destination { forwarded.destination = destination }
        return try await AsyncHTTPClientTransport.shared.send(forwarded)
    }
}
