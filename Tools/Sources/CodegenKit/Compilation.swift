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
        let checked = validatedSchema(from: schemaFiles)
        guard let schema = checked.schema else {
            throw CodegenFailure(checked.diagnostics + checked.errors.map { $0.diagnostic(fallbackFile: schemaFiles.first?.path ?? "schema") })
        }
        return schema
    }

    /// The schema files parsed and checked as graphql-js checks a schema (its SDL rules, then its
    /// type-system rules, and what later versions add about default values), then by the
    /// generator's own rules; the schema when nothing is wrong. `diagnostics` are the problems
    /// that are no validation rule's: files that do not parse, the generator's own rules.
    package static func validatedSchema(from schemaFiles: [(path: String, text: String)])
        -> (schema: Schema?, errors: [ValidationError], diagnostics: [Diagnostic])
    {
        var diagnostics: [Diagnostic] = []
        guard !schemaFiles.isEmpty else {
            return (nil, [], [Diagnostic(file: "schema", message: "no schema file matched the schema search paths")])
        }

        var schemaDocuments: [Document] = []
        for file in schemaFiles {
            if let problem = DocumentTokens.nestingProblem(file.text, file: file.path) {
                diagnostics.append(problem)
                continue
            }
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
        guard let first = schemaDocuments.first else { return (nil, [], diagnostics) }

        // graphql-js stops at the SDL rules' errors (its builder refuses such a document); every
        // problem is reported here, the files that parse checked whatever the others hold.
        let combined = first.set(value: .array(schemaDocuments.flatMap(\.definitions)), key: "definitions")
        let types = combined.definitions.compactMap(TypeParts.init)
        // The rules and the model read the same syntax tree, at once.
        let (errors, (model, modelDiagnostics)) = concurrently(
            { SDLRules.validate(combined, types: types) + SchemaValidation.validate(schemaDocuments, types: types) },
            {
                var diagnostics: [Diagnostic] = []
                let model = SchemaModel.build(from: schemaDocuments, diagnostics: &diagnostics)
                return (model, diagnostics)
            })
        // What the model finds (unknown types, types defined twice) the rules found first.
        if errors.isEmpty { diagnostics += modelDiagnostics }
        diagnostics += SchemaRules.check(schemaDocuments, model: model)
        guard errors.isEmpty, diagnostics.isEmpty else { return (nil, errors, diagnostics) }

        do {
            return (Schema(model: model, graphQL: try GraphQLSwiftSchema.build(schemaDocuments, model: model)), [], [])
        } catch {
            return (nil, [], [Diagnostic(file: schemaFiles[0].path, message: "invalid schema: \(error)")])
        }
    }

    /// Parses the operation files and validates them against `schema`.
    package static func compile(schema: Schema, operationFiles: [(path: String, text: String)]) throws(CodegenFailure) -> Compilation {
        var diagnostics: [Diagnostic] = []
        var operationDocuments: [Document] = []
        var descriptions: [String: [Int: String]] = [:]
        for file in operationFiles {
            if let problem = DocumentTokens.nestingProblem(file.text, file: file.path) {
                diagnostics.append(problem)
                continue
            }
            do {
                let described = ExecutableDescriptions(file.text)
                if !described.descriptions.isEmpty { descriptions[file.path] = described.descriptions }
                operationDocuments.append(try parse(source: Source(body: described.text, name: file.path)))
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
            // Fragments may live in files of their own and serve several operations, or none yet:
            // an unused fragment is generated, not rejected.
            let combined = first.set(value: .array(definitions), key: "definitions")
            diagnostics += DocumentRules.validate(combined, schema: schema, excluding: ["NoUnusedFragmentsRule"])
                .map { $0.diagnostic(fallbackFile: "operations") }
        }
        if diagnostics.isEmpty {
            var incremental = IncrementalDeliveryRule(schema: schema.model, fragments: fragments)
            incremental.check(operations, rootTypes: schema.model.rootTypes)
            diagnostics += incremental.diagnostics
            diagnostics += CatchRule.check(operations.map { $0 as Definition } + fragments.values.map { $0 as Definition })
        }
        guard diagnostics.isEmpty else { throw CodegenFailure(diagnostics) }
        func described(_ location: Location?) -> String? { location.flatMap { descriptions[$0.source.name]?[$0.start] } }
        return Compilation(
            schema: schema.model, operations: operations.map { GQL.lower($0, descriptions: described) }.sorted { $0.name < $1.name },
            fragments: fragments.mapValues { GQL.lower($0, descriptions: described) },
            sourceFiles: sourceFiles)
    }
}
