// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "HouseholdKit",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "HouseholdKit", targets: ["HouseholdKit"])
    ],
    dependencies: [
        .package(path: "../APICoreKit"),
        .package(path: "../SharedKit"),
    ],
    targets: [
        .target(
            name: "HouseholdKit",
            dependencies: [
                .product(name: "APICore", package: "APICoreKit"),
                .product(name: "SharedKit", package: "SharedKit"),
            ]
        ),
        .testTarget(
            name: "HouseholdKitTests",
            dependencies: ["HouseholdKit", .product(name: "APICoreTesting", package: "APICoreKit")],
            resources: [.copy("Fixtures")]
        ),
    ]
)
