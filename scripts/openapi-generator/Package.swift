// swift-tools-version:6.0
import PackageDescription

// Only for scripts/generate-openapi.sh: brings swift-openapi-generator's command-line tool, which
// builds for minutes, so that the generated clients are written once and committed. Nothing
// depends on this package.
let package = Package(
    name: "openapi-generator",
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3")
    ],
    targets: []
)
