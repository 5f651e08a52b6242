// swift-tools-version:6.0
import PackageDescription

/// SharedKit: what every feature kit shares: the shared schema slice and its generated types
/// (enums, inputs, scalars), and small utilities such as `DateTime`.
let package = Package(
    name: "SharedKit",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "SharedKit", targets: ["SharedKit"])
    ],
    dependencies: [
        .package(path: "../APICoreKit")
    ],
    targets: [
        .target(name: "SharedKit", dependencies: [.product(name: "APICore", package: "APICoreKit")]),
        .testTarget(name: "SharedKitTests", dependencies: ["SharedKit"]),
    ]
)
