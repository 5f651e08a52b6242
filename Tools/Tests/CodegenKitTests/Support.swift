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

/// The metadata table of a generated operation or fragment file with its types named instead of
/// numbered: `["name","String!"]`, `["friends","[Hero.Friend!]"]`, `{"on":Hero.AsDroid}`, so that
/// a test says what a field's type is, not where the generator happened to list it.
func namedMetadata(_ file: String) -> String {
    guard let start = file.range(of: "Selection.parseTable(#\""), let textEnd = file.range(of: "\"#, ", range: start.upperBound..<file.endIndex)
    else { return "" }
    let text = String(file[start.upperBound..<textEnd.lowerBound])
    let line = file[textEnd.upperBound...].prefix { $0 != "\n" }
    let types = line.dropLast().components(separatedBy: ", ").map { $0.hasSuffix(".self") ? String($0.dropLast(5)) : $0 }
    func name(_ digits: Substring) -> String { Int(digits).flatMap { types.indices.contains($0) ? types[$0] : nil } ?? "?\(digits)" }
    var named = ""
    var rest = Substring(text)
    // A field's type ("0!", "[1]", "[[2!]]!") follows `["name","` where an entry starts (after `[`
    // or `,`, never after `:` as an argument's list does); a type case or spread's follows `"on":`
    // or `"spread":`.
    let field = #/([\[,]\["[^"]+",")([\[\]!0-9]+)"/#
    let reference = #/"(on|spread)":([0-9]+)/#
    while !rest.isEmpty {
        let nextField = rest.firstMatch(of: field)
        let nextReference = rest.firstMatch(of: reference)
        if let match = nextField, nextReference.map({ match.range.lowerBound <= $0.range.lowerBound }) ?? true {
            named += rest[..<match.range.lowerBound] + match.output.1
            var typeText = ""
            var digits = Substring()
            for character in match.output.2 {
                if character.isNumber { digits.append(character); continue }
                if !digits.isEmpty { typeText += name(digits); digits = "" }
                typeText.append(character)
            }
            if !digits.isEmpty { typeText += name(digits) }
            named += typeText + "\""
            rest = rest[match.range.upperBound...]
        } else if let match = nextReference {
            named += rest[..<match.range.lowerBound] + "\"\(match.output.1)\":" + name(match.output.2)
            rest = rest[match.range.upperBound...]
        } else {
            named += rest
            rest = ""
        }
    }
    return named
}
