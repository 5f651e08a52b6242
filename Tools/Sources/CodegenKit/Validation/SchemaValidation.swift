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

    /// A named type's definition and extensions, in document order.
    struct TypeNodes {
        let name: String
        let kind: SDLIndex.Kind
        var definition: TypeParts?
        var extensions: [TypeParts] = []

        var all: [TypeParts] { (definition.map { [$0] } ?? []) + extensions }
        var locations: [Location?] { all.map(\.location) }
    }

    private(set) var types: [String: TypeNodes] = [:]
    private(set) var order: [String] = []
    private var schemaNodes: [SchemaDefinition] = []
    private var hasSchemaDefinition = false
    private(set) var directiveDefinitions: [DirectiveDefinition] = []
    var errors: [ValidationError] = []

    /// The schema of `documents` (which passed the SDL rules).
    init(_ documents: [Document]) {
        for definition in documents.flatMap(\.definitions) {
            switch definition {
            case let schema as SchemaDefinition:
                hasSchemaDefinition = true
                schemaNodes.append(schema)
            case let ext as SchemaExtensionDefinition: schemaNodes.append(ext.definition)
            case let directive as DirectiveDefinition: directiveDefinitions.append(directive)
            default:
                guard let parts = TypeParts(definition) else { continue }
                let name = parts.name.value
                if types[name] == nil {
                    types[name] = TypeNodes(name: name, kind: parts.kind)
                    order.append(name)
                }
                if parts.isExtension { types[name]!.extensions.append(parts) } else { types[name]!.definition = parts }
            }
        }
    }

    /// Every error of the schema.
    static func validate(_ documents: [Document]) -> [ValidationError] {
        var validation = SchemaValidation(documents)
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

    func fields(of name: String) -> [GraphQL.FieldDefinition] { (types[name]?.all ?? []).flatMap(\.fields) }

    func interfaceNodes(of name: String) -> [NamedType] { (types[name]?.all ?? []).flatMap(\.interfaces) }

    func interfaces(of name: String) -> [String] { interfaceNodes(of: name).map(\.name.value) }

    func members(of name: String) -> [NamedType] { (types[name]?.all ?? []).flatMap(\.members) }

    func inputFields(of name: String) -> [InputValueDefinition] { (types[name]?.all ?? []).flatMap(\.inputFields) }

    func values(of name: String) -> [EnumValueDefinition] { (types[name]?.all ?? []).flatMap(\.values) }

    func isOneOf(_ name: String) -> Bool {
        (types[name]?.all ?? []).contains { $0.directives.contains { $0.name.value == "oneOf" } }
    }

    func kind(of name: String) -> SDLIndex.Kind? {
        types[name]?.kind ?? (SDLIndex.standardTypeNames.contains(name) && !name.hasPrefix("__") ? .scalar : nil)
    }

    func isInputType(_ type: Type) -> Bool {
        guard let named = TypeParts.named(type), let kind = kind(of: named.name.value) else { return true }
        return [.scalar, .enumeration, .inputObject].contains(kind)
    }

    func isOutputType(_ type: Type) -> Bool {
        guard let named = TypeParts.named(type), let kind = kind(of: named.name.value) else { return true }
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

    mutating func validateName(_ name: String, _ location: Location?) {
        if name.hasPrefix("__") {
            report("Name \"\(name)\" must not begin with \"__\", which is reserved by GraphQL introspection.", [location])
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
        let fields = fields(of: type.name)
        if fields.isEmpty && !(type.kind == .object && rootTypeNames.contains(type.name)) {
            report("Type \(type.name) must define one or more fields.", type.locations)
        }
        for field in fields {
            validateName(field.name.value, field.loc)
            if !isOutputType(field.type) {
                report("The type of \(type.name).\(field.name.value) must be Output Type but got: \(TypeRef(field.type)).", [field.type.loc])
            }
            for argument in field.arguments {
                validateName(argument.name.value, argument.loc)
                if !isInputType(argument.type) {
                    report(
                        "The type of \(type.name).\(field.name.value)(\(argument.name.value):) must be Input Type but got: \(TypeRef(argument.type)).",
                        [argument.type.loc])
                }
                requiredNotDeprecated(argument, "Required argument \(type.name).\(field.name.value)(\(argument.name.value):) cannot be deprecated.")
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
