// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "UserKit",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "UserKit", targets: ["UserKit"])
    ],
    dependencies: [
        .package(path: "../APICoreKit"),
        .package(path: "../SharedKit"),
    ],
    targets: [
        .target(
            name: "UserKit",
            dependencies: [
                .product(name: "APICore", package: "APICoreKit"),
                .product(name: "SharedKit", package: "SharedKit"),
            ]
        ),
        .testTarget(
            name: "UserKitTests",
            dependencies: ["UserKit", .product(name: "APICoreTesting", package: "APICoreKit")],
            resources: [.copy("Fixtures")]
        ),
    ]
)
