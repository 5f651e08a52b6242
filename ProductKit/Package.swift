// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ProductKit",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "ProductKit", targets: ["ProductKit"])
    ],
    dependencies: [
        .package(path: "../APICoreKit"),
        .package(path: "../SharedKit"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        .target(
            name: "ProductKit",
            dependencies: [
                .product(name: "APICore", package: "APICoreKit"),
                .product(name: "APICoreOpenAPI", package: "APICoreKit"),
                .product(name: "SharedKit", package: "SharedKit"),
                // The REST client in Sources/ProductKit/OpenAPI, generated from OpenAPI/openapi.yaml.
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "ProductKitTests",
            dependencies: ["ProductKit", .product(name: "APICoreTesting", package: "APICoreKit")],
            resources: [.copy("Fixtures")]
        ),
    ]
)
