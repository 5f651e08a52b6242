/// The `Package.swift` of a schema module generated as its own package (moduleType
/// `swiftPackageManager`), with the test mocks' target when `output.testMocks` is `swiftPackage`.
struct PackageManifestTemplate {
    let context: GenerationContext

    func render() -> GeneratedFile {
        let name = SwiftNames.stringLiteral(context.namespace)
        var w = SwiftWriter()
        w.line("// swift-tools-version:6.0")
        w.line(GenerationContext.header)
        w.line()
        w.line("import PackageDescription")
        w.line()
        w.line("let package = Package(")
        w.line("    name: \(name),")
        // APICore's own platforms: a package that depends on it cannot support less.
        w.line("    platforms: [.macOS(.v14), .iOS(.v17)],")
        let dependencies = "    dependencies: [.package(path: \(SwiftNames.stringLiteral(context.configuration.apiCoreKitPath ?? "../APICoreKit")))],"
        let schemaTarget = ".target(name: \(name), dependencies: [.product(name: \"APICore\", package: \"APICoreKit\")])"
        if let mocks = context.layout.mocksTargetName.map(SwiftNames.stringLiteral) {
            w.line("    products: [")
            w.line("        .library(name: \(name), targets: [\(name)]),")
            w.line("        .library(name: \(mocks), targets: [\(mocks)]),")
            w.line("    ],")
            w.line(dependencies)
            w.line("    targets: [")
            w.line("        \(schemaTarget),")
            w.line("        .target(")
            w.line("            name: \(mocks), dependencies: [\(name), .product(name: \"APICoreTesting\", package: \"APICoreKit\")], path: \"TestMocks\"),")
            w.line("    ]")
        } else {
            w.line("    products: [.library(name: \(name), targets: [\(name)])],")
            w.line(dependencies)
            w.line("    targets: [\(schemaTarget)]")
        }
        w.line(")")
        return GeneratedFile(path: context.layout.packageManifest, contents: w.text, overwrite: true)
    }
}
