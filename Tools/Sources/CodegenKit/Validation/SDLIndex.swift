import GraphQL

/// What the SDL rules know of a schema: its types (kind, fields, enum values), its directives
/// (locations, arguments, whether repeatable) and its root operation types. Built from SDL
/// documents, definitions and extensions merged, as graphql-js's `buildSchema` and
/// `extendSchema` would; the directives every schema has are always there.
struct SDLIndex {
    enum Kind: String {
        case scalar, object, interface, union, enumeration = "enum", inputObject = "input object"
    }

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
        func fields(_ name: String, _ kind: Kind, _ names: [String]) {
            types[name, default: TypeFacts(kind: kind)].fields.formUnion(names)
        }
        switch definition {
        case let schema as SchemaDefinition:
            hasSchemaDefinition = true
            rootTypes.formUnion(schema.operationTypes.map(\.operation))
        case let ext as SchemaExtensionDefinition:
            rootTypes.formUnion(ext.definition.operationTypes.map(\.operation))
        case let scalar as ScalarTypeDefinition:
            types[scalar.name.value] = types[scalar.name.value] ?? TypeFacts(kind: .scalar)
        case let object as ObjectTypeDefinition: fields(object.name.value, .object, object.fields.map(\.name.value))
        case let ext as TypeExtensionDefinition: fields(ext.definition.name.value, .object, ext.definition.fields.map(\.name.value))
        case let interface as InterfaceTypeDefinition: fields(interface.name.value, .interface, interface.fields.map(\.name.value))
        case let ext as InterfaceExtensionDefinition:
            fields(ext.definition.name.value, .interface, ext.definition.fields.map(\.name.value))
        case let union as UnionTypeDefinition: fields(union.name.value, .union, [])
        case let ext as UnionExtensionDefinition: fields(ext.definition.name.value, .union, [])
        case let enumeration as EnumTypeDefinition:
            types[enumeration.name.value, default: TypeFacts(kind: .enumeration)].values.formUnion(enumeration.values.map(\.name.value))
        case let ext as EnumExtensionDefinition:
            types[ext.definition.name.value, default: TypeFacts(kind: .enumeration)].values.formUnion(ext.definition.values.map(\.name.value))
        case let input as InputObjectTypeDefinition: fields(input.name.value, .inputObject, input.fields.map(\.name.value))
        case let ext as InputObjectExtensionDefinition:
            fields(ext.definition.name.value, .inputObject, ext.definition.fields.map(\.name.value))
        case let directive as DirectiveDefinition:
            directives[directive.name.value] = Self.facts(directive)
        default:
            break
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

    /// The kind a type definition or extension is of (`nil` for anything else).
    static func kind(of definition: Definition) -> (name: Name, kind: Kind, isExtension: Bool)? {
        switch definition {
        case let d as ScalarTypeDefinition: return (d.name, .scalar, false)
        case let d as ObjectTypeDefinition: return (d.name, .object, false)
        case let d as InterfaceTypeDefinition: return (d.name, .interface, false)
        case let d as UnionTypeDefinition: return (d.name, .union, false)
        case let d as EnumTypeDefinition: return (d.name, .enumeration, false)
        case let d as InputObjectTypeDefinition: return (d.name, .inputObject, false)
        case let e as ScalarExtensionDefinition: return (e.definition.name, .scalar, true)
        case let e as TypeExtensionDefinition: return (e.definition.name, .object, true)
        case let e as InterfaceExtensionDefinition: return (e.definition.name, .interface, true)
        case let e as UnionExtensionDefinition: return (e.definition.name, .union, true)
        case let e as EnumExtensionDefinition: return (e.definition.name, .enumeration, true)
        case let e as InputObjectExtensionDefinition: return (e.definition.name, .inputObject, true)
        default: return nil
        }
    }

    /// Every named type a type-system definition refers to, in the order written.
    static func referencedTypeNames(_ definition: Definition) -> [String] {
        namedTypes(in: definition).map(\.name.value)
    }

    /// Every `NamedType` node of a type-system definition: field, argument and input field types,
    /// interfaces, union members and root operation types.
    static func namedTypes(in definition: Definition) -> [NamedType] {
        func arguments(_ values: [InputValueDefinition]) -> [NamedType] { values.compactMap { named($0.type) } }
        func fields(_ fields: [GraphQL.FieldDefinition]) -> [NamedType] {
            fields.flatMap { arguments($0.arguments) + [named($0.type)].compactMap { $0 } }
        }
        switch definition {
        case let schema as SchemaDefinition: return schema.operationTypes.map(\.type)
        case let ext as SchemaExtensionDefinition: return ext.definition.operationTypes.map(\.type)
        case let object as ObjectTypeDefinition: return object.interfaces + fields(object.fields)
        case let ext as TypeExtensionDefinition: return ext.definition.interfaces + fields(ext.definition.fields)
        case let interface as InterfaceTypeDefinition: return interface.interfaces + fields(interface.fields)
        case let ext as InterfaceExtensionDefinition: return ext.definition.interfaces + fields(ext.definition.fields)
        case let union as UnionTypeDefinition: return union.types
        case let ext as UnionExtensionDefinition: return ext.definition.types
        case let input as InputObjectTypeDefinition: return arguments(input.fields)
        case let ext as InputObjectExtensionDefinition: return arguments(ext.definition.fields)
        case let directive as DirectiveDefinition: return arguments(directive.arguments)
        default: return []
        }
    }

    /// The named type inside list and non-null wrappers.
    static func named(_ type: Type) -> NamedType? {
        switch type {
        case let named as NamedType: return named
        case let list as ListType: return self.named(list.type)
        case let nonNull as NonNullType: return self.named(nonNull.type)
        default: return nil
        }
    }
}
