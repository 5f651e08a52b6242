import Foundation

@_spi(Tools) import enum APICore.SHA256

/// A file the generator writes.
public struct GeneratedFile: Sendable, Equatable {
    /// The path relative to the config file's folder.
    public var path: String
    /// The full text.
    public var contents: String
    /// `false` for files written once and then left to the user (custom scalars).
    public var overwrite: Bool
}

/// Turns a compilation into Swift files in three passes: the IR of every operation and fragment,
/// then the schema types they use, then one template per output, laid out as the config says.
struct SwiftGenerator {
    let compilation: Compilation
    let configuration: CodegenConfiguration
    /// Types defined by the shared schema module: referenced from there, never generated here.
    var sharedTypes: Set<String> = []

    func generate() -> [GeneratedFile] {
        let context = GenerationContext(compilation: compilation, configuration: configuration, sharedTypes: sharedTypes)

        let builder = IRBuilder(schema: compilation.schema, fragments: compilation.fragments, names: context.names)
        let operations = compilation.operations.map { ($0, builder.operation($0)) }
        let fragments = compilation.fragments.sorted { $0.key < $1.key }.map { name, fragment in
            // `compile` rejects documents whose fragments name an unknown type, so every fragment
            // it returns has an IR; no input file can make this fire.
            guard let ir = builder.fragment(name) else { preconditionFailure("fragment \(name) was validated") }
            return (fragment, ir)
        }

        let used = UsedTypes(
            types: context.types, selectionSets: operations.map(\.1) + fragments.map(\.1),
            variables: compilation.operations.flatMap { $0.variables.map(\.type) }, everything: configuration.generateAllSchemaTypes)

        var files: [GeneratedFile] = []
        let selectionSets = SelectionSetTemplate(context: context)
        var documentFiles: [GeneratedFile] = []
        for (operation, ir) in operations {
            documentFiles.append(OperationTemplate(context: context, selectionSets: selectionSets).render(operation, ir: ir))
        }
        for (fragment, ir) in fragments {
            documentFiles.append(FragmentTemplate(context: context, selectionSets: selectionSets).render(fragment, ir: ir))
        }
        if let manifest = configuration.operationManifest {
            files.append(OperationManifestTemplate(context: context, operations: compilation.operations).render(manifest))
        }
        files.append(SchemaTypesTemplate(context: context).render(parentTypes: used.parentTypes))
        for name in used.enums.sorted() { files.append(EnumTemplate(context: context).render(name)) }
        for name in used.inputObjects.sorted() { files.append(InputObjectTemplate(context: context).render(name)) }
        for name in used.customScalars.sorted() { files.append(CustomScalarTemplate(context: context).render(name)) }
        let mocks = TestMocksTemplate(context: context).render(used)
        if case .swiftPackageManager = configuration.moduleType {
            files.append(PackageManifestTemplate(context: context).render())
        }
        files = Self.distinctNames(documentFiles, besides: files) + mocks
        return files.sorted { $0.path < $1.path }
    }
}

extension SwiftGenerator {
    /// The module's files, renamed where one would share its file name with another (case aside,
    /// as on a case-insensitive disk): Swift refuses two files of one name in a module, and a
    /// fragment may be named like an enum (`Episode`), an input object or the namespace, two types
    /// may differ only in case. The schema's files come first (in path order) and keep their
    /// names where they can; a document's gets `+Fragment` or `+Operation`; then `_2`, `_3`, ….
    static func distinctNames(_ documentFiles: [GeneratedFile], besides schemaFiles: [GeneratedFile]) -> [GeneratedFile] {
        func baseName(_ path: String) -> String { String(path.split(separator: "/").last ?? "").lowercased() }
        var taken: Set<String> = []
        func distinct(_ file: GeneratedFile, kind: String) -> GeneratedFile {
            var renamed = file
            guard !taken.insert(baseName(file.path)).inserted, let dot = file.path.range(of: ".", options: [], range: file.path.range(
                of: "/", options: .backwards).map { $0.upperBound..<file.path.endIndex } ?? file.path.startIndex..<file.path.endIndex)
            else { return renamed }
            let stem = String(file.path[..<dot.lowerBound])
            let suffix = String(file.path[dot.lowerBound...])
            var candidate = stem + kind
            var counter = 2
            while !taken.insert(baseName(candidate + suffix)).inserted {
                candidate = stem + kind + "_\(counter)"
                counter += 1
            }
            renamed.path = candidate + suffix
            return renamed
        }
        let schema = schemaFiles.sorted { $0.path < $1.path }.map { distinct($0, kind: "") }
        let documents = documentFiles.map { distinct($0, kind: $0.path.contains("/Fragments/") ? "+Fragment" : "+Operation") }
        return schema + documents
    }
}

/// What every template reads: the schema and configuration, how GraphQL types map to Swift,
/// where files go, and the access modifiers of what is generated.
struct GenerationContext {
    /// An operation's persisted-query id: the configuration's (`apicore.operationIdentifiers`), else
    /// the SHA-256 of its document.
    func operationID(_ name: String, document: String) -> String {
        configuration.operationIdentifiers[name] ?? SHA256.hexDigest(document)
    }

    let schema: SchemaModel
    let configuration: CodegenConfiguration
    let fragments: [String: GQL.Fragment]
    /// For each operation (`Name`) or fragment (`fragment Name`), its `.graphql` file.
    let sourceFiles: [String: String]
    let types: TypeMapping
    let layout: FileLayout
    /// The input object fields that close a cycle, stored out of line.
    let inputCycles: InputCycles
    /// The structs of operations and fragments, and the names their scope holds.
    let names: TopLevelNames

    static let header = "// @generated by apicore-codegen. DO NOT EDIT: change the .graphql files and run the generator again."

    init(compilation: Compilation, configuration: CodegenConfiguration, sharedTypes: Set<String>) {
        schema = compilation.schema
        self.configuration = configuration
        fragments = compilation.fragments
        sourceFiles = compilation.sourceFiles
        types = TypeMapping(
            schema: compilation.schema, namespace: configuration.schemaNamespace, sharedTypes: sharedTypes,
            sharedNamespace: configuration.sharedSchema?.namespace, customNames: configuration.customTypeNames)
        layout = FileLayout(configuration: configuration)
        inputCycles = InputCycles(compilation.schema)
        names = TopLevelNames(
            namespace: configuration.schemaNamespace, operations: compilation.operations.map(OperationTemplate.typeName),
            fragments: Array(compilation.fragments.keys))
    }

    var namespace: String { configuration.schemaNamespace }
    var includeDocs: Bool { configuration.schemaDocumentation == .include }

    /// `public ` or nothing, for schema types.
    var schemaAccess: String {
        switch configuration.moduleType {
        case .embeddedInTarget(_, let modifier): return modifier == .public ? "public " : ""
        case .swiftPackageManager, .other: return "public "
        }
    }

    /// `public ` or nothing, for operations and fragments.
    var operationAccess: String {
        if case .absolute(_, let modifier) = configuration.operations { return modifier == .public ? "public " : "" }
        return schemaAccess
    }

    /// The access of members that only generated code and the engine use: behind
    /// `@_spi(Generated)` when public, so that a kit's users see the accessors alone.
    static func generatedOnly(_ access: String) -> String { access.isEmpty ? "" : "@_spi(Generated) " + access }

    /// What opens every top-level declaration: `nonisolated`, so that generated code compiles and
    /// is usable from any isolation, also in a target whose default isolation is the main actor
    /// (`.defaultIsolation(MainActor.self)`, Xcode 26's default for app targets), where a plain
    /// declaration would be main-actor-isolated. Nested declarations follow their enclosing type.
    static let topLevel = "nonisolated "

    /// A file's opening: the header, the `.graphql` file it came from, and its imports (APICore
    /// with the members generated code uses, the shared schema module, and `extraImports`).
    func newFile(source: String?, extraImports: [String] = []) -> SwiftWriter {
        var writer = SwiftWriter()
        writer.line(Self.header)
        if let source { writer.line("// Source: \(source)") }
        writer.line()
        writer.line("@_spi(Generated) import APICore")
        if let shared = configuration.sharedSchema { writer.line("import \(shared.module)") }
        for module in extraImports where module != "APICore" && module != configuration.sharedSchema?.module {
            writer.line("import \(module)")
        }
        writer.line()
        return writer
    }
}
