import Foundation

/// What a run of the generator did, or would do with `check`.
public struct CodegenReport: Sendable {
    /// Files written (or that would change), relative to the config's folder.
    public var changed: [String]
    /// Stale generated files removed (or that would be removed).
    public var removed: [String]
    /// Files produced in all.
    public var produced: Int
    /// Lines of generated Swift.
    public var generatedLines: Int
    /// Warnings (unknown config keys).
    public var warnings: [String]
}

/// The generator: `apollo-codegen-config.json` in, Swift files out.
public enum Codegen {
    /// The config at `url`, its problem as a diagnostic.
    static func configuration(at url: URL) throws(CodegenFailure) -> CodegenConfiguration {
        do {
            return try CodegenConfiguration.load(from: url)
        } catch {
            let file = Glob.displayPath(error.file, in: url.deletingLastPathComponent())
            throw CodegenFailure([Diagnostic(file: file, line: error.line, column: error.column, message: error.message)])
        }
    }

    /// Generates for the config at `configURL`. With `check`, writes nothing and reports what would
    /// change. Throws every problem of the schema and operations at once.
    public static func run(configURL: URL, check: Bool = false) throws(CodegenFailure) -> CodegenReport {
        let configuration = try Self.configuration(at: configURL)
        let files = try generate(configuration)
        var report = try write(files, configuration: configuration, check: check)
        report.warnings += searchPathWarnings(configuration)
        return report
    }

    /// The files a configuration produces, in memory. Diagnostics name files as a compiler does
    /// (`Glob.displayPath`); generated files name their sources relative to the config, so that
    /// the output does not depend on where the tool runs.
    public static func generate(_ configuration: CodegenConfiguration) throws(CodegenFailure) -> [GeneratedFile] {
        let base = configuration.baseURL
        let schemaPaths = Glob(configuration.schemaSearchPaths).files(in: base)
        let operationPaths = Glob(configuration.operationSearchPaths).files(in: base)
        var configRelative: [String: String] = [:]
        func display(_ path: String) -> String {
            let shown = Glob.displayPath(path, in: base)
            configRelative[shown] = path
            return shown
        }
        var diagnostics: [Diagnostic] = []
        func read(_ path: String) -> String? {
            do {
                return try String(contentsOf: Glob.resolve(path, in: base), encoding: .utf8)
            } catch {
                diagnostics.append(Diagnostic(file: display(path), message: "cannot read the file (\(error.localizedDescription))"))
                return nil
            }
        }
        var schemaFiles: [(path: String, text: String)] = []
        for path in schemaPaths {
            guard let text = read(path) else { continue }
            if path.hasSuffix(".json") {
                do {
                    schemaFiles.append((display(path), try IntrospectionSDL.sdl(fromIntrospection: Data(text.utf8))))
                } catch let error as IntrospectionSDL.Failure {
                    diagnostics.append(Diagnostic(file: display(path), message: error.message))
                } catch {
                    diagnostics.append(Diagnostic(file: display(path), message: "not a valid introspection result: \(error.localizedDescription)"))
                }
            } else {
                schemaFiles.append((display(path), text))
            }
        }
        let operationFiles = operationPaths.compactMap { path in read(path).map { (path: display(path), text: $0) } }
        let configFile = Glob.displayPath("apollo-codegen-config.json", in: base)
        if schemaPaths.isEmpty {
            diagnostics.append(Diagnostic(file: configFile, message: "no schema file matches \(configuration.schemaSearchPaths)"))
        }
        guard diagnostics.isEmpty else { throw CodegenFailure(diagnostics) }
        var compilation = try Compilation.compile(schemaFiles: schemaFiles, operationFiles: operationFiles)
        compilation.sourceFiles = compilation.sourceFiles.mapValues { configRelative[$0] ?? $0 }
        let operationNames = Set(compilation.operations.map(\.name))
        let unknownIDs = configuration.operationIdentifiers.keys.filter { !operationNames.contains($0) }.sorted()
        if !unknownIDs.isEmpty {
            throw CodegenFailure(unknownIDs.map {
                Diagnostic(file: configFile, message: "apicore.operationIdentifiers names '\($0)', which is not an operation of the search paths")
            })
        }
        var sharedTypes: Set<String> = []
        if let shared = configuration.sharedSchema {
            let sharedPaths = Set(Glob(shared.schemaSearchPaths).files(in: base).map(display))
            if sharedPaths.isEmpty {
                throw CodegenFailure([Diagnostic(file: configFile, message: "no file matches apicore.sharedSchema.schemaSearchPaths \(shared.schemaSearchPaths)")])
            }
            sharedTypes = compilation.schema.typesDefined(inFiles: sharedPaths)
        }
        return SwiftGenerator(compilation: compilation, configuration: configuration, sharedTypes: sharedTypes).generate()
    }

    /// Operation search paths that matched no file; with none matched at all, nothing but schema
    /// types was generated, which is rarely what was meant.
    static func searchPathWarnings(_ configuration: CodegenConfiguration) -> [String] {
        let patterns = configuration.operationSearchPaths.filter { !$0.hasPrefix("!") }
        let unmatched = patterns.filter { Glob([$0]).files(in: configuration.baseURL).isEmpty }
        if Glob(configuration.operationSearchPaths).files(in: configuration.baseURL).isEmpty {
            return ["no operations: operationSearchPaths \(configuration.operationSearchPaths) matched no file; only schema types were generated"]
        }
        return unmatched.map { "operationSearchPaths '\($0)' matched no file" }
    }

    /// The files that `configuration` produces from schema and operation texts given in memory
    /// (its search paths are not read): for property tests, fuzzers and benchmarks.
    package static func generate(
        schemaFiles: [(path: String, text: String)], operationFiles: [(path: String, text: String)], configuration: CodegenConfiguration
    ) throws(CodegenFailure) -> [GeneratedFile] {
        generate(try Compilation.compile(schemaFiles: schemaFiles, operationFiles: operationFiles), configuration: configuration)
    }

    /// The files that `configuration` produces from a compilation.
    package static func generate(_ compilation: Compilation, configuration: CodegenConfiguration) -> [GeneratedFile] {
        SwiftGenerator(compilation: compilation, configuration: configuration).generate()
    }

    static func write(_ files: [GeneratedFile], configuration: CodegenConfiguration, check: Bool) throws(CodegenFailure) -> CodegenReport {
        let base = configuration.baseURL
        let fileManager = FileManager.default
        var changed: [String] = []
        var lines = 0
        for file in files {
            lines += file.contents.split(separator: "\n", omittingEmptySubsequences: false).count - 1
            let url = Glob.resolve(file.path, in: base)
            let existing = try? String(contentsOf: url, encoding: .utf8)
            if existing == file.contents || (!file.overwrite && existing != nil) { continue }
            changed.append(file.path)
            guard !check else { continue }
            do {
                try fileManager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try file.contents.write(to: url, atomically: true, encoding: .utf8)
            } catch {
                throw CodegenFailure([Diagnostic(file: file.path, message: "cannot write the file (\(error.localizedDescription))")])
            }
        }
        // Generated files that this run no longer produces are removed, so the output is exactly
        // what the operations describe. Only files that carry our header are touched.
        let produced = Set(files.map(\.path))
        var removed: [String] = []
        for root in outputRoots(files, configuration) {
            for path in Glob(["**/*.swift"]).files(in: Glob.resolve(root, in: base)) {
                let relative = root.isEmpty ? path : root + "/" + path
                guard !produced.contains(relative) else { continue }
                let url = Glob.resolve(relative, in: base)
                guard let text = try? String(contentsOf: url, encoding: .utf8), text.hasPrefix(GenerationContext.header) else { continue }
                removed.append(relative)
                if !check { try? fileManager.removeItem(at: url) }
            }
        }
        return CodegenReport(
            changed: changed.sorted(), removed: removed.sorted(), produced: files.count, generatedLines: lines,
            warnings: configuration.unknownKeys.map { "unknown key '\($0)' is ignored" })
    }

    /// The folders the generator owns: the schema types' folder and, when operations go
    /// elsewhere, every folder an operation file was written to.
    static func outputRoots(_ files: [GeneratedFile], _ configuration: CodegenConfiguration) -> [String] {
        var roots: Set<String> = [configuration.schemaTypesPath.hasSuffix("/") ? String(configuration.schemaTypesPath.dropLast()) : configuration.schemaTypesPath]
        switch configuration.operations {
        case .inSchemaModule: break
        case .absolute(let path, _): roots.insert(path)
        case .relative:
            for file in files where file.path.hasSuffix(".graphql.swift") || !file.path.hasPrefix(configuration.schemaTypesPath) {
                roots.insert(file.path.split(separator: "/").dropLast().joined(separator: "/"))
            }
        }
        return roots.sorted()
    }
}
