/// Test mocks (`output.testMocks`): a `Mock.<Object>` struct per object type that the operations'
/// selection sets can meet, with a settable, type-checked property per field they select on it
/// (nested objects are mocks, interfaces and unions are protocols the possible types' mocks
/// conform to), and a `Mock.graphql.swift` with the namespace and those protocols. APICoreTesting
/// builds any operation's data from them.
struct TestMocksTemplate {
    let context: GenerationContext

    func render(_ used: UsedTypes) -> [GeneratedFile] {
        guard context.configuration.testMocks != .none else { return [] }
        let (objects, abstracts) = mockedTypes(used)
        let access = mockAccess
        var files: [GeneratedFile] = []

        var namespace = newFile()
        namespace.line("/// Test mocks of the \(context.namespace) schema's types: set the fields an operation selects, then build its")
        namespace.line("/// data with `Data(mock:)` or answer it with `MockAPIClient.stub(operation:mock:)`.")
        namespace.line("\(GenerationContext.topLevel)\(access)enum Mock {}")
        for name in abstracts.sorted() {
            namespace.line()
            namespace.block("\(GenerationContext.topLevel)extension Mock") { w in
                w.line("/// `\(name)`: the mocks of its possible types conform.")
                w.line("\(access)protocol \(context.types.mockName(name)): MockObject {}")
            }
        }
        files.append(file("Mock.graphql.swift", namespace))

        for name in objects.sorted() {
            let conformances = ["MockObject"] + abstracts.sorted().filter { context.schema.possibleTypes(of: $0).contains(name) }.map { "Mock." + context.types.mockName($0) }
            let fields = (context.schema.type(named: name)?.fields ?? []).filter { mockedFields(of: name, used).contains($0.name) }
            var w = newFile()
            w.block("\(GenerationContext.topLevel)extension Mock") { w in
                w.line("/// A `\(name)` for tests. A field left `nil` is `null` where the schema allows it, and an error")
                w.line("/// naming it where an operation selects it as non-null.")
                w.block("\(access)struct \(context.types.mockName(name)): \(conformances.joined(separator: ", "))") { w in
                    w.line("\(access)static let __typename = \(SwiftNames.stringLiteral(name))")
                    for field in fields {
                        // Objects are held by reference: a type may contain itself.
                        let indirect = context.types.leaf(field.type.namedType) == nil ? "@MockIndirect " : ""
                        w.line("\(indirect)\(access)var \(SwiftNames.member(field.name)): \(propertyType(field.type))")
                    }
                    w.line()
                    guard !fields.isEmpty else {
                        w.line("\(access)init() {}")
                        w.line()
                        w.line("\(access)var _mockFields: [String: MockValue] { [:] }")
                        return
                    }
                    let parameters = fields.map { "\(SwiftNames.member($0.name)): \(propertyType($0.type)) = nil" }
                    w.block("\(access)init(\(parameters.joined(separator: ", ")))") { w in
                        for field in fields { w.line("self.\(SwiftNames.member(field.name)) = \(SwiftNames.member(field.name))") }
                    }
                    w.line()
                    w.block("\(access)var _mockFields: [String: MockValue]") { w in
                        w.line("var fields: [String: MockValue] = [:]")
                        for field in fields {
                            let property = SwiftNames.member(field.name)
                            w.line("if let value = self.\(property) { fields[\(SwiftNames.stringLiteral(field.name))] = \(mockValue("value", .nonNull(field.type.nullable))) }")
                        }
                        w.line("return fields")
                    }
                }
            }
            files.append(file("\(name)+Mock.graphql.swift", w))
        }
        return files
    }

    // MARK: Which types and fields

    /// The object types to mock and the interfaces and unions to make protocols of: every type a
    /// selection set is on, the possible types of the abstract ones, and (transitively) the types
    /// of the mocked fields.
    private func mockedTypes(_ used: UsedTypes) -> (objects: Set<String>, abstracts: Set<String>) {
        let schema = context.schema
        var objects: Set<String> = []
        var abstracts: Set<String> = []
        var pending = Array(used.parentTypes.union(used.selectedFields.keys))
        while let name = pending.popLast() {
            switch schema.type(named: name)?.kind {
            case .object:
                guard objects.insert(name).inserted else { continue }
                for field in schema.type(named: name)?.fields ?? [] where mockedFields(of: name, used).contains(field.name) {
                    if context.types.leaf(field.type.namedType) == nil { pending.append(field.type.namedType) }
                }
            case .interface, .union:
                guard abstracts.insert(name).inserted else { continue }
                pending += schema.possibleTypes(of: name)
            default:
                continue
            }
        }
        return (objects, abstracts)
    }

    /// The fields selected on an object type or on any interface or union it belongs to.
    private func mockedFields(of object: String, _ used: UsedTypes) -> Set<String> {
        context.schema.supertypes(of: object).union([object]).reduce(into: Set<String>()) { $0.formUnion(used.selectedFields[$1] ?? []) }
    }

    // MARK: Swift

    private var mockAccess: String {
        switch context.configuration.testMocks {
        case .absolute(_, let modifier): return modifier == .public ? "public " : ""
        case .swiftPackage, .none: return "public "
        }
    }

    /// The property of a field: optional (unset), holding the field's shape with mocks for objects.
    private func propertyType(_ ref: TypeRef) -> String { swiftType(ref.nullable) }

    private func swiftType(_ ref: TypeRef) -> String {
        switch ref {
        case .nonNull(.named(let name)):
            if let leaf = context.types.leaf(name) { return leaf }
            let mock = context.types.mockName(name)
            return context.schema.type(named: name)?.kind == .object ? "Mock.\(mock)" : "any Mock.\(mock)"
        case .nonNull(.list(let inner)): return "[" + swiftType(inner) + "]"
        case .nonNull(.nonNull(let inner)): return swiftType(.nonNull(inner))
        case .named, .list:
            let inner = swiftType(.nonNull(ref))
            return inner.hasPrefix("any ") ? "(\(inner))?" : inner + "?"
        }
    }

    /// The expression turning `expression` (of `swiftType(ref)`) into a `MockValue`.
    private func mockValue(_ expression: String, _ ref: TypeRef) -> String {
        if context.types.leaf(ref.namedType) != nil { return "MockValue.leaf(\(expression)._outputJSON)" }
        switch ref {
        case .nonNull(.named): return "MockValue.object(\(expression))"
        case .nonNull(.list(let inner)): return "MockValue.list(\(expression).map { \(mockValue("$0", inner)) })"
        case .nonNull(.nonNull(let inner)): return mockValue(expression, .nonNull(inner))
        case .named, .list: return "\(expression).map { \(mockValue("$0", .nonNull(ref))) } ?? MockValue.null"
        }
    }

    // MARK: Files

    private func newFile() -> SwiftWriter {
        var writer = SwiftWriter()
        writer.line(GenerationContext.header)
        writer.line()
        writer.line("import APICore")
        writer.line("import APICoreTesting")
        if let module = schemaModuleImport { writer.line(module) }
        if let shared = context.configuration.sharedSchema { writer.line("import \(shared.module)") }
        writer.line()
        return writer
    }

    /// The module with the schema types the mocks use: `@testable` when they are internal (mocks
    /// are compiled into test targets only).
    private var schemaModuleImport: String? {
        switch context.configuration.moduleType {
        case .swiftPackageManager: return "import \(context.namespace)"
        case .embeddedInTarget(let name, let modifier): return (modifier == .public ? "import " : "@testable import ") + name
        case .other: return nil
        }
    }

    private func file(_ name: String, _ writer: SwiftWriter) -> GeneratedFile {
        // `render` returns early when there is no mock folder.
        GeneratedFile(path: context.layout.mockFile(name) ?? name, contents: writer.text, overwrite: true)
    }
}
