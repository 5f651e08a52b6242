import Foundation
import GraphQL

/// The schema as the generator needs it: every named type with its fields, descriptions,
/// deprecations and cache key fields, built from the SDL so that every problem has a position.
final class SchemaModel {
    enum Kind: String {
        case scalar, object, interface, union, enumeration = "enum", inputObject = "input object"
    }

    struct InputValue {
        var name: String
        var location: Location? = nil
        var description: String?
        var type: TypeRef
        var typeLocation: Location? = nil
        var hasDefault: Bool
        var deprecationReason: String?
    }

    struct FieldDefinition {
        var name: String
        var location: Location? = nil
        var description: String?
        var type: TypeRef
        var typeLocation: Location? = nil
        var arguments: [InputValue]
        var deprecationReason: String?
        /// `@semanticNonNull(levels:)`: the list depths the server sets to null only with an error.
        var semanticNonNullLevels: Set<Int> = []
        /// `@cacheControl(maxAge:)` on the field, in seconds.
        var cacheMaxAge: Int? = nil
    }

    struct EnumValue {
        var name: String
        var description: String?
        var deprecationReason: String?
    }

    final class TypeDefinition {
        let name: String
        let kind: Kind
        var description: String?
        var fields: [FieldDefinition] = []
        var interfaces: [String] = []
        var members: [String] = []
        var enumValues: [EnumValue] = []
        var inputFields: [InputValue] = []
        var keyFields: [String]?
        /// Fields whose pages the cache merges into one list (`@typePolicy(connectionFields:)`).
        var connectionFields: [String] = []
        /// An input object marked `@oneOf`: a value sets exactly one of its fields.
        var isOneOf = false
        /// `@fieldPolicy(forField:keyArgs:)`: by field name, the arguments whose values are the key
        /// fields of the object the field returns, with where the directive was written.
        var fieldPolicies: [String: (keyArgs: [String], location: Location?)] = [:]
        /// `@cacheControl(maxAge:)` on the type, in seconds: every field returning it, unless the
        /// field says otherwise.
        var cacheMaxAge: Int?
        let location: Location?

        init(name: String, kind: Kind, description: String?, location: Location?) {
            self.name = name
            self.kind = kind
            self.description = description
            self.location = location
        }

        func field(named name: String) -> FieldDefinition? { fields.first { $0.name == name } }
    }

    static let builtInScalars = ["String", "Int", "Float", "Boolean", "ID"]

    private(set) var types: [String: TypeDefinition] = [:]
    private(set) var rootTypes: [OperationType: String] = [.query: "Query", .mutation: "Mutation", .subscription: "Subscription"]
    /// `schema @catchByDefault(to:)`: where an error goes at a field without `@catch` (`THROW`, up
    /// to the operation, when the schema does not say).
    private(set) var catchByDefault: CatchTo = .throw
    /// The built-in scalars the schema's own files name (`String` and `Boolean` always, as
    /// introspection does): graphql-js knows no other, so a variable of another is unknown.
    private(set) var mentionedScalars: Set<String> = ["String", "Boolean"]

    /// Whether `name` is a type of this schema as graphql-js builds it, for a built-in scalar.
    func mentionsScalar(_ name: String) -> Bool {
        !Self.builtInScalars.contains(name) || mentionedScalars.contains(name)
    }

    /// The root type of an operation kind (`Query` unless the schema names another).
    func rootType(of kind: GQL.OperationKind) -> String {
        rootTypes.first { $0.key.rawValue == kind.rawValue }?.value ?? kind.rawValue.upperFirst
    }
    private var possibleTypesCache: [String: Set<String>] = [:]
    private var supertypesCache: [String: Set<String>] = [:]

    func type(named name: String) -> TypeDefinition? { types[name] }

    /// The object types an object, interface or union can be at runtime.
    func possibleTypes(of name: String) -> Set<String> {
        if let cached = possibleTypesCache[name] { return cached }
        guard let type = types[name] else { return [] }
        let result: Set<String>
        switch type.kind {
        case .object: result = [name]
        case .union: result = Set(type.members)
        case .interface:
            result = Set(types.values.filter { $0.kind == .object && supertypes(of: $0.name).contains(name) }.map(\.name))
        default: result = []
        }
        possibleTypesCache[name] = result
        return result
    }

    /// The type itself and every type that holds wherever it does, whatever types the schema adds
    /// later: the interfaces it implements (at any depth) and, for an object, the unions that
    /// include it. A type condition in this set always applies; any other narrows.
    func supertypes(of name: String) -> Set<String> {
        if let cached = supertypesCache[name] { return cached }
        var result: Set<String> = [name]
        var pending = [name]
        while let next = pending.popLast() {
            for interface in types[next]?.interfaces ?? [] where result.insert(interface).inserted {
                pending.append(interface)
            }
        }
        if types[name]?.kind == .object {
            for union in types.values where union.kind == .union && union.members.contains(name) {
                result.insert(union.name)
            }
        }
        supertypesCache[name] = result
        return result
    }

    /// The names of the types whose definitions are in these files.
    func typesDefined(inFiles files: Set<String>) -> Set<String> {
        Set(types.values.filter { type in type.location.map { files.contains($0.source.name) } ?? false }.map(\.name))
    }

    /// A field of an object or interface, `__typename` included.
    func field(_ name: String, on typeName: String) -> FieldDefinition? {
        if name == "__typename" { return FieldDefinition(name: name, description: nil, type: .nonNull(.named("String")), arguments: [], deprecationReason: nil) }
        return types[typeName]?.field(named: name)
    }

    /// The connection fields of a type (`@typePolicy(connectionFields:)`), its interfaces' included.
    func connectionFields(of name: String) -> Set<String> {
        guard let type = types[name] else { return [] }
        var fields = Set(type.connectionFields)
        for interface in type.interfaces { fields.formUnion(types[interface]?.connectionFields ?? []) }
        return fields
    }

    /// The arguments that choose a page of a connection field: those of its arguments with the
    /// names Relay and offset paging use (`first`, `after`, `last`, `before`, `offset`, `limit`,
    /// `page`).
    static let pageArgumentNames: Set<String> = ["first", "after", "last", "before", "offset", "limit", "page"]

    /// The key fields that `@typePolicy(keyFields:)` declares for a type (or an interface it
    /// implements); empty when none does (the implicit `id` of ``keyFields(of:)`` aside).
    func declaredKeyFields(of name: String) -> [String] {
        guard let type = types[name] else { return [] }
        if let keys = type.keyFields { return keys }
        for interface in type.interfaces.sorted() {
            if let keys = types[interface]?.keyFields { return keys }
        }
        return []
    }

    /// The fields that key an object of this type in the cache: the declared ones, else `id` when
    /// the type (not a union) has one.
    func keyFields(of name: String) -> [String] {
        let declared = declaredKeyFields(of: name)
        guard declared.isEmpty, let type = types[name], type.kind != .union else { return declared }
        return type.field(named: "id") != nil ? ["id"] : []
    }

    // MARK: Building

    /// Builds the model from parsed SDL documents; problems are appended to `diagnostics`.
    static func build(from documents: [Document], diagnostics: inout [Diagnostic]) -> SchemaModel {
        let model = SchemaModel()
        for scalar in builtInScalars {
            model.types[scalar] = TypeDefinition(name: scalar, kind: .scalar, description: nil, location: nil)
        }
        var extensions: [(name: String, location: Location?, apply: (TypeDefinition) -> Void)] = []
        // The client directives' own types (`CatchTo`) are for validating operations, not the app's.
        for document in documents where document.loc?.source.name != Compilation.clientDirectivesSource {
            for definition in document.definitions {
                switch definition {
                case let object as ObjectTypeDefinition:
                    model.define(object.name, .object, object.description, object.loc, &diagnostics) { type in
                        type.fields = object.fields.map(fieldDefinition)
                        type.interfaces = object.interfaces.map(\.name.value)
                        type.keyFields = keyFields(object.directives)
                        type.connectionFields = policyList("connectionFields", object.directives) ?? []
                        type.fieldPolicies.merge(fieldPolicies(object.directives)) { _, new in new }
                        type.cacheMaxAge = cacheMaxAge(object.directives)
                    }
                case let interface as InterfaceTypeDefinition:
                    model.define(interface.name, .interface, interface.description, interface.loc, &diagnostics) { type in
                        type.fields = interface.fields.map(fieldDefinition)
                        type.interfaces = interface.interfaces.map(\.name.value)
                        type.keyFields = keyFields(interface.directives)
                        type.connectionFields = policyList("connectionFields", interface.directives) ?? []
                        type.fieldPolicies.merge(fieldPolicies(interface.directives)) { _, new in new }
                        type.cacheMaxAge = cacheMaxAge(interface.directives)
                    }
                case let union as UnionTypeDefinition:
                    model.define(union.name, .union, union.description, union.loc, &diagnostics) { type in
                        type.members = union.types.map(\.name.value)
                        type.cacheMaxAge = cacheMaxAge(union.directives)
                    }
                case let enumeration as EnumTypeDefinition:
                    model.define(enumeration.name, .enumeration, enumeration.description, enumeration.loc, &diagnostics) { type in
                        type.enumValues = enumeration.values.map(enumValue)
                    }
                case let input as InputObjectTypeDefinition:
                    model.define(input.name, .inputObject, input.description, input.loc, &diagnostics) { type in
                        type.inputFields = input.fields.map(inputValue)
                        type.isOneOf = input.directives.contains { $0.name.value == "oneOf" }
                    }
                case let scalar as ScalarTypeDefinition:
                    model.define(scalar.name, .scalar, scalar.description, scalar.loc, &diagnostics) { _ in }
                case let schema as SchemaDefinition:
                    for operationType in schema.operationTypes {
                        model.rootTypes[operationType.operation] = operationType.type.name.value
                    }
                    if let to = CatchTo.byDefault(schema.directives) { model.catchByDefault = to }
                case let ext as TypeExtensionDefinition:
                    let object = ext.definition
                    extensions.append((object.name.value, ext.loc, { type in
                        type.fields += object.fields.map(fieldDefinition)
                        type.interfaces += object.interfaces.map(\.name.value)
                        if let keys = keyFields(object.directives) { type.keyFields = keys }
                        type.connectionFields += policyList("connectionFields", object.directives) ?? []
                        type.fieldPolicies.merge(fieldPolicies(object.directives)) { _, new in new }
                        if let age = cacheMaxAge(object.directives) { type.cacheMaxAge = age }
                    }))
                case let ext as InterfaceExtensionDefinition:
                    let interface = ext.definition
                    extensions.append((interface.name.value, ext.loc, { type in
                        type.fields += interface.fields.map(fieldDefinition)
                        type.interfaces += interface.interfaces.map(\.name.value)
                        if let keys = keyFields(interface.directives) { type.keyFields = keys }
                        type.connectionFields += policyList("connectionFields", interface.directives) ?? []
                        type.fieldPolicies.merge(fieldPolicies(interface.directives)) { _, new in new }
                        if let age = cacheMaxAge(interface.directives) { type.cacheMaxAge = age }
                    }))
                case let ext as UnionExtensionDefinition:
                    let union = ext.definition
                    extensions.append((union.name.value, ext.loc, { type in
                        type.members += union.types.map(\.name.value)
                        if let age = cacheMaxAge(union.directives) { type.cacheMaxAge = age }
                    }))
                case let ext as EnumExtensionDefinition:
                    let enumeration = ext.definition
                    extensions.append((enumeration.name.value, ext.loc, { type in type.enumValues += enumeration.values.map(enumValue) }))
                case let ext as InputObjectExtensionDefinition:
                    let input = ext.definition
                    extensions.append((input.name.value, ext.loc, { type in
                        type.inputFields += input.fields.map(inputValue)
                        if input.directives.contains(where: { $0.name.value == "oneOf" }) { type.isOneOf = true }
                    }))
                case let ext as SchemaExtensionDefinition:
                    for operationType in ext.definition.operationTypes {
                        model.rootTypes[operationType.operation] = operationType.type.name.value
                    }
                    if let to = CatchTo.byDefault(ext.definition.directives) { model.catchByDefault = to }
                case let directive as DirectiveDefinition:
                    for argument in directive.arguments where builtInScalars.contains(TypeRef(argument.type).namedType) {
                        model.mentionedScalars.insert(TypeRef(argument.type).namedType)
                    }
                default:
                    break  // scalar extensions need nothing here
                }
            }
        }
        for (name, location, apply) in extensions {
            guard let type = model.types[name] else {
                diagnostics.append(Diagnostic(at: location, fallbackFile: "schema", "cannot extend type '\(name)': it is not defined"))
                continue
            }
            apply(type)
        }
        model.checkReferences(&diagnostics)
        return model
    }

    private func define(
        _ name: Name, _ kind: Kind, _ description: StringValue?, _ location: Location?, _ diagnostics: inout [Diagnostic],
        _ fill: (TypeDefinition) -> Void
    ) {
        if let existing = types[name.value] {
            var message = "type '\(name.value)' is defined more than once"
            if let first = existing.location {
                message += Diagnostic.reference("first at", first)
            } else {
                message += " (it is a built-in scalar)"
            }
            diagnostics.append(Diagnostic(at: name.loc, fallbackFile: "schema", message))
            return
        }
        let type = TypeDefinition(name: name.value, kind: kind, description: description?.value, location: name.loc ?? location)
        fill(type)
        types[name.value] = type
    }

    /// Every type a field, argument, interface or union member names must exist, and be of a
    /// kind that fits where it is used.
    private func checkReferences(_ diagnostics: inout [Diagnostic]) {
        for type in types.values.sorted(by: { $0.name < $1.name }) {
            let file = type.location?.source.name ?? "schema"
            func check(_ ref: TypeRef, at location: Location?, input: Bool, context: String) {
                if Self.builtInScalars.contains(ref.namedType) { mentionedScalars.insert(ref.namedType) }
                guard let target = types[ref.namedType] else {
                    diagnostics.append(Diagnostic(at: location ?? type.location, fallbackFile: file, "unknown type '\(ref.namedType)' in \(context)"))
                    return
                }
                let isInputKind = [.scalar, .enumeration, .inputObject].contains(target.kind)
                let isOutputKind = target.kind != .inputObject
                if input && !isInputKind || !input && !isOutputKind {
                    diagnostics.append(Diagnostic(
                        at: location ?? type.location, fallbackFile: file,
                        "\(context) has type '\(ref.namedType)', a \(target.kind.rawValue), which cannot be used as \(input ? "an input" : "an output")"))
                }
            }
            for field in type.fields {
                check(field.type, at: field.typeLocation, input: false, context: "field '\(type.name).\(field.name)'")
                for argument in field.arguments {
                    check(argument.type, at: argument.typeLocation, input: true, context: "argument '\(argument.name)' of '\(type.name).\(field.name)'")
                }
            }
            for field in type.inputFields {
                check(field.type, at: field.typeLocation, input: true, context: "input field '\(type.name).\(field.name)'")
            }
            for interface in type.interfaces where types[interface]?.kind != .interface {
                diagnostics.append(Diagnostic(at: type.location, fallbackFile: file, "'\(type.name)' implements '\(interface)', which is not a defined interface"))
            }
            for member in type.members where types[member]?.kind != .object {
                diagnostics.append(Diagnostic(at: type.location, fallbackFile: file, "union '\(type.name)' includes '\(member)', which is not a defined object type"))
            }
        }
    }

    private static func deprecationReason(_ directives: [Directive]) -> String? {
        guard let directive = directives.first(where: { $0.name.value == "deprecated" }) else { return nil }
        let reason = directive.arguments.first { $0.name.value == "reason" }?.value as? StringValue
        return reason?.value ?? "No longer supported"
    }

    /// Every `@fieldPolicy(forField: "book", keyArgs: "id")` (repeatable), by field.
    private static func fieldPolicies(_ directives: [Directive]) -> [String: (keyArgs: [String], location: Location?)] {
        var policies: [String: (keyArgs: [String], location: Location?)] = [:]
        for directive in directives where directive.name.value == "fieldPolicy" {
            guard let field = directive.arguments.first(where: { $0.name.value == "forField" })?.value as? StringValue,
                let keyArgs = directive.arguments.first(where: { $0.name.value == "keyArgs" })?.value as? StringValue
            else { continue }
            policies[field.value] = (keyArgs.value.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init), directive.loc)
        }
        return policies
    }

    /// `@semanticNonNull` (levels `[0]` by default), or no levels without the directive.
    private static func semanticNonNullLevels(_ directives: [Directive]) -> Set<Int> {
        guard let directive = directives.first(where: { $0.name.value == "semanticNonNull" }) else { return [] }
        guard let levels = directive.arguments.first(where: { $0.name.value == "levels" })?.value as? ListValue else { return [0] }
        return Set(levels.values.compactMap { ($0 as? IntValue).flatMap { Int($0.value) } })
    }

    /// `@cacheControl(maxAge:)`'s seconds; `nil` without the directive or its `maxAge`
    /// (`inheritMaxAge` leaves a field to what is around it, which the cache does anyway).
    private static func cacheMaxAge(_ directives: [Directive]) -> Int? {
        guard let directive = directives.first(where: { $0.name.value == "cacheControl" }),
            let value = directive.arguments.first(where: { $0.name.value == "maxAge" })?.value as? IntValue
        else { return nil }
        return Int(value.value).map { max(0, $0) }
    }

    /// How long the cache may keep a field's value: its own `@cacheControl(maxAge:)`, else its
    /// type's when it returns an object, an interface or a union that has one.
    func cacheMaxAge(of field: FieldDefinition) -> Int? {
        field.cacheMaxAge ?? type(named: field.type.namedType)?.cacheMaxAge
    }

    private static func keyFields(_ directives: [Directive]) -> [String]? {
        policyList("keyFields", directives)
    }

    /// A list argument of `@typePolicy` (`keyFields: "a b"`, `connectionFields: "items"`); `nil`
    /// when it is absent or empty.
    static func policyList(_ argument: String, _ directives: [Directive]) -> [String]? {
        guard let directive = directives.first(where: { $0.name.value == "typePolicy" }),
            let value = directive.arguments.first(where: { $0.name.value == argument })?.value as? StringValue
        else { return nil }
        let names = value.value.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        return names.isEmpty ? nil : names
    }

    private static func fieldDefinition(_ field: GraphQL.FieldDefinition) -> FieldDefinition {
        FieldDefinition(
            name: field.name.value, location: field.name.loc, description: field.description?.value, type: TypeRef(field.type), typeLocation: field.type.loc,
            arguments: field.arguments.map(inputValue), deprecationReason: deprecationReason(field.directives),
            semanticNonNullLevels: semanticNonNullLevels(field.directives), cacheMaxAge: cacheMaxAge(field.directives))
    }

    private static func inputValue(_ value: InputValueDefinition) -> InputValue {
        InputValue(
            name: value.name.value, location: value.name.loc, description: value.description?.value, type: TypeRef(value.type), typeLocation: value.type.loc,
            hasDefault: value.defaultValue != nil, deprecationReason: deprecationReason(value.directives))
    }

    private static func enumValue(_ value: EnumValueDefinition) -> EnumValue {
        EnumValue(name: value.name.value, description: value.description?.value, deprecationReason: deprecationReason(value.directives))
    }
}
