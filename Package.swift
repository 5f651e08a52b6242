// swift-tools-version:6.0
import Foundation
import PackageDescription

// SwiftPM names the root package after its folder: in a clone whose folder has the name of a
// package it depends on (`git clone …/APICoreKit` makes `APICoreKit/`), that package is hidden and
// nothing builds. Say so before SwiftPM's own error, which names neither the cause nor the cure.
let cloneFolder = URL(fileURLWithPath: Context.packageDirectory).lastPathComponent
if ["apicorekit", "integration", "sharedkit", "userkit", "productkit", "householdkit", "tools"].contains(cloneFolder.lowercased()) {
    FileHandle.standardError.write(Data("""
        error: this repository cannot build in a folder named '\(cloneFolder)': SwiftPM names the root package after its \
        folder, and then it hides the package '\(cloneFolder)' that the app depends on. Clone it into a folder of \
        another name (git clone <url> pantry) or rename this one.

        """.utf8))
}

/// The umbrella package: `pantry`, the app CLI that composes the feature kits over one
/// `APIClient` built at its composition root, with the dev server from `Tools` embedded.
let package = Package(
    name: "Pantry",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "pantry", targets: ["pantry"])
    ],
    dependencies: [
        .package(path: "APICoreKit"),
        .package(path: "APICoreKit/APICoreAsyncHTTPClient"),
        .package(path: "SharedKit"),
        .package(path: "UserKit"),
        .package(path: "ProductKit"),
        .package(path: "HouseholdKit"),
        .package(path: "Tools"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // For the fault tests' integrity checks of the cache file (already built for APICoreSQLite).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // `pantry --trace`: an in-process tracer (APICoreKit already builds swift-distributed-tracing).
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
    ],
    targets: [
        .target(
            name: "PantryCLI",
            dependencies: [
                .product(name: "APICore", package: "APICoreKit"),
                .product(name: "APICoreLive", package: "APICoreKit"),
                .product(name: "APICoreSQLite", package: "APICoreKit"),
                .product(name: "APICoreWebSocket", package: "APICoreKit"),
                .product(name: "APICoreAsyncHTTPClient", package: "APICoreAsyncHTTPClient"),
                .product(name: "DevServer", package: "Tools"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "SharedKit", package: "SharedKit"),
                .product(name: "UserKit", package: "UserKit"),
                .product(name: "ProductKit", package: "ProductKit"),
                .product(name: "HouseholdKit", package: "HouseholdKit"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "pantry", dependencies: ["PantryCLI"]),
        .testTarget(
            name: "PantryCLITests",
            dependencies: [
                "PantryCLI", .product(name: "APICoreTesting", package: "APICoreKit"), .product(name: "DevServer", package: "Tools"),
                .product(name: "APICore", package: "APICoreKit"), .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ]
)
