import ArgumentParser
import CodegenKit
import Foundation

/// `apicore-codegen`: GraphQL code generation for APICoreKit kits.
struct CodegenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apicore-codegen",
        abstract: "Generate type-safe Swift from GraphQL operations and a schema, for APICoreKit kits.",
        discussion: """
            Reads apollo-codegen-config.json with Apollo iOS 1.x's keys (see Tools/README.md for the
            keys it understands and its own additions under "apicore").
            """,
        subcommands: [Generate.self, SplitSchema.self, CheckConfig.self]
    )
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// `apicore-codegen generate --path <config> [--check]`.
struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Generate Swift for the operations and schema a config names.",
        discussion: """
            The output is byte-identical on every run. Generated files that the operations no longer
            produce are removed. Errors are printed as file:line:column: error: message, all of them.
            """
    )

    @Option(name: .long, help: "The apollo-codegen-config.json file.")
    var path: String = "apollo-codegen-config.json"

    @Flag(name: .long, help: "Write nothing; list the files that would change and exit non-zero if any would.")
    var check = false

    func run() throws {
        let report: CodegenReport
        do {
            report = try Codegen.run(configURL: URL(fileURLWithPath: path), check: check)
        } catch {
            printError(error.description)
            printError("apicore-codegen: \(error.diagnostics.count) error\(error.diagnostics.count == 1 ? "" : "s")")
            throw ExitCode.failure
        }
        for warning in report.warnings { printError("warning: \(path): \(warning)") }
        if check {
            for file in report.changed { print("would change: \(file)") }
            for file in report.removed { print("would remove: \(file)") }
            if !report.changed.isEmpty || !report.removed.isEmpty {
                printError("apicore-codegen: generated code is out of date; run 'apicore-codegen generate --path \(path)'")
                throw ExitCode.failure
            }
            print("up to date: \(report.produced) files")
        } else {
            for file in report.changed { print("wrote: \(file)") }
            for file in report.removed { print("removed: \(file)") }
            print("\(report.produced) files, \(report.changed.count) changed, \(report.removed.count) removed")
        }
    }
}

/// `apicore-codegen split-schema`.
struct SplitSchema: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "split-schema",
        abstract: "Cut the backend's whole schema into a shared slice and one slice per domain.",
        discussion: """
            Writes <SharedKit>/GraphQL/Schema/shared-schema.graphqls and <Kit>/GraphQL/Schema/<domain>-schema.graphqls
            under --output. A type's domain is its @domain(name:) (or a name prefix from --config); a type without
            one belongs to the one domain that uses it, and is shared when several do. A type owned by one domain and
            used by another is an error naming both places, unless --move-to-shared.
            """
    )

    @Option(name: .long, help: "The whole schema (SDL).")
    var schema: String = "schema.graphqls"

    @Option(name: .long, help: "The folder the kits are in.")
    var output: String = "."

    @Option(name: .long, help: "A JSON file: {\"kits\": {domain: folder}, \"sharedKit\": folder, \"prefixes\": {typePrefix: domain}}.")
    var config: String?

    @Flag(name: .long, help: "Move a type that another domain uses to the shared slice instead of failing.")
    var moveToShared = false

    @Flag(name: .long, help: "Write nothing; list the slices that would change and exit non-zero if any would.")
    var check = false

    func run() throws {
        do {
            let configuration = try config.map { path throws(CodegenFailure) in try SchemaSplitter.Configuration.load(from: URL(fileURLWithPath: path)) }
                ?? SchemaSplitter.Configuration()
            guard let text = try? String(contentsOfFile: schema, encoding: .utf8) else {
                throw CodegenFailure([Diagnostic(file: schema, message: "cannot read the schema")])
            }
            let splitter = SchemaSplitter(configuration: configuration, moveConflictsToShared: moveToShared, sourceName: schema)
            let result = try splitter.split(text)
            for name in result.moved { printError("note: moved '\(name)' to the shared slice") }
            let changed = try SchemaSplitter.write(result, to: URL(fileURLWithPath: output), check: check)
            for path in changed { print(check ? "would change: \(path)" : "wrote: \(path)") }
            if check && !changed.isEmpty {
                printError("apicore-codegen: schema slices are out of date; run 'apicore-codegen split-schema'")
                throw ExitCode.failure
            }
            print("\(result.slices.count) slices, \(changed.count) changed")
        } catch let failure as CodegenFailure {
            printError(failure.description)
            printError("apicore-codegen: \(failure.diagnostics.count) error\(failure.diagnostics.count == 1 ? "" : "s")")
            throw ExitCode.failure
        }
    }
}

/// `apicore-codegen check-config --path <config>`.
struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Read a config file and report what it says, warning about keys it does not know."
    )

    @Option(name: .long, help: "The apollo-codegen-config.json file.")
    var path: String = "apollo-codegen-config.json"

    func run() throws {
        let configuration: CodegenConfiguration
        do {
            configuration = try CodegenConfiguration.load(from: URL(fileURLWithPath: path))
        } catch {
            printError("error: \(error)")
            throw ExitCode.failure
        }
        for key in configuration.unknownKeys {
            printError("warning: \(path): unknown key '\(key)' is ignored")
        }
        print("schemaNamespace: \(configuration.schemaNamespace)")
        print("operations: \(configuration.operationSearchPaths.joined(separator: ", "))")
        print("schema: \(configuration.schemaSearchPaths.joined(separator: ", "))")
        print("schemaTypes: \(configuration.schemaTypesPath) (\(configuration.moduleType))")
    }
}

CodegenCommand.main()
