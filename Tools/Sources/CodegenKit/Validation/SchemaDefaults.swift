import GraphQL

/// What graphql-js 16 does not check in a schema and later versions (and the September 2025
/// spec) do: every default value is a valid value of its type; an input field's default that
/// leads back to itself through defaults of object literals never ends; a `@oneOf` input object
/// can be built (one of its fields leads to a finite value). Each error is at the value or the
/// definition at fault.
struct SchemaDefaults {
    let schema: SchemaValidation
    private(set) var errors: [ValidationError] = []

    init(_ schema: SchemaValidation) { self.schema = schema }

    mutating func check() {
        for name in schema.order {
            guard let type = schema.types[name] else { continue }
            switch type.kind {
            case .object, .interface:
                for field in schema.fields(of: name) {
                    for argument in field.arguments { checkDefault(argument, owner: "Argument \(name).\(field.name.value)(\(argument.name.value):)") }
                }
            case .inputObject:
                for field in schema.inputFields(of: name) { checkDefault(field, owner: "Input field \(name).\(field.name.value)") }
            default:
                continue
            }
        }
        for definition in schema.directiveDefinitions {
            for argument in definition.arguments { checkDefault(argument, owner: "Argument @\(definition.name.value)(\(argument.name.value):)") }
        }
        defaultCycles()
        uninhabited()
    }

    private mutating func report(_ message: String, _ locations: [Location?]) {
        errors.append(ValidationError(rule: SchemaValidation.rule, message, at: locations))
    }

    // MARK: Values of the right type

    private mutating func checkDefault(_ value: InputValueDefinition, owner: String) {
        guard let literal = value.defaultValue else { return }
        for (message, location) in problems(literal, TypeRef(value.type), path: "") {
            report("\(owner) has invalid default value\(message)", [location])
        }
    }

    /// What is wrong with `value` as a `type`, each with the value's place; `path` names where
    /// inside the default it is (`.filter.not`, `[1]`).
    func problems(_ value: Value, _ type: TypeRef, path: String) -> [(String, Location?)] {
        let at = path.isEmpty ? ": " : " at \(path): "
        if value is Variable { return [(at + "a default value cannot be a variable", value.loc)] }
        if value is NullValue {
            return type.isNonNull ? [(at + "expected a value of non-null type \"\(type)\", found null", value.loc)] : []
        }
        switch type.nullable {
        case .list(let item):
            guard let list = value as? ListValue else { return problems(value, item, path: path) }
            return list.values.enumerated().flatMap { problems($0.element, item, path: "\(path)[\($0.offset)]") }
        case .named(let name):
            return leafOrObjectProblems(value, name, at: at, path: path)
        case .nonNull:
            return []
        }
    }

    private func leafOrObjectProblems(_ value: Value, _ name: String, at: String, path: String) -> [(String, Location?)] {
        let found = DocumentPrinter.print(GQL.lower(value))
        func expected(_ what: String) -> [(String, Location?)] { [(at + "expected \(what), found \(found)", value.loc)] }
        switch schema.kind(of: name) {
        case .scalar:
            switch name {
            case "Int":
                guard let int = value as? IntValue, let number = Int64(int.value), Int64(Int32.min)...Int64(Int32.max) ~= number
                else { return expected("a 32-bit Int") }
            case "Float": if !(value is IntValue || value is FloatValue) { return expected("a Float") }
            case "String": if !(value is StringValue) { return expected("a String") }
            case "Boolean": if !(value is BooleanValue) { return expected("a Boolean") }
            case "ID": if !(value is StringValue || value is IntValue) { return expected("an ID (a String or an Int)") }
            default: break  // a custom scalar takes any literal
            }
            return []
        case .enumeration:
            let values = schema.values(of: name).map(\.name.value)
            guard let enumValue = value as? EnumValue, values.contains(enumValue.value) else { return expected("a value of enum \"\(name)\"") }
            return []
        case .inputObject:
            guard let object = value as? ObjectValue else { return expected("an object of input type \"\(name)\"") }
            let fields = schema.inputFields(of: name)
            var problems: [(String, Location?)] = []
            for field in object.fields where !fields.contains(where: { $0.name.value == field.name.value }) {
                problems.append((at + "\"\(name)\" has no field \"\(field.name.value)\"", field.loc))
            }
            for field in fields {
                let given = object.fields.first { $0.name.value == field.name.value }
                if let given {
                    problems += self.problems(given.value, TypeRef(field.type), path: "\(path).\(field.name.value)")
                } else if field.type is NonNullType && field.defaultValue == nil {
                    problems.append((at + "field \"\(name).\(field.name.value)\" of required type \"\(TypeRef(field.type))\" is not given", object.loc))
                }
            }
            if schema.isOneOf(name) && (object.fields.count != 1 || object.fields.first?.value is NullValue) {
                problems.append((at + "OneOf input object \"\(name)\" must be given exactly one non-null field", object.loc))
            }
            return problems
        default:
            return []
        }
    }

    // MARK: Defaults that never end

    /// An input field whose default names itself again through the defaults of the fields its
    /// object literal leaves out (`input A { x: A = {} }`: `{}` leaves `x` out, whose default is
    /// `{}` again): coercing it would never end.
    private mutating func defaultCycles() {
        var visited: Set<String> = []
        var path: [(field: String, location: Location?)] = []
        var indexByField: [String: Int] = [:]

        func fieldDefault(_ field: InputValueDefinition, _ type: String, _ key: String) {
            guard let literal = field.defaultValue else { return }
            if let index = indexByField[key], index > 0 {
                let via = index < path.count ? " via the default values of: " + path[index...].map(\.field).joined(separator: ", ") : ""
                report(
                    "Invalid circular reference. The default value of Input Object field \(key) references itself\(via).",
                    path[(index - 1)...].map(\.location))
                return
            }
            guard visited.insert(key).inserted else { return }
            path.append((key, literal.loc))
            indexByField[key] = path.count
            literalDefault(literal, type)
            path.removeLast()
            indexByField[key] = nil
        }
        func literalDefault(_ value: Value, _ type: String) {
            if let list = value as? ListValue {
                for item in list.values { literalDefault(item, type) }
                return
            }
            guard let object = value as? ObjectValue else { return }
            for field in schema.inputFields(of: type) {
                guard let named = TypeParts.named(field.type), schema.kind(of: named.name.value) == .inputObject else { continue }
                if let given = object.fields.first(where: { $0.name.value == field.name.value }) {
                    literalDefault(given.value, named.name.value)
                } else {
                    fieldDefault(field, named.name.value, "\(type).\(field.name.value)")
                }
            }
        }
        for name in schema.order where schema.types[name]?.kind == .inputObject {
            for field in schema.inputFields(of: name) {
                guard let named = TypeParts.named(field.type), schema.kind(of: named.name.value) == .inputObject else { continue }
                fieldDefault(field, named.name.value, "\(name).\(field.name.value)")
            }
        }
    }

    // MARK: @oneOf objects that can be built

    /// A `@oneOf` input object is built from one of its fields; when every field is an input
    /// object (not a list) that cannot be built either, no finite value exists. (An input
    /// object other than `@oneOf` that cannot be built has a non-null cycle, reported as such.)
    private mutating func uninhabited() {
        let inputs = schema.order.filter { schema.types[$0]?.kind == .inputObject }
        var inhabited: Set<String> = []
        var changed = true
        while changed {
            changed = false
            for name in inputs where !inhabited.contains(name) {
                let fields = schema.inputFields(of: name)
                func buildable(_ field: InputValueDefinition) -> Bool {
                    guard !(TypeRef(field.type).nullable.isList), let named = TypeParts.named(field.type),
                        schema.kind(of: named.name.value) == .inputObject
                    else { return true }
                    return inhabited.contains(named.name.value)
                }
                let canBuild = schema.isOneOf(name)
                    ? fields.contains(where: buildable)
                    : fields.allSatisfy { !($0.type is NonNullType) || $0.defaultValue != nil || buildable($0) }
                if canBuild {
                    inhabited.insert(name)
                    changed = true
                }
            }
        }
        for name in inputs where schema.isOneOf(name) && !inhabited.contains(name) {
            report(
                "OneOf Input Object \(name) cannot be built: each of its fields is an input object that needs \(name) again (or another that cannot be built), so no finite value exists.",
                [schema.types[name]?.locations.first ?? nil])
        }
    }
}
