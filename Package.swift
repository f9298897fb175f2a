// swift-tools-version:6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Federate",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Federate", targets: ["Federate"]),
        .library(name: "FederateOIDC", targets: ["FederateOIDC"]),
        .library(name: "FederateApple", targets: ["FederateApple"]),
        .library(name: "FederateGoogle", targets: ["FederateGoogle"]),
        .library(name: "FederateDevProvider", targets: ["FederateDevProvider"]),
        .library(name: "FederateHummingbird", targets: ["FederateHummingbird"]),
        .library(name: "FederateSQLite", targets: ["FederateSQLite"]),
        .library(name: "FederatePostgres", targets: ["FederatePostgres"]),
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
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        .target(
            name: "Federate",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "FederateCLI",
            dependencies: [
                "Federate",
                "FederateOIDC",
                "FederateApple",
                "FederateGoogle",
                "FederateDevProvider",
                "FederateHummingbird",
                "FederateSQLite",
                "FederatePostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/federate",
            swiftSettings: strict
        ),
        .target(
            name: "FederateTestSupport",
            dependencies: [
                "Federate",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/FederateTestSupport",
            swiftSettings: strict
        ),
        .target(
            name: "FederateOIDC",
            dependencies: ["Federate", .product(name: "Logging", package: "swift-log")],
            path: "Providers/OIDC",
            swiftSettings: strict
        ),
        .target(
            name: "FederateApple",
            dependencies: ["Federate", .product(name: "Crypto", package: "swift-crypto")],
            path: "Providers/Apple",
            swiftSettings: strict
        ),
        .testTarget(
            name: "FederateAppleTests",
            dependencies: ["FederateApple", "Federate", "FederateTestSupport", "FederateDevProvider", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        .target(
            name: "FederateDevProvider",
            dependencies: [
                "Federate",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "FederateHummingbird",
            dependencies: [
                "Federate",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "FederateHummingbirdTests",
            dependencies: [
                "FederateHummingbird", "Federate", "FederateTestSupport", "FederateDevProvider", "FederateCLI",
                "FederateGoogle", "FederateApple", "FederateOIDC",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "FederateDevProviderTests",
            dependencies: ["FederateDevProvider", "Federate", "FederateTestSupport", "FederateCLI", "FederateGoogle", "FederateApple", "FederateOIDC"],
            swiftSettings: strict
        ),
        .target(
            name: "FederateGoogle",
            dependencies: ["Federate"],
            path: "Providers/Google",
            swiftSettings: strict
        ),
        .testTarget(
            name: "FederateGoogleTests",
            dependencies: ["FederateGoogle", "Federate", "FederateTestSupport", "FederateDevProvider"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "FederateOIDCTests",
            dependencies: ["FederateOIDC", "Federate", "FederateTestSupport", "FederateDevProvider", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        .target(
            name: "FederateSQLite",
            dependencies: [
                "Federate",
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "FederatePostgres",
            dependencies: [
                "Federate",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "FederateAccountsTests",
            dependencies: [
                "Federate",
                "FederateSQLite",
                "FederatePostgres",
                "FederateDevProvider",
                "FederateTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "FederateTests",
            dependencies: [
                "Federate",
                "FederateTestSupport",
                "FederateCLI",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
