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
    ],
    targets: [
        .target(
            name: "ProductKit",
            dependencies: [
                .product(name: "APICore", package: "APICoreKit"),
                .product(name: "SharedKit", package: "SharedKit"),
            ]
        ),
        .testTarget(
            name: "ProductKitTests",
            dependencies: ["ProductKit", .product(name: "APICoreTesting", package: "APICoreKit")],
            resources: [.copy("Fixtures")]
        ),
    ]
)
