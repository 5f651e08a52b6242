import GraphQL

/// The type system's rules (graphql-js's `validateSchema`), over the definitions of a schema that
/// passed the SDL rules: root types, names, fields, interfaces and what implements them, unions,
/// enums and input objects (non-null cycles, `@oneOf`). Each error is at the places graphql-js
/// names: a type's definition and its extensions, a field's type, an argument, an interface
/// where it is declared. `SchemaDefaults` adds what graphql-js 16 leaves to later versions:
/// default values of the right type, default values that never end, `@oneOf` objects that can be
/// built.
struct SchemaValidation {
    static let rule = "validateSchema"

    /// A named type's definition and extensions, in document order (a class: rules look it up
    /// often, and a lookup should not copy all it holds).
    final class TypeNodes {
        let name: String
        let kind: SDLIndex.Kind
        var definition: TypeParts?
        var extensions: [TypeParts] = []

        init(name: String, kind: SDLIndex.Kind) {
            self.name = name
            self.kind = kind
        }

        var all: [TypeParts] { (definition.map { [$0] } ?? []) + extensions }
        var locations: [Location?] { all.map(\.location) }

        /// The parts of the definition and its extensions together, in that order (`merge()`).
        private(set) var fields: [GraphQL.FieldDefinition] = []
        private(set) var interfaces: [NamedType] = []
        private(set) var members: [NamedType] = []
        private(set) var inputFields: [InputValueDefinition] = []
        private(set) var values: [EnumValueDefinition] = []
        private(set) var isOneOf = false
        /// The fields as implementing an interface compares them, read once when first asked
        /// (the syntax tree's nodes are costly to copy): by name, and their names in order.
        private(set) lazy var fieldFacts: [String: FieldFacts] = {
            var facts: [String: FieldFacts] = [:]
            for index in fields.indices where facts[fields[index].name.value] == nil { facts[fields[index].name.value] = FieldFacts(fields[index]) }
            return facts
        }()
        private(set) lazy var fieldOrder: [String] = {
            var seen: Set<String> = []
            return fields.indices.map { fields[$0].name.value }.filter { seen.insert($0).inserted }
        }()
        private(set) lazy var interfaceNames = Set(interfaces.map(\.name.value))
        private(set) lazy var memberNames = Set(members.map(\.name.value))

        func merge() {
            if extensions.isEmpty, let definition {
                // Most types: no copy to make.
                (fields, interfaces, members, inputFields, values) = (
                    definition.fields, definition.interfaces, definition.members, definition.inputFields, definition.values
                )
                isOneOf = definition.directives.contains { $0.name.value == "oneOf" }
                return
            }
            let all = all
            fields = all.flatMap(\.fields)
            interfaces = all.flatMap(\.interfaces)
            members = all.flatMap(\.members)
            inputFields = all.flatMap(\.inputFields)
            values = all.flatMap(\.values)
            isOneOf = all.contains { $0.directives.contains { $0.name.value == "oneOf" } }
        }
    }

    /// A field as the rules compare it.
    struct FieldFacts {
        struct Argument {
            let name: String
            let type: TypeRef
            let location: Location?
            let typeLocation: Location?
            let isRequired: Bool
        }

        let name: String
        let type: TypeRef
        let location: Location?
        let typeLocation: Location?
        let arguments: [Argument]

        init(_ field: GraphQL.FieldDefinition) {
            name = field.name.value
            type = TypeRef(field.type)
            location = field.loc
            typeLocation = field.type.loc
            arguments = field.arguments.map { argument in
                Argument(
                    name: argument.name.value, type: TypeRef(argument.type), location: argument.loc, typeLocation: argument.type.loc,
                    isRequired: argument.type is NonNullType && argument.defaultValue == nil)
            }
        }
    }

    private(set) var types: [String: TypeNodes] = [:]
    private(set) var order: [String] = []
    private var schemaNodes: [SchemaDefinition] = []
    private var hasSchemaDefinition = false
    private(set) var directiveDefinitions: [DirectiveDefinition] = []
    var errors: [ValidationError] = []

    /// The schema of `documents` (which passed the SDL rules).
    init(_ documents: [Document], types: [TypeParts]? = nil) {
        let definitions = documents.flatMap(\.definitions)
        for parts in types ?? definitions.compactMap(TypeParts.init) {
            let name = parts.name.value
            if self.types[name] == nil {
                self.types[name] = TypeNodes(name: name, kind: parts.kind)
                order.append(name)
            }
            if parts.isExtension { self.types[name]!.extensions.append(parts) } else { self.types[name]!.definition = parts }
        }
        for definition in definitions {
            switch definition {
            case let schema as SchemaDefinition:
                hasSchemaDefinition = true
                schemaNodes.append(schema)
            case let ext as SchemaExtensionDefinition: schemaNodes.append(ext.definition)
            case let directive as DirectiveDefinition: directiveDefinitions.append(directive)
            default: continue
            }
        }
        for name in order { self.types[name]?.merge() }
    }

    /// Every error of the schema.
    static func validate(_ documents: [Document], types: [TypeParts]? = nil) -> [ValidationError] {
        var validation = SchemaValidation(documents, types: types)
        validation.rootTypes()
        validation.directives()
        validation.typeRules()
        var defaults = SchemaDefaults(validation)
        defaults.check()
        return validation.errors + defaults.errors
    }

    mutating func report(_ message: String, _ locations: [Location?]) {
        errors.append(ValidationError(rule: Self.rule, message, at: locations))
    }

    // MARK: Reading the definitions

    func fields(of name: String) -> [GraphQL.FieldDefinition] { types[name]?.fields ?? [] }

    func interfaceNodes(of name: String) -> [NamedType] { types[name]?.interfaces ?? [] }

    func interfaces(of name: String) -> [String] { interfaceNodes(of: name).map(\.name.value) }

    func members(of name: String) -> [NamedType] { types[name]?.members ?? [] }

    func inputFields(of name: String) -> [InputValueDefinition] { types[name]?.inputFields ?? [] }

    func values(of name: String) -> [EnumValueDefinition] { types[name]?.values ?? [] }

    func isOneOf(_ name: String) -> Bool { types[name]?.isOneOf ?? false }

    func kind(of name: String) -> SDLIndex.Kind? {
        types[name]?.kind ?? (SDLIndex.standardTypeNames.contains(name) && !name.hasPrefix("__") ? .scalar : nil)
    }

    func isInputType(_ type: Type) -> Bool {
        guard let named = TypeParts.named(type), let kind = kind(of: named.name.value) else { return true }
        return [.scalar, .enumeration, .inputObject].contains(kind)
    }

    func isInputType(_ type: TypeRef) -> Bool {
        guard let kind = kind(of: type.namedType) else { return true }
        return [.scalar, .enumeration, .inputObject].contains(kind)
    }

    func isOutputType(_ type: TypeRef) -> Bool {
        guard let kind = kind(of: type.namedType) else { return true }
        return kind != .inputObject
    }

    // MARK: Root types and directives

    /// Each operation's root type: as the schema definition and its extensions say; without a
    /// schema definition, the type named after the operation when there is one (as graphql-js's
    /// `buildASTSchema` decides, over what an `extend schema` names).
    private func rootType(_ operation: OperationType) -> (name: String?, node: OperationTypeDefinition?) {
        let node = schemaNodes.flatMap(\.operationTypes).first { $0.operation == operation }
        let label = operation.rawValue.prefix(1).uppercased() + operation.rawValue.dropFirst()
        if !hasSchemaDefinition, types[label] != nil { return (label, nil) }
        return (node?.type.name.value, node)
    }

    private mutating func rootTypes() {
        for (operation, label) in [(OperationType.query, "Query"), (.mutation, "Mutation"), (.subscription, "Subscription")] {
            let (name, node) = rootType(operation)
            guard let name, let kind = kind(of: name) else {
                if operation == .query { report("Query root type must be provided.", [schemaNodes.first?.loc]) }
                continue
            }
            if kind != .object {
                let suffix = operation == .query ? "" : " if provided"
                report("\(label) root type must be Object type\(suffix), it cannot be \(name).", [node?.type.loc ?? types[name]?.locations.first ?? nil])
            }
        }
    }

    private mutating func directives() {
        for directive in directiveDefinitions {
            validateName(directive.name.value, directive.loc)
            for argument in directive.arguments {
                validateName(argument.name.value, argument.loc)
                if !isInputType(argument.type) {
                    report("The type of @\(directive.name.value)(\(argument.name.value):) must be Input Type but got: \(TypeRef(argument.type)).", [argument.loc])
                }
                requiredNotDeprecated(argument, "Required argument @\(directive.name.value)(\(argument.name.value):) cannot be deprecated.")
            }
        }
    }

    mutating func validateName(_ name: String, _ location: @autoclosure () -> Location?) {
        if name.hasPrefix("__") {
            report("Name \"\(name)\" must not begin with \"__\", which is reserved by GraphQL introspection.", [location()])
        }
    }

    private mutating func requiredNotDeprecated(_ value: InputValueDefinition, _ message: String) {
        guard value.type is NonNullType, value.defaultValue == nil,
            let deprecated = value.directives.first(where: { $0.name.value == "deprecated" })
        else { return }
        report(message, [deprecated.loc, value.type.loc])
    }

    /// The root types' names: a root type without fields is the shared slice's placeholder that
    /// kits extend (SchemaSplitter), and is allowed.
    private var rootTypeNames: Set<String> {
        Set([OperationType.query, .mutation, .subscription].compactMap { rootType($0).name })
    }

    // MARK: Types

    private mutating func typeRules() {
        var cycles = NonNullCycles()
        for name in order {
            guard let type = types[name] else { continue }
            validateName(name, type.definition?.location)
            switch type.kind {
            case .object, .interface:
                fieldRules(type)
                interfaceRules(type)
            case .union: unionRules(type)
            case .enumeration: enumRules(type)
            case .inputObject:
                inputRules(type)
                cycles.check(name, in: self, errors: &errors)
            case .scalar: continue
            }
        }
    }

    private mutating func fieldRules(_ type: TypeNodes) {
        let fields = type.fields
        if fields.isEmpty && !(type.kind == .object && rootTypeNames.contains(type.name)) {
            report("Type \(type.name) must define one or more fields.", type.locations)
        }
        // Through indices: a field of the syntax tree is costly to copy.
        for index in fields.indices {
            let name = fields[index].name.value
            validateName(name, fields[index].loc)
            if let named = TypeParts.named(fields[index].type), kind(of: named.name.value) == .inputObject {
                report("The type of \(type.name).\(name) must be Output Type but got: \(TypeRef(fields[index].type)).", [fields[index].type.loc])
            }
            let arguments = fields[index].arguments
            for argument in arguments.indices {
                validateName(arguments[argument].name.value, arguments[argument].loc)
                if !isInputType(arguments[argument].type) {
                    report(
                        "The type of \(type.name).\(name)(\(arguments[argument].name.value):) must be Input Type but got: \(TypeRef(arguments[argument].type)).",
                        [arguments[argument].type.loc])
                }
                requiredNotDeprecated(arguments[argument], "Required argument \(type.name).\(name)(\(arguments[argument].name.value):) cannot be deprecated.")
            }
        }
    }

    private mutating func unionRules(_ type: TypeNodes) {
        let members = members(of: type.name)
        if members.isEmpty { report("Union type \(type.name) must define one or more member types.", type.locations) }
        var included: Set<String> = []
        for member in members {
            let name = member.name.value
            let nodes = members.filter { $0.name.value == name }.map(\.loc)
            if !included.insert(name).inserted {
                report("Union type \(type.name) can only include type \(name) once.", nodes)
                continue
            }
            if kind(of: name) != .object {
                report("Union type \(type.name) can only include Object types, it cannot include \(name).", nodes)
            }
        }
    }

    private mutating func enumRules(_ type: TypeNodes) {
        let values = values(of: type.name)
        if values.isEmpty { report("Enum type \(type.name) must define one or more values.", type.locations) }
        for value in values { validateName(value.name.value, value.loc) }
    }

    private mutating func inputRules(_ type: TypeNodes) {
        let fields = inputFields(of: type.name)
        if fields.isEmpty { report("Input Object type \(type.name) must define one or more fields.", type.locations) }
        let oneOf = isOneOf(type.name)
        for field in fields {
            validateName(field.name.value, field.loc)
            if !isInputType(field.type) {
                report("The type of \(type.name).\(field.name.value) must be Input Type but got: \(TypeRef(field.type)).", [field.type.loc])
            }
            requiredNotDeprecated(field, "Required input field \(type.name).\(field.name.value) cannot be deprecated.")
            if oneOf {
                if field.type is NonNullType { report("OneOf input field \(type.name).\(field.name.value) must be nullable.", [field.type.loc]) }
                if field.defaultValue != nil { report("OneOf input field \(type.name).\(field.name.value) cannot have a default value.", [field.loc]) }
            }
        }
    }
}

/// Input objects that contain themselves through non-null fields (no finite value is valid),
/// each cycle reported once, at its fields.
struct NonNullCycles {
    private var visited: Set<String> = []
    private var path: [InputValueDefinition] = []
    private var indexByType: [String: Int] = [:]

    mutating func check(_ name: String, in schema: SchemaValidation, errors: inout [ValidationError]) {
        guard visited.insert(name).inserted else { return }
        indexByType[name] = path.count
        for field in schema.inputFields(of: name) {
            guard let nonNull = field.type as? NonNullType, let named = nonNull.type as? NamedType,
                schema.kind(of: named.name.value) == .inputObject
            else { continue }
            path.append(field)
            if let start = indexByType[named.name.value] {
                let cycle = path[start...]
                errors.append(ValidationError(
                    rule: SchemaValidation.rule,
                    "Cannot reference Input Object \"\(named.name.value)\" within itself through a series of non-null fields: \"\(cycle.map(\.name.value).joined(separator: "."))\".",
                    at: cycle.map(\.loc)))
            } else {
                check(named.name.value, in: schema, errors: &errors)
            }
            path.removeLast()
        }
        indexByType[name] = nil
    }
}
