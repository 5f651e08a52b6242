import GraphQL

/// What the SDL rules know of a schema: its types (kind, fields, enum values), its directives
/// (locations, arguments, whether repeatable) and its root operation types. Built from SDL
/// documents, definitions and extensions merged, as graphql-js's `buildSchema` and
/// `extendSchema` would; the directives every schema has are always there.
struct SDLIndex {
    typealias Kind = TypeParts.Kind

    struct TypeFacts {
        var kind: Kind
        var fields: Set<String> = []
        var values: Set<String> = []
    }

    struct DirectiveFacts {
        var locations: Set<String>
        var arguments: [String]
        /// Required arguments (non-null, no default) with their types as written.
        var required: [(name: String, type: String)]
        var repeatable: Bool
    }

    var types: [String: TypeFacts] = [:]
    var directives: [String: DirectiveFacts] = SDLIndex.specifiedDirectives
    var rootTypes: Set<OperationType> = []
    var hasSchemaDefinition = false

    /// The scalars every schema has, and the introspection types.
    static let standardTypeNames: Set<String> = [
        "String", "Int", "Float", "Boolean", "ID", "__Schema", "__Directive", "__DirectiveLocation", "__Type", "__Field",
        "__InputValue", "__EnumValue", "__TypeKind",
    ]

    /// `@include`, `@skip`, `@deprecated`, `@specifiedBy` and `@oneOf`.
    static let specifiedDirectives: [String: DirectiveFacts] = [
        "include": DirectiveFacts(
            locations: ["FIELD", "FRAGMENT_SPREAD", "INLINE_FRAGMENT"], arguments: ["if"], required: [("if", "Boolean!")], repeatable: false),
        "skip": DirectiveFacts(
            locations: ["FIELD", "FRAGMENT_SPREAD", "INLINE_FRAGMENT"], arguments: ["if"], required: [("if", "Boolean!")], repeatable: false),
        "deprecated": DirectiveFacts(
            locations: ["FIELD_DEFINITION", "ARGUMENT_DEFINITION", "INPUT_FIELD_DEFINITION", "ENUM_VALUE"], arguments: ["reason"],
            required: [], repeatable: false),
        "specifiedBy": DirectiveFacts(locations: ["SCALAR"], arguments: ["url"], required: [("url", "String!")], repeatable: false),
        "oneOf": DirectiveFacts(locations: ["INPUT_OBJECT"], arguments: [], required: [], repeatable: false),
    ]

    init() {}

    /// The schema `documents` build: every type and directive they define or extend.
    init(_ documents: [Document]) {
        for definition in documents.flatMap(\.definitions) { add(definition) }
        // Without a schema definition, the types named after the operations are the roots.
        if !hasSchemaDefinition {
            for (operation, name) in [(OperationType.query, "Query"), (.mutation, "Mutation"), (.subscription, "Subscription")]
            where types[name]?.kind == .object {
                rootTypes.insert(operation)
            }
        }
        // The built-in scalars a schema refers to, and those introspection always has.
        for name in ["String", "Boolean"] where types[name] == nil { types[name] = TypeFacts(kind: .scalar) }
    }

    /// A definition's contribution; an extension of a type not yet known defines it.
    mutating func add(_ definition: Definition) {
        switch definition {
        case let schema as SchemaDefinition:
            hasSchemaDefinition = true
            rootTypes.formUnion(schema.operationTypes.map(\.operation))
        case let ext as SchemaExtensionDefinition:
            rootTypes.formUnion(ext.definition.operationTypes.map(\.operation))
        case let directive as DirectiveDefinition:
            directives[directive.name.value] = Self.facts(directive)
        default:
            guard let parts = TypeParts(definition) else { break }
            var facts = types[parts.name.value] ?? TypeFacts(kind: parts.kind)
            facts.fields.formUnion(parts.fieldNames.map(\.value))
            facts.values.formUnion(parts.values.map(\.name.value))
            types[parts.name.value] = facts
        }
        for name in Self.referencedTypeNames(definition) where types[name] == nil && Self.standardTypeNames.contains(name) && !name.hasPrefix("__") {
            types[name] = TypeFacts(kind: .scalar)
        }
    }

    static func facts(_ directive: DirectiveDefinition) -> DirectiveFacts {
        DirectiveFacts(
            locations: Set(directive.locations.map(\.value)), arguments: directive.arguments.map(\.name.value),
            required: directive.arguments.filter { $0.type is NonNullType && $0.defaultValue == nil }.map { ($0.name.value, print(ast: $0.type)) },
            repeatable: directive.repeatable)
    }

    /// Every named type a type-system definition refers to, in the order written.
    static func referencedTypeNames(_ definition: Definition) -> [String] {
        namedTypes(in: definition).map(\.name.value)
    }

    /// Every `NamedType` node of a type-system definition: field, argument and input field types,
    /// interfaces, union members, root operation types and directive arguments' types.
    static func namedTypes(in definition: Definition) -> [NamedType] {
        switch definition {
        case let schema as SchemaDefinition: return schema.operationTypes.map(\.type)
        case let ext as SchemaExtensionDefinition: return ext.definition.operationTypes.map(\.type)
        case let directive as DirectiveDefinition: return directive.arguments.compactMap { TypeParts.named($0.type) }
        default: return TypeParts(definition)?.namedTypes ?? []
        }
    }
}
