// swift-tools-version:6.1
// libFuzzer targets for every parser in Federate, kept in their own package so the main
// build never carries the sanitizer flags.
//
//   scripts/fuzz.sh [runs-per-target]      (default 100,000)
//
// One executable holds every target; FEDERATE_FUZZ_TARGET picks one. See Docs/Security.md.
import PackageDescription

/// SwiftPM names a path dependency after its folder: the checkout that holds this package.
let federatePackage = String(Context.packageDirectory.split(separator: "/").dropLast().last ?? "main").lowercased()

let package = Package(
    name: "FederateFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
    ],
    targets: [
        .target(name: "CFuzzDriver", path: "Sources/CFuzzDriver"),
        .executableTarget(
            name: "FederateFuzz",
            dependencies: [
                "CFuzzDriver",
                .product(name: "Federate", package: federatePackage),
                .product(name: "FederateApple", package: federatePackage),
                .product(name: "FederateGoogle", package: federatePackage),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Sources/FederateFuzz",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
    ],
    swiftLanguageModes: [.v6]
)
