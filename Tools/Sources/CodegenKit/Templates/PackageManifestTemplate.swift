/// The `Package.swift` of a schema module generated as its own package (moduleType
/// `swiftPackageManager`).
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
        w.line("    products: [.library(name: \(name), targets: [\(name)])],")
        w.line("    dependencies: [.package(path: \(SwiftNames.stringLiteral(context.configuration.apiCoreKitPath ?? "../APICoreKit")))],")
        w.line("    targets: [.target(name: \(name), dependencies: [.product(name: \"APICore\", package: \"APICoreKit\")])]")
        w.line(")")
        return GeneratedFile(path: context.layout.packageManifest, contents: w.text, overwrite: true)
    }
}
