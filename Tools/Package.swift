// swift-tools-version:6.0
import PackageDescription

/// Tools: `apicore-codegen`, the code generator and schema splitter (and, later, the dev server).
let package = Package(
    name: "Tools",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "apicore-codegen", targets: ["apicore-codegen"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/GraphQLSwift/GraphQL", from: "4.3.0"),
        .package(path: "../APICoreKit"),
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
        .executableTarget(name: "codegen-bench", dependencies: ["CodegenKit"]),
        .testTarget(name: "CodegenKitTests", dependencies: ["CodegenKit", .product(name: "APICore", package: "APICoreKit")]),
    ]
)
