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
        subcommands: [Generate.self, CheckConfig.self]
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
