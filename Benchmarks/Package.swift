// swift-tools-version:6.1
// Performance benchmarks for Federate, kept in their own package so the main build
// (and CI's `swift build`/`swift test`) never pulls in package-benchmark.
//
//   cd Benchmarks && swift package benchmark --target FederateBenchmarks
//
// See Docs/Performance.md and scripts/perf.sh.
import PackageDescription

/// SwiftPM names a path dependency after its folder: the checkout that holds this package
/// (`main` here, but a CI clone may live elsewhere).
let federatePackage = String(Context.packageDirectory.split(separator: "/").dropLast().last ?? "main").lowercased()

let package = Package(
    name: "FederateBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        // Enabling only "MallocInterposer" turns off the default "RuntimeInterposer" trait, whose
        // Linux-only dependency is not needed for these metrics.
        .package(url: "https://github.com/ordo-one/benchmark.git", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
    ],
    targets: [
        .target(
            name: "PerfFixtures",
            dependencies: [
                .product(name: "Federate", package: federatePackage),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Perf/PerfFixtures"
        ),
        .executableTarget(
            name: "FederatePerf",
            dependencies: [
                "PerfFixtures",
                .product(name: "Federate", package: federatePackage),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Perf/FederatePerf"
        ),
        .executableTarget(
            name: "FederateBenchmarks",
            dependencies: [
                "PerfFixtures",
                .product(name: "Federate", package: federatePackage),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Benchmarks/FederateBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        // The sign-in workload on the SQL stores that AccountsPerf and AccountsBenchmarks share.
        .target(
            name: "AccountsWorkload",
            dependencies: [
                .product(name: "Federate", package: federatePackage),
                .product(name: "FederateSQLite", package: federatePackage),
                .product(name: "FederatePostgres", package: federatePackage),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Perf/AccountsWorkload"
        ),
        // Sign-ins and session verification on the SQL stores, timed plainly (Docs/Performance.md,
        // "Sessions and accounts"); scripts/accounts-bench.sh runs it with a durable PostgreSQL 15.
        .executableTarget(
            name: "AccountsPerf",
            dependencies: [
                "AccountsWorkload",
                "PerfFixtures",
                .product(name: "Federate", package: federatePackage),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Perf/AccountsPerf"
        ),
        // The same, for package-benchmark.
        .executableTarget(
            name: "AccountsBenchmarks",
            dependencies: [
                "AccountsWorkload",
                "PerfFixtures",
                .product(name: "Federate", package: federatePackage),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Benchmarks/AccountsBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
