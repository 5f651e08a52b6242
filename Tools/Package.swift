// swift-tools-version:6.0
import PackageDescription

/// Tools: `apicore-codegen`, the code generator and schema splitter, and `dev-server`, the server
/// for development, demos and end-to-end tests (also a library, `DevServer`, for running in-process).
let package = Package(
    name: "Tools",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "apicore-codegen", targets: ["apicore-codegen"]),
        .executable(name: "dev-server", targets: ["dev-server"]),
        .library(name: "DevServer", targets: ["DevServer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/GraphQLSwift/GraphQL", from: "4.3.0"),
        .package(path: "../APICoreKit"),
        .package(path: "../APICoreKit/Integration"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
    ],
    targets: [
        .target(
            name: "CodegenKit",
            dependencies: [.product(name: "GraphQL", package: "GraphQL"), .product(name: "APICore", package: "APICoreKit")]
        ),
        .executableTarget(
            name: "apicore-codegen",
            dependencies: ["CodegenKit", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(name: "codegen-bench", dependencies: ["CodegenKit", "CodegenFuzzTargets"]),
        .target(
            name: "DevServer",
            dependencies: [
                .product(name: "APICoreServerSupport", package: "Integration"),
                .product(name: "GraphQL", package: "GraphQL"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            // Compiled in (`PackageResources.schema_graphqls`): a copied `pantry` or `dev-server`
            // needs no resource bundle beside it.
            resources: [.embedInCode("schema.graphqls")]
        ),
        .executableTarget(
            name: "dev-server",
            dependencies: ["DevServer", .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "DevServerTests",
            dependencies: [
                "DevServer",
                "CodegenKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "APICore", package: "APICoreKit"),
                .product(name: "APICoreLive", package: "APICoreKit"),
                .product(name: "APICoreWebSocket", package: "APICoreKit"),
                .product(name: "APICoreTesting", package: "APICoreKit"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // Fuzzing the generator's readers (APICoreKit/Fuzz/README.md); the driver file is shared
        // with APICoreKit's fuzzer through a link.
        .target(name: "CodegenFuzzTargets", dependencies: ["CodegenKit", .product(name: "GraphQL", package: "GraphQL")], path: "Fuzz/Targets"),
        .executableTarget(name: "codegen-fuzz", dependencies: ["CodegenFuzzTargets"], path: "Fuzz/Driver"),
        // Property runs of the generator over many seeds, and the writer of the committed samples.
        .executableTarget(name: "codegen-properties", dependencies: ["CodegenFuzzTargets", "CodegenKit"], path: "Fuzz/Properties"),
        .testTarget(name: "CodegenFuzzReplayTests", dependencies: ["CodegenFuzzTargets"], path: "Fuzz/ReplayTests"),
        .testTarget(
            name: "CodegenKitTests",
            dependencies: ["CodegenKit", "CodegenFuzzTargets", .product(name: "APICore", package: "APICoreKit")]),
    ]
)
