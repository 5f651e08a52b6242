import ArgumentParser
import CodegenKit
import Foundation

/// `apicore-codegen`: GraphQL code generation for APICoreKit kits.
@main
struct CodegenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apicore-codegen",
        abstract: "Generate type-safe Swift from GraphQL operations and a schema, for APICoreKit kits.",
        discussion: """
            Reads apollo-codegen-config.json with Apollo iOS 1.x's keys (see Tools/README.md for the \
            keys it understands and its own additions under "apicore").
            """,
        subcommands: [Generate.self, Init.self, FetchSchema.self, SplitSchema.self, CheckSchema.self, CheckConfig.self, NewKit.self]
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
            The output is byte-identical on every run. Generated files that the operations no longer \
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

/// `apicore-codegen init --namespace <Name> …`.
struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write an apollo-codegen-config.json for a kit.",
        discussion: """
            Writes a config that 'generate' accepts: the namespace, where the operations and schema are read \
            from, where the code goes and how it is packaged, and with --endpoint a schemaDownload section for \
            'fetch-schema'. An existing file is kept unless --force.
            """
    )

    @Option(name: .long, help: "The schema namespace (a Swift type name, e.g. HouseholdAPI).")
    var namespace: String

    @Option(name: .long, help: "The config file to write.")
    var path: String = "apollo-codegen-config.json"

    @Option(name: .long, help: "embeddedInTarget, swiftPackageManager or other.")
    var moduleType: String = "embeddedInTarget"

    @Option(name: .long, help: "The target the generated code is part of (embeddedInTarget).")
    var targetName: String?

    @Option(name: .long, help: "public or internal (embeddedInTarget).")
    var accessModifier: String = "internal"

    @Option(name: .long, help: "Where the generated code goes (default: Sources/<target>/Generated, or Generated).")
    var output: String?

    @Option(name: .long, help: "Glob of the operation files.")
    var operations: String = "GraphQL/Operations/**/*.graphql"

    @Option(name: .long, help: "Glob of the schema files.")
    var schema: String = "GraphQL/Schema/*.graphqls"

    @Option(name: .long, help: "A GraphQL endpoint to fetch the schema from (adds schemaDownload).")
    var endpoint: String?

    @Flag(name: .long, help: "Replace an existing file.")
    var force = false

    func run() throws {
        guard let module = InitialConfiguration.ModuleType(rawValue: moduleType) else {
            printError("apicore-codegen init: --module-type must be one of \(InitialConfiguration.ModuleType.allCases.map(\.rawValue).joined(separator: ", ")), not '\(moduleType)'")
            throw ExitCode.validationFailure
        }
        var initial = InitialConfiguration(namespace: namespace, outputPath: output ?? targetName.map { "Sources/\($0)/Generated" } ?? "Generated")
        initial.moduleType = module
        initial.targetName = targetName
        initial.accessModifier = accessModifier
        initial.operationSearchPaths = [operations]
        initial.schemaSearchPaths = [schema]
        if let endpoint {
            guard let url = URL(string: endpoint), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
                printError("apicore-codegen init: --endpoint must be an http or https URL, not '\(endpoint)'")
                throw ExitCode.validationFailure
            }
            initial.endpoint = url
        }
        do {
            try initial.write(to: path, force: force)
        } catch {
            printError("apicore-codegen init: \(error)")
            throw ExitCode.failure
        }
        print("wrote: \(path)")
    }
}

/// `apicore-codegen fetch-schema --path <config>`.
struct FetchSchema: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch-schema",
        abstract: "Download the schema a config's schemaDownload section names.",
        discussion: """
            schemaDownload as Apollo iOS spells it: downloadMethod {"introspection": {"endpointURL", "httpMethod": \
            {"POST": {}} or {"GET": {"queryParameterName": "query"}}, "outputFormat": "SDL" or "JSON", \
            "includeDeprecatedInputValues"}} or {"url": {"url"}} for a registry that serves SDL; downloadTimeout \
            (seconds, default 30); headers (an object, or [{"key", "value"}]; ${NAME} is read from the environment); \
            outputPath (relative to the config).

            The schema is checked and written sorted and stable, so two downloads of one schema are byte-identical; \
            nothing is written when the server cannot be reached, times out, refuses introspection, answers errors \
            or answers something that is not a schema, which is said in one line with a non-zero exit.
            """
    )

    @Option(name: .long, help: "The apollo-codegen-config.json file.")
    var path: String = "apollo-codegen-config.json"

    func run() async throws {
        let configuration: CodegenConfiguration
        do {
            configuration = try CodegenConfiguration.load(from: URL(fileURLWithPath: path))
        } catch {
            printError("apicore-codegen fetch-schema: \(error)")
            throw ExitCode.failure
        }
        guard let download = configuration.schemaDownload else {
            printError("apicore-codegen fetch-schema: \(path) has no 'schemaDownload' section (see apicore-codegen fetch-schema --help)")
            throw ExitCode.failure
        }
        do {
            let changed = try await download.run()
            print("\(changed ? "wrote" : "unchanged"): \(download.outputPath)")
        } catch {
            printError("apicore-codegen fetch-schema: \(error.message)")
            throw ExitCode.failure
        }
    }
}

/// `apicore-codegen split-schema`.
struct SplitSchema: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "split-schema",
        abstract: "Cut the backend's whole schema into a shared slice and one slice per domain.",
        discussion: """
            Writes <SharedKit>/GraphQL/Schema/shared-schema.graphqls and <Kit>/GraphQL/Schema/<domain>-schema.graphqls \
            under --output. A type's domain is its @domain(name:) (or a name prefix from --config); a type without \
            one belongs to the one domain that uses it, and is shared when several do. A type owned by one domain and \
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

/// `apicore-codegen check-schema --old <schema> --new <schema> [--config <kit config>…] [--json]`.
struct CheckSchema: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-schema",
        abstract: "Classify the changes between two schemas and name the kits' operations they break.",
        discussion: """
            Every change is breaking, dangerous or safe, as graphql-js's findBreakingChanges and \
            findDangerousChanges classify them (removed types, fields, arguments and enum values, \
            changed types, added required arguments and input fields are breaking; added enum values, \
            union members, optional arguments and changed defaults are dangerous), with its place in \
            both files. For each --config, the kit's operations are walked against the old schema and \
            validated against the new one: each operation and fragment a change reaches is listed \
            with its place, under the kit and its owners (from CODEOWNERS).

            Exits 1 when a kit breaks, or, without --config, when any change is breaking; 2 when a \
            schema or config cannot be read.
            """
    )

    @Option(name: .long, help: "The schema as it was (SDL, or introspection JSON ending in .json).")
    var old: String

    @Option(name: .long, help: "How the report names the old schema (e.g. HEAD:schema.graphqls); by default, its path.")
    var oldName: String?

    @Option(name: .long, help: "The schema as it would be.")
    var new: String

    @Option(name: .long, parsing: .upToNextOption, help: "Kit configs (apollo-codegen-config.json) whose operations to check; repeatable.")
    var config: [String] = []

    @Option(name: .long, help: "The CODEOWNERS file (default: ./CODEOWNERS or ./.github/CODEOWNERS when present).")
    var codeowners: String?

    @Flag(name: .long, help: "Print JSON for CI instead of text.")
    var json = false

    func run() throws {
        let owners = codeowners.map { URL(fileURLWithPath: $0) }
            ?? ["CODEOWNERS", ".github/CODEOWNERS"].map { URL(fileURLWithPath: $0) }.first { FileManager.default.fileExists(atPath: $0.path) }
        let check: SchemaCheck
        do {
            check = try SchemaCheck.run(old: old, oldName: oldName, new: new, configs: config, codeOwners: owners)
        } catch {
            printError(error.description)
            printError("apicore-codegen: check-schema could not compare (\(error.diagnostics.count) error\(error.diagnostics.count == 1 ? "" : "s"))")
            throw ExitCode(2)
        }
        print(json ? check.json : check.text)
        if check.breaks { throw ExitCode.failure }
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

