// swift-tools-version:5.8
// libFuzzer targets for every parser in Federate, kept in their own package so the main
// build never carries the sanitizer flags.
//
//   scripts/fuzz.sh [runs-per-target]      (default 100,000)
//
// One executable holds every target; FEDERATE_FUZZ_TARGET picks one. See Docs/Security.md.
import PackageDescription

/// SwiftPM names a path dependency after its folder: the checkout that holds this package.
let federatePackage = String(Context.packageDirectory.split(separator: "/").dropLast().last ?? "main").lowercased()

/// The compiler's name for that package (`-package-name`: SwiftPM's identity, lowercased, with `_`
/// for anything but letters and digits). The fuzz targets compile as part of it: they reach its
/// `package` declarations (parsers such as `JSONParser`, `AppleUser`, `TokenResponse`), which are not public API.
let federatePackageName = String(federatePackage.map { $0.isLetter || $0.isNumber ? $0 : "_" })

let package = Package(
    name: "FederateFuzz",
    platforms: [.macOS(.v13)],
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
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Sources/FederateFuzz",
            swiftSettings: [.unsafeFlags(["-parse-as-library", "-package-name", federatePackageName])]
        ),
    ]
)
