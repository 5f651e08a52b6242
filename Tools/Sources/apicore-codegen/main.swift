import ArgumentParser
import CodegenKit
import Foundation

/// `apicore-codegen`: GraphQL code generation for APICoreKit kits.
struct CodegenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apicore-codegen",
        abstract: "Generate type-safe Swift from GraphQL operations and a schema, for APICoreKit kits.",
        discussion: "Reads apollo-codegen-config.json with Apollo iOS 1.x's keys.",
        subcommands: [CheckConfig.self]
    )
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
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode.failure
        }
        for key in configuration.unknownKeys {
            FileHandle.standardError.write(Data("warning: \(path): unknown key '\(key)' is ignored\n".utf8))
        }
        print("schemaNamespace: \(configuration.schemaNamespace)")
        print("operations: \(configuration.operationSearchPaths.joined(separator: ", "))")
        print("schema: \(configuration.schemaSearchPaths.joined(separator: ", "))")
        print("schemaTypes: \(configuration.schemaTypesPath) (\(configuration.moduleType))")
    }
}

CodegenCommand.main()
