// swift-tools-version:6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// The layers (Docs/Architecture.md), dependencies pointing one way:
//   1 FederateTokens         JSON, base64url, JOSE, keys, the claim-rule pipeline    swift-crypto, swift-certificates
//   2 FederateRelyingParty   discovery, caches, flows, the HTTPClient protocol        + swift-log
//   3 transports             FederateAsyncHTTPClient (NIO), FederateURLSession (Foundation), FederateLoopback (NIO)
//   4 FederateAccounts       the account service and its store protocols
//   5 stores, server, dev provider, CLI; Providers/ plug in through ProviderProfile
// `Federate` re-exports layers 1-4 with the AsyncHTTPClient transport, for servers.
let crypto: [Target.Dependency] = [
    .product(name: "Crypto", package: "swift-crypto"),
    .product(name: "_CryptoExtras", package: "swift-crypto"),
]
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
// Metrics and tracing APIs only (no backend, no NIO): Federate emits, the application
// chooses where to (Docs/Operations.md).
let observability: [Target.Dependency] = [
    .product(name: "CoreMetrics", package: "swift-metrics"),
    .product(name: "Tracing", package: "swift-distributed-tracing"),
]
let observabilityTesting: [Target.Dependency] = [
    .product(name: "MetricsTestKit", package: "swift-metrics"),
    .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
]

let package = Package(
    name: "Federate",
    platforms: [.macOS(.v15)],
    // Eight library products in all with FederateVapor (Docs/Architecture.md, "Which product for
    // which job"); each names every module a user imports from it. The targets and their layers
    // stay as they are (scripts/check-layers.py).
    products: [
        // A server: tokens, the relying party, accounts, the providers, the framework-neutral routes.
        .library(
            name: "Federate",
            targets: [
                "Federate", "FederateTokens", "FederateRelyingParty", "FederateAsyncHTTPClient", "FederateLoopback", "FederateAccounts",
                "FederateOIDC", "FederateApple", "FederateGoogle", "FederateMicrosoft", "FederateOAuth2", "FederateGitHub",
                "FederateServer",
            ]),
        // Verify tokens with keys you hold, nothing else.
        .library(name: "FederateTokens", targets: ["FederateTokens"]),
        // Apps and command-line tools without NIO: the relying party over URLSession.
        .library(name: "FederateURLSession", targets: ["FederateURLSession", "FederateRelyingParty", "FederateTokens"]),
        .library(name: "FederateSQLite", targets: ["FederateSQLite"]),
        .library(name: "FederatePostgres", targets: ["FederatePostgres"]),
        // Hummingbird 2: the routes and middleware, and the dev provider (built on it).
        .library(name: "FederateHummingbird", targets: ["FederateHummingbird", "FederateServer", "FederateDevProvider"]),
        .library(name: "FederateMCP", targets: ["FederateMCP"]),
        .executable(name: "federate", targets: ["FederateCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // `swift package generate-documentation` (scripts/build-docs.sh); no target depends on it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // FederateMCP: MCP servers behind Federate (Docs/MCP.md). 0.x, so pinned to the version tested.
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk.git", exact: "0.12.1"),
    ],
    targets: [
        // 1. Tokens
        .target(
            name: "FederateTokens",
            dependencies: crypto + observability + [.product(name: "X509", package: "swift-certificates")],
            path: "Sources/Tokens",
            swiftSettings: strict
        ),
        // 2. Relying party
        .target(
            name: "FederateRelyingParty",
            dependencies: ["FederateTokens", logging] + crypto + observability,
            path: "Sources/RelyingParty",
            swiftSettings: strict
        ),
        // 3. Transports
        .target(
            name: "FederateAsyncHTTPClient",
            dependencies: [
                "FederateRelyingParty",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Sources/Transports/AsyncHTTPClient",
            swiftSettings: strict
        ),
        .target(
            name: "FederateURLSession",
            dependencies: ["FederateRelyingParty"],
            path: "Sources/Transports/URLSession",
            swiftSettings: strict
        ),
        .target(
            name: "FederateLoopback",
            dependencies: [
                "FederateRelyingParty",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Sources/Transports/Loopback",
            swiftSettings: strict
        ),
        // 4. Accounts
        .target(
            name: "FederateAccounts",
            dependencies: ["FederateTokens", "FederateRelyingParty", logging] + crypto + observability,
            path: "Sources/Accounts",
            swiftSettings: strict
        ),
        .target(
            name: "Federate",
            dependencies: ["FederateTokens", "FederateRelyingParty", "FederateAccounts", "FederateAsyncHTTPClient", "FederateLoopback"],
            path: "Sources/Federate",
            swiftSettings: strict
        ),
        // 5. Providers, stores, server, dev provider, CLI
        .target(
            name: "FederateOIDC",
            dependencies: ["FederateTokens", "FederateRelyingParty", "FederateAccounts", logging],
            path: "Providers/OIDC",
            swiftSettings: strict
        ),
        .target(
            name: "FederateApple",
            dependencies: ["FederateTokens", "FederateRelyingParty", "FederateAccounts", "FederateOIDC"] + crypto,
            path: "Providers/Apple",
            swiftSettings: strict
        ),
        .target(
            name: "FederateGoogle",
            dependencies: ["FederateTokens", "FederateRelyingParty", "FederateAccounts", "FederateOIDC"],
            path: "Providers/Google",
            swiftSettings: strict
        ),
        .target(
            name: "FederateMicrosoft",
            dependencies: ["FederateTokens", "FederateRelyingParty", "FederateAccounts", "FederateOIDC"],
            path: "Providers/Microsoft",
            swiftSettings: strict
        ),
        .target(
            name: "FederateOAuth2",
            dependencies: ["FederateTokens", "FederateRelyingParty", "FederateAccounts"],
            path: "Providers/OAuth2",
            swiftSettings: strict
        ),
        .target(
            name: "FederateGitHub",
            dependencies: ["FederateTokens", "FederateRelyingParty", "FederateAccounts", "FederateOAuth2"],
            path: "Providers/GitHub",
            swiftSettings: strict
        ),
        // The account operations of the SQL stores, written once; each store adds its dialect.
        // An implementation detail of the stores (no product).
        .target(
            name: "FederateSQLStore",
            dependencies: ["FederateTokens", "FederateAccounts"],
            path: "Sources/Stores/Shared",
            swiftSettings: strict
        ),
        // The system's SQLite 3 C library (Debian: libsqlite3-dev).
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/Stores/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .target(
            name: "FederateSQLite",
            dependencies: [
                "FederateTokens", "FederateAccounts", "FederateSQLStore", "CSQLite", logging,
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Stores/SQLite",
            swiftSettings: strict
        ),
        .target(
            name: "FederatePostgres",
            dependencies: [
                "FederateTokens", "FederateAccounts", "FederateSQLStore", logging,
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Sources/Stores/Postgres",
            swiftSettings: strict
        ),
        // What every server integration does, framework-neutral (Docs/Architecture.md): the
        // routes' logic, cookies, CSRF, challenges, errors, over a small request/response type.
        .target(
            name: "FederateServer",
            dependencies: [
                "Federate", logging, .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Server/Core",
            swiftSettings: strict
        ),
        .target(
            name: "FederateHummingbird",
            dependencies: [
                "Federate", "FederateServer", logging, .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"), .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Sources/Server/Hummingbird",
            swiftSettings: strict
        ),
        // An MCP server (modelcontextprotocol/swift-sdk) behind Federate, on FederateServer: both
        // integrations mount its routes (their `ServerRoutes`).
        .target(
            name: "FederateMCP",
            dependencies: [
                "Federate", "FederateServer", .product(name: "MCP", package: "swift-sdk"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Sources/Server/MCP",
            swiftSettings: strict
        ),
        .target(
            name: "FederateDevProvider",
            dependencies: [
                "Federate", logging,
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ] + crypto,
            path: "Sources/DevProvider",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "FederateCLI",
            dependencies: [
                "Federate", "FederateOIDC", "FederateApple", "FederateGoogle", "FederateMicrosoft", "FederateOAuth2", "FederateGitHub",
                "FederateDevProvider", "FederateHummingbird", "FederateMCP", "FederateSQLite", "FederatePostgres", logging,
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ] + observability,
            path: "Sources/CLI",
            swiftSettings: strict
        ),
        // Docs/Architecture.md's fourth provider, built and tested with the rest.
        .target(
            name: "FederateExampleMicrosoft",
            dependencies: ["FederateTokens", "FederateRelyingParty", "FederateAccounts", "FederateOIDC"],
            path: "Examples/MicrosoftProvider",
            swiftSettings: strict
        ),
        // Tests
        // Ends a test process that runs past FEDERATE_TEST_WATCHDOG_SECONDS, with every thread's stack (Tests/TestWatchdog/watchdog.c).
        .target(name: "TestWatchdog", path: "Tests/TestWatchdog"),
        .target(
            name: "FederateTestSupport",
            dependencies: [
                "Federate", "TestWatchdog", logging,
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ] + crypto,
            path: "Tests/FederateTestSupport",
            swiftSettings: strict
        ),
        .testTarget(
            name: "FederateTests",
            dependencies: [
                "Federate", "FederateTokens", "FederateRelyingParty", "FederateAccounts", "FederateAsyncHTTPClient",
                "FederateLoopback", "FederateGoogle", "FederateOAuth2", "FederateGitHub", "FederateTestSupport", "FederateCLI",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ] + crypto + observability + observabilityTesting,
            swiftSettings: strict
        ),
        .testTarget(
            name: "FederateURLSessionTests",
            dependencies: ["FederateURLSession", "FederateRelyingParty", "FederateTokens", "FederateTestSupport"],
            exclude: ["loopback_server.py"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "FederateOIDCTests",
            dependencies: ["FederateOIDC", "Federate", "FederateTestSupport", "FederateDevProvider"] + crypto,
            swiftSettings: strict
        ),
        .testTarget(
            name: "FederateAppleTests",
            dependencies: ["FederateApple", "Federate", "FederateTestSupport", "FederateDevProvider"] + crypto,
            swiftSettings: strict
        ),
        .testTarget(
            name: "FederateGoogleTests",
            dependencies: ["FederateGoogle", "Federate", "FederateTestSupport", "FederateDevProvider"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "FederateMicrosoftTests",
            dependencies: ["FederateMicrosoft", "Federate", "FederateTestSupport", "FederateDevProvider"] + crypto,
            swiftSettings: strict
        ),
        .testTarget(
            name: "FederateAccountsTests",
            dependencies: [
                "Federate", "FederateSQLite", "FederatePostgres", "FederateSQLStore", "FederateDevProvider", "FederateTestSupport", logging,
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ] + observability + observabilityTesting,
            swiftSettings: strict
        ),
        .testTarget(
            name: "FederateHummingbirdTests",
            dependencies: [
                "FederateHummingbird", "FederateServer", "FederateMCP", "Federate", "FederateTestSupport", "FederateDevProvider",
                "FederateCLI",
                "FederateGoogle", "FederateApple", "FederateOIDC", "FederateOAuth2", "FederateGitHub", "FederateSQLite", "FederatePostgres",
                logging,
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "MCP", package: "swift-sdk"),
            ] + observability + observabilityTesting,
            swiftSettings: strict
        ),
        .testTarget(
            name: "FederateDevProviderTests",
            dependencies: [
                "FederateDevProvider", "Federate", "FederateTestSupport", "FederateCLI", "FederateGoogle", "FederateApple", "FederateOIDC",
                "FederateExampleMicrosoft", "FederateOAuth2", "FederateGitHub",
            ],
            swiftSettings: strict
        ),
        // Typechecks every Swift snippet of Docs/ against the built modules
        // (scripts/extract-doc-snippets.py); depends on every module the guides import.
        .testTarget(
            name: "FederateDocsTests",
            dependencies: [
                "Federate", "FederateURLSession", "FederateOIDC", "FederateGoogle", "FederateApple", "FederateMicrosoft", "FederateOAuth2",
                "FederateGitHub", "FederateSQLite", "FederatePostgres", "FederateHummingbird", "FederateMCP", "FederateDevProvider",
                "FederateTestSupport", logging, .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ] + crypto,
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
