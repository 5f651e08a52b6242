import CodegenKit
import Foundation

/// Whether generated code compiles: the files are written to a scratch folder and type-checked
/// by `swiftc` against APICore's built module (`-swift-version 6`, so strict concurrency, in a
/// module whose default isolation is the main actor, as an Xcode 26 app target's is); the test
/// mocks, when there are any, against the generated module. A few seconds per sample, with no
/// package to resolve.
package enum CompileCheck {
    /// The `Modules` folder of the build that runs this code (APICore and APICoreTesting are
    /// there when the Tools package is built with its tests), or `nil`.
    package static var modulesBesideExecutable: URL? {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        for folder in [executable.deletingLastPathComponent(), executable.deletingLastPathComponent().deletingLastPathComponent()] {
            let modules = folder.appendingPathComponent("Modules")
            if FileManager.default.fileExists(atPath: modules.appendingPathComponent("APICore.swiftmodule").path) { return modules }
        }
        return nil
    }

    /// The compiler's errors for `files` (generated with `moduleName` as the schema module and
    /// test mocks under `Mocks/`), or an empty list when they compile.
    package static func errors(_ files: [GeneratedFile], moduleName: String, modules: URL) throws -> [String] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("codegen-compile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var sources: [String] = []
        var mocks: [String] = []
        for file in files where file.path.hasSuffix(".swift") {
            let url = folder.appendingPathComponent(file.path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(file.contents.utf8).write(to: url)
            if file.path.hasPrefix("Mocks/") { mocks.append(url.path) } else { sources.append(url.path) }
        }
        let built = folder.appendingPathComponent("built")
        try FileManager.default.createDirectory(at: built, withIntermediateDirectories: true)
        var errors = try swiftc(
            ["-emit-module", "-emit-module-path", built.appendingPathComponent("\(moduleName).swiftmodule").path, "-module-name", moduleName,
             "-default-isolation", "MainActor"] + sources,
            modules: modules)
        if errors.isEmpty && !mocks.isEmpty {
            errors = try swiftc(["-typecheck", "-module-name", moduleName + "Mocks", "-I", built.path] + mocks, modules: modules)
        }
        return errors
    }

    private static func swiftc(_ arguments: [String], modules: URL) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swiftc", "-swift-version", "6", "-I", modules.path] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus != 0 else { return [] }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        let errors = lines.filter { $0.contains(": error: ") }
        return errors.isEmpty ? lines : errors
    }
}
