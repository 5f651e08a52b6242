import CodegenFuzzTargets
import Foundation

/// Compile time and size of generated code on a real schema: GitHub's public schema (as Apollo iOS
/// commits it for its own GitHubAPI sample), Apollo's GitHub operations, and operations written
/// against the schema from a fixed seed. Each side (a generator and the APICoreKit it targets)
/// generates the same input into a package of its own, which is compiled (debug) alone.
enum CompareBench {
    static func writeInput(schemaDirectory: String, out: String, operations: Int) throws {
        let manager = FileManager.default
        let source = URL(fileURLWithPath: schemaDirectory)
        let directory = URL(fileURLWithPath: out)
        try? manager.removeItem(at: directory)
        try manager.createDirectory(at: directory.appendingPathComponent("Operations"), withIntermediateDirectories: true)
        let schema = try String(contentsOf: source.appendingPathComponent("schema.graphqls"), encoding: .utf8)
        try schema.write(to: directory.appendingPathComponent("schema.graphqls"), atomically: true, encoding: .utf8)
        var selected = 0
        for file in try manager.contentsOfDirectory(atPath: source.path).sorted() where file.hasSuffix(".graphql") {
            let text = try String(contentsOf: source.appendingPathComponent(file), encoding: .utf8)
            selected += try SchemaOperations.selectedFieldCount(in: text)
            try text.write(to: directory.appendingPathComponent("Operations/\(file)"), atomically: true, encoding: .utf8)
        }
        let synthesized = try SchemaOperations(schema: schema).operations(count: operations, seed: 42)
        selected += try SchemaOperations.selectedFieldCount(in: synthesized.text)
        try synthesized.text.write(to: directory.appendingPathComponent("Operations/Synthesized.graphql"), atomically: true, encoding: .utf8)
        try """
            {
              "schemaNamespace": "GitHubAPI",
              "input": { "operationSearchPaths": ["Operations/*.graphql"], "schemaSearchPaths": ["schema.graphqls"] },
              "output": {
                "schemaTypes": { "path": "Sources/GitHubAPI", "moduleType": { "embeddedInTarget": { "name": "GitHubAPI", "accessModifier": "public" } } },
                "operations": { "inSchemaModule": {} }
              }
            }
            """.write(to: directory.appendingPathComponent("apollo-codegen-config.json"), atomically: true, encoding: .utf8)
        print("compare-operations: \(operations + 3)")
        print("selected-fields: \(selected)")
    }

    static func compile(input: String, generator: String, apiCoreKit: String, label: String, rounds: Int) throws {
        let manager = FileManager.default
        let directory = URL(fileURLWithPath: input).deletingLastPathComponent().appendingPathComponent("generated-\(label)")
        try? manager.removeItem(at: directory)
        try manager.copyItem(at: URL(fileURLWithPath: input), to: directory)
        guard try run(generator, ["generate", "--path", directory.appendingPathComponent("apollo-codegen-config.json").path]) == 0 else {
            fail("\(label): the generator failed on \(directory.path)")
        }
        var lines = 0, files = 0
        let sources = directory.appendingPathComponent("Sources/GitHubAPI")
        for case let file as String in manager.enumerator(atPath: sources.path)! where file.hasSuffix(".swift") {
            files += 1
            lines += try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).count - 1
        }
        try """
            // swift-tools-version:6.0
            import PackageDescription
            let package = Package(
                name: "GitHubAPI",
                dependencies: [.package(path: "\(URL(fileURLWithPath: apiCoreKit).standardizedFileURL.path)")],
                targets: [.target(name: "GitHubAPI", dependencies: [.product(name: "APICore", package: "APICoreKit")])]
            )
            """.write(to: directory.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        let build = ["build", "--package-path", directory.path]
        guard try run("/usr/bin/env", ["swift"] + build + ["--target", "APICore"]) == 0 else { fail("\(label): APICore did not build") }
        var best = Double.infinity
        for _ in 0..<max(rounds, 1) {
            // The generated module alone, every file of it compiled again each round.
            let now = Date()
            for case let file as String in manager.enumerator(atPath: sources.path)! where file.hasSuffix(".swift") {
                try manager.setAttributes([.modificationDate: now], ofItemAtPath: sources.appendingPathComponent(file).path)
            }
            var status: Int32 = 0
            let elapsed = try ContinuousClock().measure { status = try run("/usr/bin/env", ["swift"] + build + ["--target", "GitHubAPI"]) }
            guard status == 0 else { fail("\(label): the generated module did not compile (\(directory.path))") }
            best = min(best, seconds(elapsed))
        }
        // What swift build costs with nothing to compile (manifests, planning): not the compiler's.
        var idle = Double.infinity
        for _ in 0..<2 {
            let elapsed = try ContinuousClock().measure { _ = try run("/usr/bin/env", ["swift"] + build + ["--target", "GitHubAPI"]) }
            idle = min(idle, seconds(elapsed))
        }
        print("\(label)-generated-files: \(files)")
        print("\(label)-generated-lines: \(lines)")
        print("\(label)-build-seconds: \(String(format: "%.2f", best))")
        print("\(label)-idle-build-seconds: \(String(format: "%.2f", idle))")
        print("\(label)-compile-seconds: \(String(format: "%.2f", best - idle))")
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if process.terminationStatus != 0 { FileHandle.standardError.write(message.suffix(4000)) }
        return process.terminationStatus
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("codegen-bench: \(message)\n".utf8))
        exit(1)
    }
}
