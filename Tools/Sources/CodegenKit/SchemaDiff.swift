import Foundation
import GraphQL

/// One difference between two versions of a schema, classified as graphql-js's
/// `findBreakingChanges` and `findDangerousChanges` do: breaking (a client that worked stops
/// working), dangerous (it may behave differently: a new enum value, union member or default) or
/// safe.
public struct SchemaChange: Sendable, Hashable, Comparable {
    /// How much a change can hurt the clients of the schema.
    public enum Severity: String, Sendable, Hashable, Comparable, CaseIterable {
        /// A client that worked may stop working.
        case breaking
        /// A client may behave differently.
        case dangerous
        /// Nothing a client does changes.
        case safe

        private var rank: Int { self == .breaking ? 0 : self == .dangerous ? 1 : 2 }

        /// Breaking first.
        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    /// How bad it is.
    public var severity: Severity
    /// What changed, in graphql-js's words where it has them (`FIELD_REMOVED`, `VALUE_ADDED_TO_ENUM`).
    public var kind: String
    /// The schema coordinate: `Type`, `Type.field`, `Type.field(argument:)`, `Enum.VALUE`, `@directive`.
    public var coordinate: String
    /// One sentence.
    public var message: String
    /// `file:line:column` in the old schema (of the thing, or of its type when the thing is new).
    public var oldPosition: String?
    /// `file:line:column` in the new schema (of the thing, or of its type when it was removed).
    public var newPosition: String?

    /// By severity, then coordinate.
    public static func < (lhs: SchemaChange, rhs: SchemaChange) -> Bool {
        (lhs.severity, lhs.coordinate, lhs.kind) < (rhs.severity, rhs.coordinate, rhs.kind)
    }

    /// The type the coordinate belongs to (`Household` for `Household.name`, nil for a directive).
    public var typeName: String? {
        coordinate.hasPrefix("@") ? nil : String(coordinate.prefix { $0 != "." && $0 != "(" })
    }
}

/// Two versions of a schema compared, definition by definition (type extensions merged into
/// their types); ``impact(on:owners:)`` says what the changes do to a kit's operations.
public struct SchemaComparison {
    /// Every change from the old schema to the new, sorted: breaking first.
    public let changes: [SchemaChange]
    let old: SchemaIndex
    let new: SchemaIndex
    let newFile: (path: String, text: String)

    /// Compares `old` with `new` (SDL). Both are validated first; a schema that is not valid is a
    /// failure naming its problems.
    public init(old: (path: String, text: String), new: (path: String, text: String)) throws(CodegenFailure) {
        self.old = try SchemaIndex(old)
        self.new = try SchemaIndex(new)
        newFile = new
        var differ = Differ(old: self.old, new: self.new)
        differ.compare()
        changes = differ.changes.sorted()
    }
}

/// The definitions of a schema by name, as the diff needs them.
struct SchemaIndex {
    struct Value {
        var type: TypeRef
        var defaultValue: String?
        var location: Location?

        var isRequired: Bool { type.isNonNull && defaultValue == nil }
    }

    struct Field {
        var type: TypeRef
        var arguments: [(name: String, value: Value)]
        var location: Location?
        var deprecated: Bool

        func argument(_ name: String) -> Value? { arguments.first { $0.name == name }?.value }
    }

    final class NamedType {
        let kind: SchemaModel.Kind
        let location: Location?
        var fields: [(name: String, field: Field)] = []
        var interfaces: [(name: String, location: Location?)] = []
        var members: [(name: String, location: Location?)] = []
        var enumValues: [(name: String, location: Location?, deprecated: Bool)] = []
        var inputFields: [(name: String, value: Value)] = []

        init(kind: SchemaModel.Kind, location: Location?) {
            self.kind = kind
            self.location = location
        }

        func field(_ name: String) -> Field? { fields.first { $0.name == name }?.field }
        func inputField(_ name: String) -> Value? { inputFields.first { $0.name == name }?.value }
    }

    struct DirectiveDefinition {
        var arguments: [(name: String, value: Value)]
        var locations: [String]
        var repeatable: Bool
        var location: Location?
    }

    var types: [String: NamedType] = [:]
    var directives: [String: DirectiveDefinition] = [:]
    var roots: [String: String] = ["query": "Query", "mutation": "Mutation", "subscription": "Subscription"]

    init(_ file: (path: String, text: String)) throws(CodegenFailure) {
        // The generator's checks: a schema that would not generate is reported as such.
        _ = try Compilation.schema(from: [file])
        let document: Document
        do {
            document = try parse(source: Source(body: file.text, name: file.path))
        } catch {
            throw CodegenFailure([Diagnostic(file: file.path, message: "\(error)")])
        }
        var extensions: [any GraphQL.Definition] = []
        for definition in document.definitions {
            switch definition {
            case let object as ObjectTypeDefinition:
                let type = define(object.name, .object, object.loc)
                add(fields: object.fields, interfaces: object.interfaces, to: type)
            case let interface as InterfaceTypeDefinition:
                let type = define(interface.name, .interface, interface.loc)
                add(fields: interface.fields, interfaces: interface.interfaces, to: type)
            case let union as UnionTypeDefinition:
                define(union.name, .union, union.loc).members += union.types.map { ($0.name.value, $0.loc) }
            case let enumeration as EnumTypeDefinition:
                define(enumeration.name, .enumeration, enumeration.loc).enumValues += enumeration.values.map(Self.enumValue)
            case let input as InputObjectTypeDefinition:
                define(input.name, .inputObject, input.loc).inputFields += input.fields.map(Self.value)
            case let scalar as ScalarTypeDefinition:
                define(scalar.name, .scalar, scalar.loc)
            case let directive as GraphQL.DirectiveDefinition:
                // Apollo's client-only directives, which some schema files declare, are not the server's.
                guard !DocumentPrinter.clientOnlyDirectives.contains(directive.name.value) else { continue }
                directives[directive.name.value] = DirectiveDefinition(
                    arguments: directive.arguments.map(Self.value), locations: directive.locations.map(\.value),
                    repeatable: directive.repeatable, location: directive.loc)
            case let schema as SchemaDefinition:
                for operation in schema.operationTypes { roots[operation.operation.rawValue] = operation.type.name.value }
            case let schema as SchemaExtensionDefinition:
                for operation in schema.definition.operationTypes { roots[operation.operation.rawValue] = operation.type.name.value }
            default:
                extensions.append(definition)
            }
        }
        // Extensions after every definition (the schema check above refused unknown types).
        for definition in extensions {
            switch definition {
            case let ext as TypeExtensionDefinition:
                if let type = types[ext.definition.name.value] { add(fields: ext.definition.fields, interfaces: ext.definition.interfaces, to: type) }
            case let ext as InterfaceExtensionDefinition:
                if let type = types[ext.definition.name.value] { add(fields: ext.definition.fields, interfaces: ext.definition.interfaces, to: type) }
            case let ext as UnionExtensionDefinition:
                types[ext.definition.name.value]?.members += ext.definition.types.map { ($0.name.value, $0.loc) }
            case let ext as EnumExtensionDefinition:
                types[ext.definition.name.value]?.enumValues += ext.definition.values.map(Self.enumValue)
            case let ext as InputObjectExtensionDefinition:
                types[ext.definition.name.value]?.inputFields += ext.definition.fields.map(Self.value)
            default:
                break
            }
        }
    }

    @discardableResult
    private mutating func define(_ name: Name, _ kind: SchemaModel.Kind, _ location: Location?) -> NamedType {
        let type = NamedType(kind: kind, location: name.loc ?? location)
        types[name.value] = type
        return type
    }

    private func add(fields: [GraphQL.FieldDefinition], interfaces: [GraphQL.NamedType], to type: NamedType) {
        type.fields += fields.map { field in
            (field.name.value, Field(
                type: TypeRef(field.type), arguments: field.arguments.map(Self.value), location: field.name.loc,
                deprecated: field.directives.contains { $0.name.value == "deprecated" }))
        }
        type.interfaces += interfaces.map { ($0.name.value, $0.loc) }
    }

    private static func value(_ definition: InputValueDefinition) -> (name: String, value: Value) {
        (definition.name.value, Value(type: TypeRef(definition.type), defaultValue: definition.defaultValue.map { print(ast: $0) }, location: definition.name.loc))
    }

    private static func enumValue(_ definition: EnumValueDefinition) -> (name: String, location: Location?, deprecated: Bool) {
        (definition.name.value, definition.name.loc, definition.directives.contains { $0.name.value == "deprecated" })
    }
}

/// Walks two indexes side by side.
private struct Differ {
    let old: SchemaIndex
    let new: SchemaIndex
    var changes: [SchemaChange] = []

    init(old: SchemaIndex, new: SchemaIndex) {
        self.old = old
        self.new = new
    }

    mutating func add(
        _ severity: SchemaChange.Severity, _ kind: String, _ coordinate: String, _ message: String, old: Location?, new: Location?
    ) {
        changes.append(SchemaChange(
            severity: severity, kind: kind, coordinate: coordinate, message: message, oldPosition: old?.position, newPosition: new?.position))
    }

    mutating func compare() {
        for (name, before) in old.types.sorted(by: { $0.key < $1.key }) {
            guard let after = new.types[name] else {
                add(.breaking, "TYPE_REMOVED", name, "\(name) was removed.", old: before.location, new: nil)
                continue
            }
            guard before.kind == after.kind else {
                add(.breaking, "TYPE_CHANGED_KIND", name, "\(name) changed from \(article(before.kind)) to \(article(after.kind)).",
                    old: before.location, new: after.location)
                continue
            }
            switch before.kind {
            case .object, .interface:
                compareFields(of: name, before, after)
                compareInterfaces(of: name, before, after)
            case .union:
                compareMembers(of: name, before, after)
            case .enumeration:
                compareEnumValues(of: name, before, after)
            case .inputObject:
                compareInputFields(of: name, before, after)
            case .scalar:
                break
            }
        }
        for (name, after) in new.types.sorted(by: { $0.key < $1.key }) where old.types[name] == nil {
            add(.safe, "TYPE_ADDED", name, "\(name) was added.", old: nil, new: after.location)
        }
        for (operation, before) in old.roots.sorted(by: { $0.key < $1.key }) where new.roots[operation] != before && old.types[before] != nil {
            add(.breaking, "ROOT_TYPE_CHANGED", before, "The \(operation) root type changed from \(before) to \(new.roots[operation] ?? "none").",
                old: old.types[before]?.location, new: new.roots[operation].flatMap { new.types[$0]?.location })
        }
        compareDirectives()
    }

    private func article(_ kind: SchemaModel.Kind) -> String {
        let word = kind.rawValue
        return (["a", "e", "i", "o", "u"].contains(word.prefix(1)) ? "an " : "a ") + word
    }

    private mutating func compareFields(of type: String, _ before: SchemaIndex.NamedType, _ after: SchemaIndex.NamedType) {
        for (name, field) in before.fields {
            let coordinate = "\(type).\(name)"
            guard let now = after.field(name) else {
                let reason = field.deprecated ? " (it was deprecated)" : ""
                add(.breaking, "FIELD_REMOVED", coordinate, "\(coordinate) was removed\(reason).", old: field.location, new: after.location)
                continue
            }
            if field.type != now.type {
                let safe = Self.safeForOutput(field.type, now.type)
                add(safe ? .safe : .breaking, safe ? "FIELD_TYPE_CHANGED_SAFELY" : "FIELD_CHANGED_KIND", coordinate,
                    "\(coordinate) changed type from \(field.type) to \(now.type).", old: field.location, new: now.location)
            }
            if !field.deprecated && now.deprecated {
                add(.safe, "FIELD_DEPRECATED", coordinate, "\(coordinate) was deprecated.", old: field.location, new: now.location)
            }
            compareArguments(of: coordinate, field.arguments, now.arguments, oldOwner: field.location, newOwner: now.location, directive: false)
        }
        for (name, field) in after.fields where before.field(name) == nil {
            add(.safe, "FIELD_ADDED", "\(type).\(name)", "\(type).\(name) was added.", old: before.location, new: field.location)
        }
    }

    private mutating func compareArguments(
        of owner: String, _ before: [(name: String, value: SchemaIndex.Value)], _ after: [(name: String, value: SchemaIndex.Value)],
        oldOwner: Location?, newOwner: Location?, directive: Bool
    ) {
        let prefix = directive ? "DIRECTIVE_" : ""
        for (name, value) in before {
            let coordinate = "\(owner)(\(name):)"
            guard let now = after.first(where: { $0.name == name })?.value else {
                add(.breaking, "\(prefix)ARG_REMOVED", coordinate, "\(coordinate) was removed.", old: value.location, new: newOwner)
                continue
            }
            compareValue(coordinate, value, now, changed: "ARG_CHANGED_KIND", safe: "ARG_TYPE_CHANGED_SAFELY", defaultChanged: "ARG_DEFAULT_VALUE_CHANGE")
        }
        for (name, value) in after where !before.contains(where: { $0.name == name }) {
            let coordinate = "\(owner)(\(name):)"
            if value.isRequired {
                add(.breaking, directive ? "REQUIRED_DIRECTIVE_ARG_ADDED" : "REQUIRED_ARG_ADDED", coordinate,
                    "A required argument \(coordinate) was added.", old: oldOwner, new: value.location)
            } else {
                add(directive ? .safe : .dangerous, directive ? "OPTIONAL_DIRECTIVE_ARG_ADDED" : "OPTIONAL_ARG_ADDED", coordinate,
                    "An optional argument \(coordinate) was added.", old: oldOwner, new: value.location)
            }
        }
    }

    /// The type and default value of an argument or input field that both versions have.
    private mutating func compareValue(
        _ coordinate: String, _ value: SchemaIndex.Value, _ now: SchemaIndex.Value, changed: String, safe safeKind: String, defaultChanged: String
    ) {
        if value.type != now.type {
            let safe = Self.safeForInput(value.type, now.type)
            add(safe ? .safe : .breaking, safe ? safeKind : changed, coordinate,
                "\(coordinate) changed type from \(value.type) to \(now.type).", old: value.location, new: now.location)
        }
        if value.defaultValue != now.defaultValue {
            add(.dangerous, defaultChanged, coordinate,
                "\(coordinate) changed its default value from \(value.defaultValue ?? "none") to \(now.defaultValue ?? "none").",
                old: value.location, new: now.location)
        }
    }

    private mutating func compareInterfaces(of type: String, _ before: SchemaIndex.NamedType, _ after: SchemaIndex.NamedType) {
        for interface in before.interfaces where !after.interfaces.contains(where: { $0.name == interface.name }) {
            add(.breaking, "IMPLEMENTED_INTERFACE_REMOVED", type, "\(type) no longer implements \(interface.name).",
                old: interface.location, new: after.location)
        }
        for interface in after.interfaces where !before.interfaces.contains(where: { $0.name == interface.name }) {
            add(.dangerous, "IMPLEMENTED_INTERFACE_ADDED", type, "\(interface.name) added to the interfaces \(type) implements.",
                old: before.location, new: interface.location)
        }
    }

    private mutating func compareMembers(of type: String, _ before: SchemaIndex.NamedType, _ after: SchemaIndex.NamedType) {
        for member in before.members where !after.members.contains(where: { $0.name == member.name }) {
            add(.breaking, "TYPE_REMOVED_FROM_UNION", type, "\(member.name) was removed from the union \(type).", old: member.location, new: after.location)
        }
        for member in after.members where !before.members.contains(where: { $0.name == member.name }) {
            add(.dangerous, "TYPE_ADDED_TO_UNION", type, "\(member.name) was added to the union \(type).", old: before.location, new: member.location)
        }
    }

    private mutating func compareEnumValues(of type: String, _ before: SchemaIndex.NamedType, _ after: SchemaIndex.NamedType) {
        for value in before.enumValues {
            let coordinate = "\(type).\(value.name)"
            guard let now = after.enumValues.first(where: { $0.name == value.name }) else {
                add(.breaking, "VALUE_REMOVED_FROM_ENUM", coordinate, "\(value.name) was removed from the enum \(type).", old: value.location, new: after.location)
                continue
            }
            if !value.deprecated && now.deprecated {
                add(.safe, "ENUM_VALUE_DEPRECATED", coordinate, "\(coordinate) was deprecated.", old: value.location, new: now.location)
            }
        }
        for value in after.enumValues where !before.enumValues.contains(where: { $0.name == value.name }) {
            add(.dangerous, "VALUE_ADDED_TO_ENUM", "\(type).\(value.name)", "\(value.name) was added to the enum \(type).",
                old: before.location, new: value.location)
        }
    }

    private mutating func compareInputFields(of type: String, _ before: SchemaIndex.NamedType, _ after: SchemaIndex.NamedType) {
        for (name, value) in before.inputFields {
            let coordinate = "\(type).\(name)"
            guard let now = after.inputField(name) else {
                add(.breaking, "FIELD_REMOVED", coordinate, "\(coordinate) was removed.", old: value.location, new: after.location)
                continue
            }
            compareValue(coordinate, value, now, changed: "FIELD_CHANGED_KIND", safe: "FIELD_TYPE_CHANGED_SAFELY", defaultChanged: "INPUT_FIELD_DEFAULT_VALUE_CHANGE")
        }
        for (name, value) in after.inputFields where before.inputField(name) == nil {
            let coordinate = "\(type).\(name)"
            if value.isRequired {
                add(.breaking, "REQUIRED_INPUT_FIELD_ADDED", coordinate, "A required input field \(coordinate) was added.", old: before.location, new: value.location)
            } else {
                add(.dangerous, "OPTIONAL_INPUT_FIELD_ADDED", coordinate, "An optional input field \(coordinate) was added.", old: before.location, new: value.location)
            }
        }
    }

    private mutating func compareDirectives() {
        for (name, before) in old.directives.sorted(by: { $0.key < $1.key }) {
            let coordinate = "@\(name)"
            guard let after = new.directives[name] else {
                add(.breaking, "DIRECTIVE_REMOVED", coordinate, "\(coordinate) was removed.", old: before.location, new: nil)
                continue
            }
            compareArguments(of: coordinate, before.arguments, after.arguments, oldOwner: before.location, newOwner: after.location, directive: true)
            if before.repeatable && !after.repeatable {
                add(.breaking, "DIRECTIVE_REPEATABLE_REMOVED", coordinate, "\(coordinate) is no longer repeatable.", old: before.location, new: after.location)
            }
            for location in before.locations where !after.locations.contains(location) {
                add(.breaking, "DIRECTIVE_LOCATION_REMOVED", coordinate, "\(location) was removed from the locations of \(coordinate).",
                    old: before.location, new: after.location)
            }
        }
        for (name, after) in new.directives.sorted(by: { $0.key < $1.key }) where old.directives[name] == nil {
            add(.safe, "DIRECTIVE_ADDED", "@\(name)", "@\(name) was added.", old: nil, new: after.location)
        }
    }

    /// Whether a field's answers of type `old` still fit a client expecting them when it becomes
    /// `new`: the same type, possibly made non-null, at any depth.
    static func safeForOutput(_ old: TypeRef, _ new: TypeRef) -> Bool {
        switch (old, new) {
        case (.named(let a), .named(let b)): return a == b
        case (_, .nonNull(let inner)) where !old.isNonNull: return safeForOutput(old, inner)
        case (.nonNull(let a), .nonNull(let b)): return safeForOutput(a, b)
        case (.list(let a), .list(let b)): return safeForOutput(a, b)
        default: return false
        }
    }

    /// Whether every value a client sent for an argument or input field of type `old` is still
    /// accepted when it becomes `new`: the same type, possibly made nullable, at any depth.
    static func safeForInput(_ old: TypeRef, _ new: TypeRef) -> Bool {
        switch (old, new) {
        case (.named(let a), .named(let b)): return a == b
        case (.nonNull(let a), .nonNull(let b)): return safeForInput(a, b)
        case (.nonNull(let a), _): return safeForInput(a, new)
        case (.list(let a), .list(let b)): return safeForInput(a, b)
        default: return false
        }
    }
}
