// swift-tools-version:6.0
import PackageDescription

/// APICoreKit: the networking core.
///
/// - `APICore`: public protocols and value types every kit imports, plus the small runtime that
///   generated GraphQL code is written against.
/// - `APICoreLive`: the engine (URLSession transport, GraphQL over HTTP, middleware chain). Only an
///   app's composition root imports it; its public surface is one factory.
/// - `APICoreTesting`: a mock `APIClient` for kits' unit tests, a log capture and a bounded wait.
/// - `APICoreSQLite`: the SQLite normalized cache (GRDB), for the composition root.
/// - `APICoreWebSocket`: the WebSocket client for subscriptions (on SwiftNIO, TLS by NIOSSL), for
///   the composition root of an app that subscribes.
/// - `APICoreOpenAPI`: a swift-openapi-runtime `ClientTransport` over an `APIClient`, for a kit whose
///   REST client swift-openapi-generator writes.
///
/// Tests here need no server. The engine's tests against real servers (our own test server on
/// Hummingbird and GraphQLSwift, and a third-party one), the server support the dev server shares,
/// and the benchmarks live in `Integration/`, a package of their own, so that a kit depending on
/// this one never resolves or fetches a server framework. SwiftNIO is built only by an app that
/// links `APICoreWebSocket`.
let package = Package(
    name: "APICoreKit",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "APICore", targets: ["APICore"]),
        .library(name: "APICoreLive", targets: ["APICoreLive"]),
        .library(name: "APICoreTesting", targets: ["APICoreTesting"]),
        .library(name: "APICoreSQLite", targets: ["APICoreSQLite"]),
        .library(name: "APICoreWebSocket", targets: ["APICoreWebSocket"]),
        .library(name: "APICoreOpenAPI", targets: ["APICoreOpenAPI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // TLS trust over NIO (APICoreWebSocket): pins are SHA-256s; a refused certificate is read to say why.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
    ],
    targets: [
        .target(
            name: "APICore",
            dependencies: [
                .product(name: "Logging", package: "swift-log"), .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // What the engine, the SQLite store and the WebSocket client share (records and the
        // persistence protocols, the WebSocket transport): never imported by a kit.
        .target(name: "APICoreSupport", dependencies: ["APICore", .product(name: "Logging", package: "swift-log")]),
        .target(
            name: "APICoreLive",
            dependencies: [
                "APICore", "APICoreSupport", .product(name: "Logging", package: "swift-log"), .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .target(name: "APICoreTesting", dependencies: ["APICore", "APICoreSupport", .product(name: "Logging", package: "swift-log")]),
        .target(
            name: "APICoreSQLite",
            dependencies: ["APICore", "APICoreSupport", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "APICoreWebSocket",
            dependencies: [
                "APICore", "APICoreSupport", .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"), .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "NIOTLS", package: "swift-nio"), "APICoreLive", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        .target(
            name: "APICoreOpenAPI",
            dependencies: [
                "APICore", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // JSON reading throughput beside JSONSerialization and simdjson (scripts/bench.sh json).
        .executableTarget(
            name: "apicore-json-bench", dependencies: ["APICore", "GitHubOperations"], path: "Benchmarks/apicore-json-bench",
            exclude: ["GraphQL", "apollo-codegen-config.json"]),
        // GitHub's IssuesAndCommentsForRepository (Apollo iOS's performance-test query) generated
        // against GitHub's schema: the benchmarks read GitHub's real answer with it.
        .target(name: "GitHubOperations", dependencies: ["APICore"], path: "Benchmarks/GitHubOperations", exclude: ["apollo-codegen-config.json"]),
        .executableTarget(
            name: "apicore-cache-bench",
            dependencies: [
                "APICore", "APICoreLive", "APICoreSupport", "APICoreSQLite", "StarWarsOperations", "GitHubOperations",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/apicore-cache-bench"
        ),
        // A second process on one cache file, for the process tests and bench.sh processes.
        .executableTarget(
            name: "apicore-cache-peer", dependencies: ["APICore", "APICoreLive", "APICoreSupport", "APICoreSQLite", .product(name: "Logging", package: "swift-log")],
            path: "Benchmarks/apicore-cache-peer"
        ),
        // Which files one fetch and one subscription event cross, measured (scripts/trace.sh).
        .executableTarget(name: "apicore-trace", dependencies: ["APICore", "APICoreLive", "StarWarsOperations"], path: "Benchmarks/apicore-trace"),
        .target(name: "StarWarsOperations", dependencies: ["APICore"], path: "Tests/Support/StarWarsOperations"),
        // Fuzzing (Fuzz/README.md): the targets, the Apollo StarWars operations as the generator
        // writes them (a link to Tools' fixture), the libFuzzer driver, and the replay of every
        // committed input as a normal test.
        .target(name: "FuzzStarWarsAPI", dependencies: ["APICore"], path: "Fuzz/StarWarsAPI"),
        .target(
            name: "FuzzTargets", dependencies: ["APICore", "APICoreLive", "APICoreSupport", "StarWarsOperations", "FuzzStarWarsAPI"], path: "Fuzz/Targets"
        ),
        .executableTarget(name: "apicore-fuzz", dependencies: ["FuzzTargets"], path: "Fuzz/Driver"),
        .testTarget(name: "FuzzReplayTests", dependencies: ["FuzzTargets"], path: "Fuzz/ReplayTests"),
        .testTarget(name: "APICoreTests", dependencies: ["APICore", "APICoreSupport", "StarWarsOperations", "GitHubOperations"]),
        // The Swift samples of APICore's DocC articles (Sources/APICore/APICore.docc), compiled as
        // they are written: the DocSamples plugin turns them into sources of this target.
        .executableTarget(name: "apicore-doc-samples", path: "Plugins/DocSamplesTool"),
        .plugin(name: "DocSamples", capability: .buildTool(), dependencies: ["apicore-doc-samples"]),
        .testTarget(
            name: "DocSampleTests",
            dependencies: [
                "APICore", "APICoreLive", "APICoreSQLite", "APICoreWebSocket", "APICoreTesting", "APICoreOpenAPI", "StarWarsOperations",
                .product(name: "Logging", package: "swift-log"), .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            plugins: ["DocSamples"]
        ),
        .testTarget(name: "APICoreLiveUnitTests", dependencies: ["APICore", "APICoreLive", "StarWarsOperations"]),
        // The normalized store without a server: in memory and on SQLite files.
        .testTarget(
            name: "APICoreStoreTests",
            dependencies: [
                "APICore", "APICoreLive", "APICoreSupport", "APICoreSQLite", "APICoreTesting", "StarWarsOperations", "GitHubOperations",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
                // The counting server of the process tests (NIO is built for APICoreWebSocket already).
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        .testTarget(
            name: "APICoreTestingTests", dependencies: ["APICore", "APICoreTesting", "StarWarsOperations"],
            resources: [.copy("Fixtures")]),
    ]
)

// The documentation plugin, for scripts/docs.sh only (APICOREKIT_DOCS=1): kits that depend on this
// package never resolve it.
if Context.environment["APICOREKIT_DOCS"] != nil {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}
