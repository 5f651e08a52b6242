import Foundation
import GraphQL

/// The schema and operations of one configuration, parsed and validated, then converted to the
/// generator's own document model (`GQL`): nothing past this point sees the parser's AST.
package struct Compilation {
    let schema: SchemaModel
    /// Sorted by name.
    let operations: [GQL.Operation]
    let fragments: [String: GQL.Fragment]
    /// For each operation or fragment, the file it came from (relative to the config).
    var sourceFiles: [String: String]

    init(schema: SchemaModel, operations: [GQL.Operation], fragments: [String: GQL.Fragment], sourceFiles: [String: String]) {
        self.schema = schema
        self.operations = operations
        self.fragments = fragments
        self.sourceFiles = sourceFiles
    }

    /// The name of the source that declares the client directives the schema files do not.
    static let clientDirectivesSource = "(Apollo client directives)"

    /// Apollo's client directives, known without being declared in the schema.
    static let clientDirectives: [(name: String, sdl: String)] = [
        ("typePolicy", "directive @typePolicy(keyFields: String! = \"\", connectionFields: String! = \"\") on OBJECT | INTERFACE"),
        ("fieldPolicy", "directive @fieldPolicy(forField: String!, keyArgs: String!) repeatable on OBJECT | INTERFACE"),
        ("defer", "directive @defer(label: String, if: Boolean! = true) on FRAGMENT_SPREAD | INLINE_FRAGMENT"),
        ("stream", "directive @stream(label: String, if: Boolean! = true, initialCount: Int! = 0) on FIELD"),
        ("apollo_client_ios_localCacheMutation",
         "directive @apollo_client_ios_localCacheMutation on QUERY | MUTATION | SUBSCRIPTION | FRAGMENT_DEFINITION"),
        ("import", "directive @import(module: String!) repeatable on QUERY | MUTATION | SUBSCRIPTION | FRAGMENT_DEFINITION"),
        ("nonnull", "directive @nonnull on FIELD"),
        // The nullability RFC's: a field the server sets to null only with an error.
        ("semanticNonNull", "directive @semanticNonNull(levels: [Int] = [0]) on FIELD_DEFINITION"),
        // Where an error at a field goes: into the field (RESULT), a null (NULL), or on up (THROW);
        // on an operation, for its fields; on the schema, for every field.
        ("catch", "directive @catch(to: CatchTo! = RESULT, levels: [Int!]! = [0]) on FIELD | QUERY | MUTATION | SUBSCRIPTION"),
        ("CatchTo", "enum CatchTo { RESULT NULL THROW }"),
        ("catchByDefault", "directive @catchByDefault(to: CatchTo!) on SCHEMA"),
        // Apollo Server's cache hints, declared in the schema: how long a field's value (or every
        // field returning the type) may be cached; the generator writes them for the cache.
        ("cacheControl", "directive @cacheControl(maxAge: Int, scope: CacheControlScope, inheritMaxAge: Boolean) on FIELD_DEFINITION | OBJECT | INTERFACE | UNION"),
        ("CacheControlScope", "enum CacheControlScope { PUBLIC PRIVATE }"),
    ]

    /// A parsed and validated schema, ready for any number of operation sets.
    package struct Schema {
        let model: SchemaModel
        let graphQL: GraphQLSchema
    }

    /// Reads, parses and validates. Every problem found is reported, not only the first.
    package static func compile(schemaFiles: [(path: String, text: String)], operationFiles: [(path: String, text: String)])
        throws(CodegenFailure) -> Compilation
    {
        try compile(schema: schema(from: schemaFiles), operationFiles: operationFiles)
    }

    /// Parses and validates the schema files (with Apollo's client directives where the files do
    /// not declare them).
    package static func schema(from schemaFiles: [(path: String, text: String)]) throws(CodegenFailure) -> Schema {
        var diagnostics: [Diagnostic] = []
        guard !schemaFiles.isEmpty else {
            throw CodegenFailure([Diagnostic(file: "schema", message: "no schema file matched the schema search paths")])
        }

        var schemaDocuments: [Document] = []
        for file in schemaFiles {
            do {
                schemaDocuments.append(try parse(source: Source(body: file.text, name: file.path)))
            } catch let error as GraphQLError {
                diagnostics.append(Diagnostic(error, fallbackFile: file.path))
            } catch {
                diagnostics.append(Diagnostic(file: file.path, message: "\(error)"))
            }
        }
        let declared = Set(schemaDocuments.flatMap(\.definitions).compactMap { definition -> String? in
            (definition as? DirectiveDefinition)?.name.value ?? (definition as? EnumTypeDefinition)?.name.value
        })
        let clientSDL = clientDirectives.filter { !declared.contains($0.name) }.map(\.sdl).joined(separator: "\n")
        if !clientSDL.isEmpty, let clientDocument = try? parse(source: Source(body: clientSDL, name: clientDirectivesSource)) {
            schemaDocuments.append(clientDocument)
        }

        let model = SchemaModel.build(from: schemaDocuments, diagnostics: &diagnostics)
        diagnostics += SchemaRules.check(schemaDocuments, model: model)
        guard diagnostics.isEmpty, let first = schemaDocuments.first else { throw CodegenFailure(diagnostics) }

        do {
            let combined = first.set(value: .array(schemaDocuments.flatMap(\.definitions)), key: "definitions")
            return Schema(model: model, graphQL: try buildASTSchema(documentAST: combined, assumeValidSDL: true))
        } catch {
            throw CodegenFailure([Diagnostic(file: schemaFiles[0].path, message: "invalid schema: \(error)")])
        }
    }

    /// Parses the operation files and validates them against `schema`.
    package static func compile(schema: Schema, operationFiles: [(path: String, text: String)]) throws(CodegenFailure) -> Compilation {
        var diagnostics: [Diagnostic] = []
        let graphQLSchema = schema.graphQL
        var operationDocuments: [Document] = []
        for file in operationFiles {
            do {
                operationDocuments.append(try parse(source: Source(body: file.text, name: file.path)))
            } catch let error as GraphQLError {
                diagnostics.append(Diagnostic(error, fallbackFile: file.path))
            } catch {
                diagnostics.append(Diagnostic(file: file.path, message: "\(error)"))
            }
        }
        var operations: [OperationDefinition] = []
        var fragments: [String: FragmentDefinition] = [:]
        var sourceFiles: [String: String] = [:]
        var definitions: [any Definition] = []
        // Each name is defined once, and only definitions with a name reach GraphQLSwift's
        // validator: it keys dictionaries by definitions that hash by identity but compare by
        // content, so two equal definitions (a fragment pasted into two files, two anonymous
        // operations alike) trap in it.
        var firstDefinition: [String: Location?] = [:]
        func isFirst(_ key: String, _ location: Location?, _ what: String) -> Bool {
            guard let first = firstDefinition[key] else {
                firstDefinition[key] = location
                return true
            }
            diagnostics.append(Diagnostic(
                at: location, fallbackFile: "operations", "\(what) is defined more than once\(Diagnostic.reference("first at", first))"))
            return false
        }
        for document in operationDocuments {
            for definition in document.definitions {
                switch definition {
                case let operation as OperationDefinition:
                    guard let name = operation.name?.value else {
                        diagnostics.append(Diagnostic(at: operation.loc, fallbackFile: "operations", "an operation needs a name to be generated"))
                        continue
                    }
                    guard isFirst("operation " + name, operation.loc, "operation '\(name)'") else { continue }
                    definitions.append(definition)
                    operations.append(operation)
                    sourceFiles[name] = operation.loc?.source.name
                case let fragment as FragmentDefinition:
                    let name = fragment.name.value
                    guard isFirst("fragment " + name, fragment.loc, "fragment '\(name)'") else { continue }
                    definitions.append(definition)
                    fragments[name] = fragment
                    sourceFiles["fragment " + name] = fragment.loc?.source.name
                default:
                    diagnostics.append(Diagnostic(at: nil, fallbackFile: "operations", "only operations and fragments belong in operation files"))
                }
            }
        }
        if let first = operationDocuments.first {
            let combined = first.set(value: .array(definitions), key: "definitions")
            for error in GraphQL.validate(schema: graphQLSchema, ast: combined) where !isUnusedFragment(error) {
                diagnostics.append(Diagnostic(error, fallbackFile: "operations"))
            }
        }
        if diagnostics.isEmpty {
            var merging = FieldMergeRule(schema: schema.model, fragments: fragments)
            merging.check(operations: operations, rootTypes: schema.model.rootTypes)
            diagnostics += merging.diagnostics
            var incremental = IncrementalDeliveryRule(schema: schema.model, fragments: fragments)
            incremental.check(operations, rootTypes: schema.model.rootTypes)
            diagnostics += incremental.diagnostics
            diagnostics += CatchRule.check(operations.map { $0 as Definition } + fragments.values.map { $0 as Definition })
        }
        guard diagnostics.isEmpty else { throw CodegenFailure(diagnostics) }
        return Compilation(
            schema: schema.model, operations: operations.map(GQL.lower).sorted { $0.name < $1.name }, fragments: fragments.mapValues(GQL.lower),
            sourceFiles: sourceFiles)
    }

    /// Fragments may live in files of their own and serve several operations, or none yet: an
    /// unused fragment is generated, not rejected. (GraphQLSwift's rules are internal functions,
    /// so the error is recognized by its message.)
    private static func isUnusedFragment(_ error: GraphQLError) -> Bool {
        error.message.hasPrefix("Fragment \"") && error.message.hasSuffix("\" is never used.")
    }
}
