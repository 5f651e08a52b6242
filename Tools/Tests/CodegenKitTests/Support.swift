import CodegenKit
import Foundation
import Testing

/// A temporary project folder with a config, removed when the value is dropped.
final class Project {
    let url: URL

    init(files: [String: String], config: String? = nil, at folder: URL? = nil) throws {
        url = folder ?? FileManager.default.temporaryDirectory.appendingPathComponent("codegen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        var all = files
        all["apollo-codegen-config.json"] = config ?? """
            {
              "schemaNamespace": "TestAPI",
              "input": { "operationSearchPaths": ["**/*.graphql"], "schemaSearchPaths": ["**/*.graphqls", "**/schema.json"] },
              "output": {
                "schemaTypes": { "path": "Generated", "moduleType": { "embeddedInTarget": { "name": "App", "accessModifier": "internal" } } },
                "operations": { "inSchemaModule": {} }
              }
            }
            """
        for (path, text) in all { try write(path, text) }
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    var configURL: URL { url.appendingPathComponent("apollo-codegen-config.json") }

    func write(_ path: String, _ text: String) throws {
        let file = url.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: file, atomically: true, encoding: .utf8)
    }

    func read(_ path: String) throws -> String {
        try String(contentsOf: url.appendingPathComponent(path), encoding: .utf8)
    }

    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: url.appendingPathComponent(path).path) }

    /// The diagnostics of a run that must fail, with the project's folder left out of paths (the
    /// project is outside the working directory, so they are absolute).
    func failure() -> [Diagnostic] {
        do {
            let report = try Codegen.run(configURL: configURL)
            Issue.record("expected errors, generated \(report.produced) files")
            return []
        } catch {
            let folder = url.standardizedFileURL.path + "/"
            return error.diagnostics.map { diagnostic in
                var relative = diagnostic
                relative.file = diagnostic.file.hasPrefix(folder) ? String(diagnostic.file.dropFirst(folder.count)) : diagnostic.file
                relative.message = diagnostic.message.replacingOccurrences(of: folder, with: "")
                return relative
            }
        }
    }
}

/// The repository's root, from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardizedFileURL
