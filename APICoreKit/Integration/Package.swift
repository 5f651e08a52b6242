// swift-tools-version:6.0
import PackageDescription

/// APICoreKit's engine against real servers, in a package of its own so that kits, which depend on
/// `APICoreKit`, never resolve or build a server framework.
///
/// - `APICoreServerSupport`: GraphQL over HTTP and over WebSocket for servers built on Hummingbird
///   and GraphQLSwift; shared by the test server here and the dev server in `Tools`.
/// - `APICoreTestServer`: the loopback server the engine's tests and benchmarks run against.
/// - The engine's tests (HTTP, cache, subscriptions) against that server, and the interop suite
///   against a third-party server (`Interop/README.md`).
/// - `apicore-bench`: the benchmarks `scripts/bench.sh` runs.
let package = Package(
    name: "APICoreIntegration",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        // For the test server and the dev server, never for apps.
        .library(name: "APICoreServerSupport", targets: ["APICoreServerSupport"])
    ],
    dependencies: [
        .package(path: ".."),
        .package(path: "../APICoreAsyncHTTPClient"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/GraphQLSwift/GraphQL", from: "4.3.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        // A certificate authority made at test time (and for `pantry demo --tls`).
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
    ],
    targets: [
        .target(
            name: "APICoreServerSupport",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "GraphQL", package: "GraphQL"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"), .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HummingbirdCore", package: "hummingbird"), .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"), .product(name: "NIOTLS", package: "swift-nio"),
            ]
        ),
        .target(
            name: "APICoreTestServer",
            dependencies: [
                .product(name: "APICore", package: "APICoreKit"), .product(name: "APICoreTesting", package: "APICoreKit"), "APICoreServerSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "GraphQL", package: "GraphQL"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTLS", package: "hummingbird"), .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "APICoreLive", package: "APICoreKit"),
                .product(name: "APICoreAsyncHTTPClient", package: "APICoreAsyncHTTPClient"),
            ]
        ),
        // The interop server's operations, generated from Interop/ (apollo-codegen-config.json).
        .target(name: "InteropAPI", dependencies: [.product(name: "APICore", package: "APICoreKit")]),
        // A Hasura-style schema's operations (boolean expressions, upserts), generated from
        // Interop/hasura/ and sent to its graphql-core server.
        .target(name: "HasuraAPI", dependencies: [.product(name: "APICore", package: "APICoreKit")]),
        // The Apollo StarWars operations as the generator writes them (a link to APICoreKit's copy).
        .target(name: "StarWarsOperations", dependencies: [.product(name: "APICore", package: "APICoreKit")]),
        .executableTarget(
            name: "apicore-bench",
            dependencies: [
                .product(name: "APICore", package: "APICoreKit"), .product(name: "APICoreLive", package: "APICoreKit"),
                .product(name: "APICoreSQLite", package: "APICoreKit"), .product(name: "APICoreWebSocket", package: "APICoreKit"),
                "APICoreTestServer", "StarWarsOperations", "HasuraAPI",
                .product(name: "WSClient", package: "swift-websocket"), "MallocStatistics",
                .product(name: "APICoreAsyncHTTPClient", package: "APICoreAsyncHTTPClient"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            path: "Benchmarks/apicore-bench"
        ),
        // What the C allocator holds (glibc's mallinfo2), for the soak's memory figures.
        .target(name: "MallocStatistics", path: "Benchmarks/MallocStatistics"),
        .testTarget(
            name: "APICoreLiveTests",
            dependencies: [
                .product(name: "APICore", package: "APICoreKit"), .product(name: "APICoreLive", package: "APICoreKit"),
                "APICoreTestServer", "StarWarsOperations", .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "APICoreOpenAPI", package: "APICoreKit"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            // ItemsOpenAPI/ holds a client of the test server's REST routes that swift-openapi-generator
            // wrote from the openapi.yaml beside it (scripts/generate-openapi.sh).
            exclude: ["ItemsOpenAPI/openapi.yaml", "ItemsOpenAPI/openapi-generator-config.yaml", "ItemsOpenAPI/openapi.sha256"]
        ),
        .testTarget(
            name: "APICoreCacheTests",
            dependencies: [
                .product(name: "APICore", package: "APICoreKit"), .product(name: "APICoreLive", package: "APICoreKit"),
                .product(name: "APICoreSQLite", package: "APICoreKit"), "APICoreTestServer", "StarWarsOperations",
                .product(name: "Logging", package: "swift-log"), .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "APICoreSubscriptionTests",
            dependencies: [
                .product(name: "APICore", package: "APICoreKit"), .product(name: "APICoreLive", package: "APICoreKit"),
                .product(name: "APICoreWebSocket", package: "APICoreKit"), "APICoreTestServer", "StarWarsOperations",
                .product(name: "Logging", package: "swift-log"), .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "APICoreAsyncHTTPClient", package: "APICoreAsyncHTTPClient"),
            ]
        ),
        .testTarget(
            name: "InteropTests",
            dependencies: [
                .product(name: "APICore", package: "APICoreKit"), .product(name: "APICoreLive", package: "APICoreKit"),
                .product(name: "APICoreWebSocket", package: "APICoreKit"), "APICoreTestServer", "InteropAPI", "HasuraAPI",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)
