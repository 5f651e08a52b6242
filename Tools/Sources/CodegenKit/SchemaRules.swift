import GraphQL

/// The GraphQL spec's type-system rules that a schema must follow before anything is generated
/// from it, each problem with its position and, for duplicates and conflicts, the other place.
/// (Unknown types, union members and interface kinds are checked while the model is built.)
struct SchemaRules {
    let model: SchemaModel
    var diagnostics: [Diagnostic] = []

    /// Every problem of `documents`, read into `model`.
    static func check(_ documents: [Document], model: SchemaModel) -> [Diagnostic] {
        var rules = SchemaRules(model: model)
        rules.checkDuplicates(documents)
        rules.checkDirectives(documents)
        rules.checkImplementations()
        rules.checkInputCycles()
        rules.checkOneOf()
        rules.checkFieldPolicies()
        return rules.diagnostics
    }

    private mutating func report(_ location: Location?, _ message: String) {
        diagnostics.append(Diagnostic(at: location, fallbackFile: "schema", message))
    }

    // MARK: Duplicates

    /// Fields, arguments, enum values and input fields declared twice, across a type's definition
    /// and its extensions.
    private mutating func checkDuplicates(_ documents: [Document]) {
        var fields: [String: [String: Location?]] = [:]
        var values: [String: [String: Location?]] = [:]
        func note(_ names: [Name], of type: String, in table: inout [String: [String: Location?]], _ what: String) {
            for name in names {
                if let first = table[type]?[name.value] {
                    report(name.loc, "\(what) '\(type).\(name.value)' is declared more than once\(Diagnostic.reference("first at", first))")
                } else {
                    table[type, default: [:]][name.value] = name.loc
                }
            }
        }
        func arguments(_ values: [InputValueDefinition], of owner: String) {
            var seen: [String: Location?] = [:]
            for argument in values {
                if let first = seen[argument.name.value] {
                    report(argument.name.loc, "argument '\(argument.name.value)' of '\(owner)' is declared more than once\(Diagnostic.reference("first at", first))")
                } else {
                    seen[argument.name.value] = argument.name.loc
                }
            }
        }
        func declare(_ declared: [GraphQL.FieldDefinition], of type: String) {
            note(declared.map(\.name), of: type, in: &fields, "field")
            for field in declared { arguments(field.arguments, of: "\(type).\(field.name.value)") }
        }
        // A type defined twice is reported once, as such; the second definition's fields are not
        // duplicates of the first's.
        func isModelDefinition(_ name: Name) -> Bool {
            guard let kept = model.type(named: name.value)?.location, let own = name.loc else { return true }
            return kept.start == own.start && kept.source.name == own.source.name
        }
        for definition in documents.flatMap(\.definitions) {
            switch definition {
            case let object as ObjectTypeDefinition where isModelDefinition(object.name):
                declare(object.fields, of: object.name.value)
            case let ext as TypeExtensionDefinition:
                declare(ext.definition.fields, of: ext.definition.name.value)
            case let interface as InterfaceTypeDefinition where isModelDefinition(interface.name):
                declare(interface.fields, of: interface.name.value)
            case let ext as InterfaceExtensionDefinition:
                declare(ext.definition.fields, of: ext.definition.name.value)
            case let enumeration as EnumTypeDefinition where isModelDefinition(enumeration.name):
                note(enumeration.values.map(\.name), of: enumeration.name.value, in: &values, "enum value")
            case let ext as EnumExtensionDefinition:
                note(ext.definition.values.map(\.name), of: ext.definition.name.value, in: &values, "enum value")
            case let input as InputObjectTypeDefinition where isModelDefinition(input.name):
                note(input.fields.map(\.name), of: input.name.value, in: &fields, "input field")
            case let ext as InputObjectExtensionDefinition:
                note(ext.definition.fields.map(\.name), of: ext.definition.name.value, in: &fields, "input field")
            case let directive as DirectiveDefinition:
                arguments(directive.arguments, of: "@\(directive.name.value)")
            default:
                continue
            }
        }
    }

    // MARK: Directives

    private struct DirectiveInfo {
        var locations: Set<String>
        var repeatable: Bool
    }

    /// The directives every schema has.
    private static let builtIn: [String: DirectiveInfo] = [
        "deprecated": DirectiveInfo(locations: ["FIELD_DEFINITION", "ARGUMENT_DEFINITION", "INPUT_FIELD_DEFINITION", "ENUM_VALUE"], repeatable: false),
        "specifiedBy": DirectiveInfo(locations: ["SCALAR"], repeatable: false),
        "oneOf": DirectiveInfo(locations: ["INPUT_OBJECT"], repeatable: false),
        "include": DirectiveInfo(locations: ["FIELD", "FRAGMENT_SPREAD", "INLINE_FRAGMENT"], repeatable: false),
        "skip": DirectiveInfo(locations: ["FIELD", "FRAGMENT_SPREAD", "INLINE_FRAGMENT"], repeatable: false),
    ]

    /// Every directive used in the schema is defined, allowed where it is used, and used once
    /// where it is not repeatable.
    private mutating func checkDirectives(_ documents: [Document]) {
        var known = Self.builtIn
        for case let definition as DirectiveDefinition in documents.flatMap(\.definitions) {
            known[definition.name.value] = DirectiveInfo(locations: Set(definition.locations.map(\.value)), repeatable: definition.repeatable)
        }
        func check(_ directives: [Directive], _ location: String, _ what: String) {
            var used: Set<String> = []
            for directive in directives {
                let name = directive.name.value
                guard let info = known[name] else {
                    report(directive.name.loc, "directive '@\(name)' is not defined")
                    continue
                }
                if !info.locations.contains(location) {
                    let allowed = info.locations.sorted().map { $0.lowercased().replacingOccurrences(of: "_", with: " ") }
                    report(directive.name.loc, "directive '@\(name)' is not allowed on \(what) (only on: \(allowed.joined(separator: ", ")))")
                }
                if !used.insert(name).inserted && !info.repeatable {
                    report(directive.name.loc, "directive '@\(name)' is used more than once here but is not repeatable")
                }
            }
        }
        func fields(_ definitions: [GraphQL.FieldDefinition]) {
            for field in definitions {
                check(field.directives, "FIELD_DEFINITION", "a field definition")
                for argument in field.arguments { check(argument.directives, "ARGUMENT_DEFINITION", "an argument definition") }
            }
        }
        for definition in documents.flatMap(\.definitions) {
            switch definition {
            case let schema as SchemaDefinition: check(schema.directives, "SCHEMA", "the schema")
            case let ext as SchemaExtensionDefinition: check(ext.definition.directives, "SCHEMA", "the schema")
            case let scalar as ScalarTypeDefinition: check(scalar.directives, "SCALAR", "a scalar")
            case let ext as ScalarExtensionDefinition: check(ext.directives, "SCALAR", "a scalar")
            case let object as ObjectTypeDefinition:
                check(object.directives, "OBJECT", "an object type")
                fields(object.fields)
            case let ext as TypeExtensionDefinition:
                check(ext.definition.directives, "OBJECT", "an object type")
                fields(ext.definition.fields)
            case let interface as InterfaceTypeDefinition:
                check(interface.directives, "INTERFACE", "an interface")
                fields(interface.fields)
            case let ext as InterfaceExtensionDefinition:
                check(ext.definition.directives, "INTERFACE", "an interface")
                fields(ext.definition.fields)
            case let union as UnionTypeDefinition: check(union.directives, "UNION", "a union")
            case let ext as UnionExtensionDefinition: check(ext.definition.directives, "UNION", "a union")
            case let enumeration as EnumTypeDefinition:
                check(enumeration.directives, "ENUM", "an enum")
                for value in enumeration.values { check(value.directives, "ENUM_VALUE", "an enum value") }
            case let ext as EnumExtensionDefinition:
                check(ext.definition.directives, "ENUM", "an enum")
                for value in ext.definition.values { check(value.directives, "ENUM_VALUE", "an enum value") }
            case let input as InputObjectTypeDefinition:
                check(input.directives, "INPUT_OBJECT", "an input object")
                for field in input.fields { check(field.directives, "INPUT_FIELD_DEFINITION", "an input field") }
            case let ext as InputObjectExtensionDefinition:
                check(ext.definition.directives, "INPUT_OBJECT", "an input object")
                for field in ext.definition.fields { check(field.directives, "INPUT_FIELD_DEFINITION", "an input field") }
            case let directive as DirectiveDefinition:
                for argument in directive.arguments { check(argument.directives, "ARGUMENT_DEFINITION", "an argument definition") }
            default:
                continue
            }
        }
    }

    // MARK: Interfaces

    /// An object or interface has every field of each interface it implements, with a type that
    /// is the interface's or a subtype of it, the same arguments with the same types, and no extra
    /// required argument; it also declares every interface those interfaces implement.
    private mutating func checkImplementations() {
        for type in model.types.values.sorted(by: { $0.name < $1.name }) where type.kind == .object || type.kind == .interface {
            // A root type without fields is the shared slice's placeholder that kits extend
            // (SchemaSplitter); it is left alone, as if absent.
            if type.fields.isEmpty && !model.rootTypes.values.contains(type.name) {
                report(type.location, "\(type.kind == .object ? "object type" : "interface") '\(type.name)' declares no fields")
            }
            for interfaceName in type.interfaces {
                guard let interface = model.type(named: interfaceName), interface.kind == .interface else { continue }
                if interfaceName == type.name {
                    report(type.location, "interface '\(type.name)' cannot implement itself")
                    continue
                }
                for transitive in interface.interfaces where !type.interfaces.contains(transitive) && transitive != type.name {
                    report(type.location, "'\(type.name)' implements '\(interfaceName)', which implements '\(transitive)': '\(type.name)' must declare '\(transitive)' too")
                }
                for expected in interface.fields {
                    guard let field = type.field(named: expected.name) else {
                        report(type.location, "'\(type.name)' implements '\(interfaceName)' but has no field '\(expected.name)'\(Diagnostic.reference("at", expected.location))")
                        continue
                    }
                    if !isValidImplementation(field.type, of: expected.type) {
                        report(field.typeLocation ?? field.location,
                               "'\(type.name).\(field.name)' has type '\(field.type)', but '\(interfaceName).\(expected.name)'\(Diagnostic.reference("at", expected.location)) needs '\(expected.type)' or a subtype of it")
                    }
                    for argument in expected.arguments {
                        guard let own = field.arguments.first(where: { $0.name == argument.name }) else {
                            report(field.location, "'\(type.name).\(field.name)' has no argument '\(argument.name)', which '\(interfaceName).\(expected.name)'\(Diagnostic.reference("at", expected.location)) takes")
                            continue
                        }
                        if own.type != argument.type {
                            report(own.typeLocation ?? own.location,
                                   "argument '\(argument.name)' of '\(type.name).\(field.name)' has type '\(own.type)', but '\(interfaceName).\(expected.name)'\(Diagnostic.reference("at", expected.location)) declares it '\(argument.type)'")
                        }
                    }
                    for own in field.arguments where own.type.isNonNull && !own.hasDefault && !expected.arguments.contains(where: { $0.name == own.name }) {
                        report(own.location,
                               "argument '\(own.name)' of '\(type.name).\(field.name)' is required, but '\(interfaceName).\(expected.name)'\(Diagnostic.reference("at", expected.location)) does not take it")
                    }
                }
            }
        }
    }

    /// The spec's IsValidImplementationFieldType: the same type, a subtype of it, or non-null where
    /// the interface allows null, at every level of lists.
    private func isValidImplementation(_ field: TypeRef, of expected: TypeRef) -> Bool {
        switch (field, expected) {
        case (.nonNull(let inner), .nonNull(let expectedInner)): return isValidImplementation(inner, of: expectedInner)
        case (.nonNull(let inner), _): return isValidImplementation(inner, of: expected)
        case (.list(let inner), .list(let expectedInner)): return isValidImplementation(inner, of: expectedInner)
        case (.named(let name), .named(let expectedName)):
            return name == expectedName || (model.type(named: name)?.kind != .scalar && model.supertypes(of: name).contains(expectedName))
        default: return false
        }
    }

    // MARK: Input objects

    /// An input object cannot contain itself through non-null, non-list fields: no finite value
    /// would be valid.
    private mutating func checkInputCycles() {
        var reported: Set<String> = []
        for start in model.types.values.sorted(by: { $0.name < $1.name }) where start.kind == .inputObject && !reported.contains(start.name) {
            var path: [(type: String, field: String)] = []
            var onPath: Set<String> = []
            var visited: Set<String> = []
            func visit(_ name: String) -> Bool {
                if name == start.name && !path.isEmpty { return true }
                guard visited.insert(name).inserted, let type = model.type(named: name) else { return false }
                onPath.insert(name)
                for field in type.inputFields {
                    guard case .nonNull(.named(let target)) = field.type, model.type(named: target)?.kind == .inputObject else { continue }
                    path.append((name, field.name))
                    if visit(target) { return true }
                    path.removeLast()
                }
                return false
            }
            if visit(start.name) {
                reported.formUnion(path.map(\.type))
                let chain = path.map { "\($0.type).\($0.field)" }.joined(separator: " → ")
                report(start.location, "input object '\(start.name)' contains itself through non-null fields: \(chain) → \(start.name)")
            }
        }
    }

    /// A `@oneOf` input object's fields are all nullable and without a default: a value sets
    /// exactly one of them (GraphQL spec, OneOf Input Objects).
    private mutating func checkOneOf() {
        for type in model.types.values.sorted(by: { $0.name < $1.name }) where type.kind == .inputObject && type.isOneOf {
            for field in type.inputFields {
                if field.type.isNonNull {
                    report(
                        field.typeLocation ?? field.location,
                        "@oneOf input object '\(type.name)': field '\(field.name)' is '\(field.type)'; it must be nullable, since a value sets only one field")
                }
                if field.hasDefault {
                    report(field.location, "@oneOf input object '\(type.name)': field '\(field.name)' has a default value; a @oneOf field cannot have one")
                }
            }
        }
    }

    /// `@fieldPolicy(forField:keyArgs:)`: the field exists, its key arguments are its own, and it
    /// returns an object type (or a list of one) with as many key fields as there are key arguments.
    private mutating func checkFieldPolicies() {
        for type in model.types.values.sorted(by: { $0.name < $1.name }) {
            for (name, policy) in type.fieldPolicies.sorted(by: { $0.key < $1.key }) {
                let at = "@fieldPolicy(forField: \"\(name)\") on '\(type.name)'"
                guard let field = type.field(named: name) else {
                    report(policy.location, "\(at): '\(type.name)' has no field '\(name)'")
                    continue
                }
                if policy.keyArgs.isEmpty { report(policy.location, "\(at): keyArgs names no argument") }
                for argument in policy.keyArgs where !field.arguments.contains(where: { $0.name == argument }) {
                    report(policy.location, "\(at): '\(type.name).\(name)' has no argument '\(argument)'")
                }
                let target = field.type.namedType
                guard model.type(named: target)?.kind == .object else {
                    report(policy.location, "\(at): the field returns '\(target)', not an object type, whose records its arguments could name")
                    continue
                }
                let keys = model.keyFields(of: target)
                if !policy.keyArgs.isEmpty && keys.count != policy.keyArgs.count {
                    report(
                        policy.location,
                        "\(at): keyArgs names \(policy.keyArgs.count) argument(s) but '\(target)' has \(keys.count) key field(s) (\(keys.joined(separator: ", ")))")
                }
            }
        }
    }
}
