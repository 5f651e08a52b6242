import Foundation
import PackagePlugin

/// Compiles the Swift samples of APICore's DocC articles with the target that uses this plugin:
/// runs `apicore-doc-samples` on every article of `Sources/APICore/APICore.docc`.
@main
struct DocSamples: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let catalog = context.package.directoryURL.appending(path: "Sources/APICore/APICore.docc")
        let articles = try FileManager.default.contentsOfDirectory(at: catalog, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "md" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "Samples")
        let files = articles.map { output.appending(path: $0.deletingPathExtension().lastPathComponent + "+Samples.swift") }
        return [
            .buildCommand(
                displayName: "Writing the Swift samples of \(articles.count) DocC articles",
                executable: try context.tool(named: "apicore-doc-samples").url,
                arguments: [output.path] + articles.map(\.path),
                inputFiles: articles,
                outputFiles: files + [output.appending(path: "DocSampleIndex.swift")])
        ]
    }
}
