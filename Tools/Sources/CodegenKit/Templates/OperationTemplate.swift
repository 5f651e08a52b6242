
/// An operation's file: the struct with its name, the document sent (or, for a local cache
/// mutation, none), its variables, and its `Data`.
struct OperationTemplate {
    let context: GenerationContext
    let selectionSets: SelectionSetTemplate

    /// `HeroNameQuery`, `CreateReviewMutation`, `ProductNameLocalCacheMutation`.
    static func typeName(_ operation: GQL.Operation) -> String {
        let suffix = operation.directives.isLocalCacheMutation ? "LocalCacheMutation" : operation.kind.rawValue.upperFirst
        return operation.name.hasSuffix(suffix) ? operation.name : operation.name + suffix
    }

    func render(_ operation: GQL.Operation, ir: SelectionSetIR) -> GeneratedFile {
        let typeName = Self.typeName(operation)
        let source = context.sourceFiles[operation.name]
        let isLocal = operation.directives.isLocalCacheMutation
        let access = context.operationAccess
        var writer = context.newFile(source: source, extraImports: operation.directives.importedModules)
        writer.doc(operation.description)
        if isLocal {
            writer.line("/// A local cache mutation: read and changed in the cache with `client.cache.update`, never sent.")
        }
        let protocolName = isLocal ? "LocalCacheMutation" : "GraphQL" + operation.kind.rawValue.upperFirst
        writer.block("\(GenerationContext.topLevel)\(access)struct \(typeName): \(protocolName)") { w in
            if isLocal {
                w.line("\(access)static var operationType: GraphQLOperationType { .\(operation.kind.rawValue) }")
            }
            w.line("\(access)static var operationName: String { \(SwiftNames.stringLiteral(operation.name)) }")
            if !isLocal {
                let document = DocumentPrinter.document(of: operation, fragments: context.fragments, schema: context.schema)
                w.line("\(access)static var document: String { \(SwiftNames.stringLiteral(document)) }")
                if context.configuration.operationManifest != nil {
                    w.line("\(access)static var operationIdentifier: String? { \(SwiftNames.stringLiteral(context.operationID(operation.name, document: document))) }")
                }
            }
            writeVariables(operation.variables, into: &w)
            w.line()
            let initializers = context.configuration.selectionSetInitializers.applies(
                to: operation.name, isFragment: false, isLocalCacheMutation: isLocal)
            selectionSets.write(ir, role: .root, mutable: isLocal, initializers: initializers, into: &w)
        }
        let path = context.layout.operationFile(named: typeName, folder: FileLayout.folder(of: operation.kind), source: source)
        return GeneratedFile(path: path, contents: writer.text, overwrite: true)
    }

    /// A stored property per variable, an initializer (variables with defaults or nullable types
    /// may be left out), and `__variables`.
    private func writeVariables(_ variables: [GQL.VariableDefinition], into w: inout SwiftWriter) {
        let access = context.operationAccess
        guard !variables.isEmpty else {
            w.line()
            w.line("\(access)init() {}")
            return
        }
        w.line()
        var parameters: [String] = []
        for variable in variables {
            let (swiftType, omittable) = context.types.input(variable.type, optionalDefault: variable.defaultValue != nil)
            let property = SwiftNames.member(variable.name)
            w.doc(variable.description)
            w.line("\(access)var \(property): \(swiftType)")
            parameters.append("\(property): \(swiftType)" + (omittable ? " = nil" : ""))
        }
        w.line()
        w.block("\(access)init(\(parameters.joined(separator: ", ")))") { w in
            for variable in variables {
                let property = SwiftNames.member(variable.name)
                w.line("self.\(property) = \(property)")
            }
        }
        w.line()
        let entries = variables.map { "\(SwiftNames.stringLiteral($0.name)): \(SwiftNames.member($0.name))" }
        w.line("\(GenerationContext.generatedOnly(access))var __variables: InputDict { InputDict([\(entries.joined(separator: ", "))]) }")
        // What the server uses for a variable left out, so that the cache keys fields as it does.
        let defaults = variables.compactMap { variable in variable.defaultValue.map { "\(SwiftNames.stringLiteral(variable.name)): \(Self.jsonLiteral($0))" } }
        if !defaults.isEmpty {
            w.line("\(GenerationContext.generatedOnly(access))static var __variableDefaults: JSONObject { [\(defaults.joined(separator: ", "))] }")
        }
    }

    /// A GraphQL value as a Swift literal of `JSONValue` (an enum value is its name, a string).
    static func jsonLiteral(_ value: GQL.Value) -> String {
        switch value {
        case .variable(let name): return SwiftNames.stringLiteral("$" + name)  // cannot occur: a default is a constant
        case .int(let text), .float(let text): return text
        case .string(let string), .enumValue(let string): return SwiftNames.stringLiteral(string)
        case .boolean(let bool): return bool ? "true" : "false"
        case .null: return "nil"
        case .list(let values): return "[" + values.map(jsonLiteral).joined(separator: ", ") + "]"
        case .object(let fields):
            if fields.isEmpty { return "[:]" }
            return "[" + fields.map { "\(SwiftNames.stringLiteral($0.name)): \(jsonLiteral($0.value))" }.joined(separator: ", ") + "]"
        }
    }
}
