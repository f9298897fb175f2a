// swift-tools-version:6.1
import PackageDescription

// FederateVapor: Federate's routes and middleware for Vapor (Docs/Vapor.md). A package of its
// own, depending on the root by path, so that Vapor never enters the root package's graph:
// `swift build` and `swift test` at the root do not build it (Docs/Architecture.md).
//
// Build and test it against the root's build folder, which it reuses (about 80 s instead of a
// full rebuild): `swift test --package-path Integrations/FederateVapor --scratch-path .build`
// (scripts/test.sh runs it after the root's tests).
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "FederateVapor",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "FederateVapor", targets: ["FederateVapor"]),
    ],
    dependencies: [
        .package(name: "Federate", path: "../.."),
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.3"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        // The tests host an MCP server (FederateMCP) on Vapor; the root pins the same version.
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk.git", exact: "0.12.1"),
    ],
    targets: [
        .target(
            name: "FederateVapor",
            dependencies: [
                .product(name: "Federate", package: "Federate"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // Docs/Vapor.md's example app, byte for byte (VaporDocsTests checks it): the browser test runs it.
        .target(
            name: "VaporExampleApp",
            dependencies: [
                "FederateVapor",
                .product(name: "Federate", package: "Federate"),
                .product(name: "FederateSQLite", package: "Federate"),
                .product(name: "Vapor", package: "vapor"),
            ],
            path: "Example/Sources/VaporExampleApp"
        ),
        .executableTarget(
            name: "VaporExample",
            dependencies: ["VaporExampleApp", .product(name: "Vapor", package: "vapor")],
            path: "Example/Sources/VaporExample"
        ),
        .testTarget(
            name: "FederateVaporTests",
            dependencies: [
                "FederateVapor", "VaporExampleApp",
                .product(name: "Federate", package: "Federate"),
                // The dev provider, which runs on Hummingbird, comes with that product.
                .product(name: "FederateHummingbird", package: "Federate"),
                .product(name: "FederateMCP", package: "Federate"),
                .product(name: "FederateSQLite", package: "Federate"),
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "VaporTesting", package: "vapor"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
