import CodegenKit
import Foundation
import GraphQL

/// Operations written against a real schema, from a seed: what an app's `.graphql` files look like
/// (a root field with its required arguments as variables, a handful of scalars per object, nested
/// objects and connections a few levels deep, inline fragments on interfaces and unions, named
/// fragments shared between operations). The input of the compile-time benchmark
/// (`scripts/bench.sh codegen-compare`), for schemas too large to write operations for by hand.
package struct SchemaOperations {
    /// The operations and fragments, and how many fields they select (`__typename` aside).
    package struct Output: Sendable {
        package var text: String
        package var selectedFields: Int
    }

    private struct FieldInfo {
        var name: String
        var type: String  // the named type
        var required: [(name: String, type: TypeRef)]
        var optionalArguments: Set<String>
        var deprecated: Bool
    }

    private enum Kind { case scalar, enumeration, object, interface, union, input }

    private var kinds: [String: Kind] = [:]
    private var fields: [String: [FieldInfo]] = [:]
    private var possible: [String: [String]] = [:]
    private var queryType = "Query"

    /// Reads the schema's SDL.
    package init(schema: String) throws {
        for scalar in ["String", "Int", "Float", "Boolean", "ID"] { kinds[scalar] = .scalar }
        var implementors: [String: [String]] = [:]
        for definition in try parse(source: Source(body: schema, name: "schema")).definitions {
            switch definition {
            case let object as ObjectTypeDefinition:
                kinds[object.name.value] = .object
                fields[object.name.value] = object.fields.map(Self.info)
                for interface in object.interfaces { implementors[interface.name.value, default: []].append(object.name.value) }
            case let interface as InterfaceTypeDefinition:
                kinds[interface.name.value] = .interface
                fields[interface.name.value] = interface.fields.map(Self.info)
            case let union as UnionTypeDefinition:
                kinds[union.name.value] = .union
                possible[union.name.value] = union.types.map(\.name.value)
            case let enumeration as EnumTypeDefinition: kinds[enumeration.name.value] = .enumeration
            case let scalar as ScalarTypeDefinition: kinds[scalar.name.value] = .scalar
            case let input as InputObjectTypeDefinition: kinds[input.name.value] = .input
            case let schema as SchemaDefinition:
                if let query = schema.operationTypes.first(where: { $0.operation == .query }) { queryType = query.type.name.value }
            default: continue
            }
        }
        for (interface, objects) in implementors { possible[interface] = objects.sorted() }
    }

    private static func info(_ field: FieldDefinition) -> FieldInfo {
        var required: [(String, TypeRef)] = []
        var optional: Set<String> = []
        for argument in field.arguments {
            if argument.type is NonNullType && argument.defaultValue == nil {
                required.append((argument.name.value, TypeRef(argument.type)))
            } else {
                optional.insert(argument.name.value)
            }
        }
        return FieldInfo(
            name: field.name.value, type: TypeRef(field.type).namedType, required: required, optionalArguments: optional,
            deprecated: field.directives.contains { $0.name.value == "deprecated" })
    }

    /// `count` operations (queries on the root fields that return objects), `depth` levels deep.
    package func operations(count: Int, seed: UInt64, depth: Int = 4) -> Output {
        var generator = Generator(schema: self, random: SeededRandom(seed: seed), depth: depth)
        var text = ""
        let roots = (fields[queryType] ?? []).filter { field in
            !field.deprecated && isComposite(field.type) && field.required.allSatisfy { kinds[$0.type.namedType] != nil }
        }
        guard !roots.isEmpty else { return Output(text: "", selectedFields: 0) }
        for index in 0..<count {
            text += generator.operation(named: "Op\(index)", root: roots[generator.random.int(in: 0..<roots.count)])
        }
        text += generator.fragmentDefinitions()
        return Output(text: text, selectedFields: generator.selectedFields)
    }

    private func isComposite(_ type: String) -> Bool {
        switch kinds[type] {
        case .object, .interface, .union: return true
        default: return false
        }
    }


    private struct Generator {
        let schema: SchemaOperations
        var random: SeededRandom
        let depth: Int
        var selectedFields = 0
        var variables: [(name: String, type: TypeRef)] = []
        /// Named fragments, by type, with their text; written once after the operations.
        var fragments: [String: String] = [:]
        var fragmentOrder: [String] = []

        init(schema: SchemaOperations, random: SeededRandom, depth: Int) {
            self.schema = schema
            self.random = random
            self.depth = depth
        }

        mutating func operation(named name: String, root: FieldInfo) -> String {
            variables = []
            let body = field(root, level: 1, indent: "  ")
            let declared = variables.isEmpty ? "" : "(" + variables.map { "$\($0.name): \($0.type)" }.joined(separator: ", ") + ")"
            return "query \(name)\(declared) {\n\(body)}\n\n"
        }

        mutating func fragmentDefinitions() -> String {
            fragmentOrder.map { fragments[$0]! }.joined()
        }

        /// One field with its arguments and, for an object, its selections.
        mutating func field(_ info: FieldInfo, level: Int, indent: String) -> String {
            selectedFields += 1
            var arguments: [String] = []
            for argument in info.required {
                let variable = "v\(variables.count)"
                variables.append((variable, argument.type))
                arguments.append("\(argument.name): $\(variable)")
            }
            // Connections want a page size.
            if info.optionalArguments.contains("first") { arguments.append("first: 10") }
            let call = info.name + (arguments.isEmpty ? "" : "(" + arguments.joined(separator: ", ") + ")")
            guard schema.isComposite(info.type) else { return "\(indent)\(call)\n" }
            return "\(indent)\(call) {\n" + selections(on: info.type, level: level + 1, indent: indent + "  ") + "\(indent)}\n"
        }

        /// Fields without required arguments that are not deprecated, of one kind.
        func candidates(of type: String, composite: Bool) -> [FieldInfo] {
            (schema.fields[type] ?? []).filter { field in
                !field.deprecated && field.required.isEmpty && schema.isComposite(field.type) == composite
            }
        }

        mutating func pick(_ fields: [FieldInfo], count: Int) -> [FieldInfo] { pick(fields, count: count, by: \.name) }

        /// Up to `count` of `fields` chosen at random, in name order.
        mutating func pick<T>(_ fields: [T], count: Int, by name: (T) -> String) -> [T] {
            var pool = fields
            var chosen: [T] = []
            while chosen.count < count, !pool.isEmpty {
                chosen.append(pool.remove(at: random.int(in: 0..<pool.count)))
            }
            return chosen.sorted { name($0) < name($1) }
        }

        /// The selections on a composite type: scalars, nested objects while depth allows, inline
        /// fragments on some possible types of an interface or union, sometimes a named fragment.
        mutating func selections(on type: String, level: Int, indent: String) -> String {
            var out = ""
            if schema.kinds[type] != .union {
                let scalars = candidates(of: type, composite: false)
                for info in pick(scalars, count: 2 + random.int(in: 0..<5)) { out += field(info, level: level, indent: indent) }
                if level < depth {
                    let objects = candidates(of: type, composite: true)
                    for info in pick(objects, count: level == 2 ? 2 : random.int(in: 0..<2) + 1) { out += field(info, level: level, indent: indent) }
                }
                if level > 2, random.int(in: 0..<4) == 0 { out += indent + "..." + fragment(on: type) + "\n" }
            }
            if schema.kinds[type] != .object, let possible = schema.possible[type], !possible.isEmpty {
                for object in pick(possible, count: 2, by: { $0 }) {
                    let scalars = pick(candidates(of: object, composite: false), count: 2)
                    guard !scalars.isEmpty else { continue }
                    out += "\(indent)... on \(object) {\n"
                    for info in scalars { out += field(info, level: level, indent: indent + "  ") }
                    out += "\(indent)}\n"
                }
            }
            if out.isEmpty { out = "\(indent)__typename\n" }
            return out
        }

        /// The name of the named fragment on `type` (its scalars), defined on first use.
        mutating func fragment(on type: String) -> String {
            let name = "\(type)Parts"
            if fragments[name] == nil {
                // Counted once, where it is defined: its fields are written once.
                var body = ""
                for info in pick(candidates(of: type, composite: false), count: 4) {
                    selectedFields += 1
                    body += "  \(info.name)\n"
                }
                fragments[name] = "fragment \(name) on \(type) {\n\(body.isEmpty ? "  __typename\n" : body)}\n\n"
                fragmentOrder.append(name)
            }
            return name
        }
    }
}

extension SchemaOperations {
    /// How many fields a document's operations and fragments select (`__typename` aside), each
    /// place counted once.
    package static func selectedFieldCount(in document: String) throws -> Int {
        func count(_ selectionSet: SelectionSet?) -> Int {
            (selectionSet?.selections ?? []).reduce(0) { total, selection in
                switch selection {
                case let field as Field: return total + (field.name.value == "__typename" ? 0 : 1) + count(field.selectionSet)
                case let inline as InlineFragment: return total + count(inline.selectionSet)
                default: return total
                }
            }
        }
        return try parse(source: Source(body: document, name: "operations")).definitions.reduce(0) { total, definition in
            if let operation = definition as? OperationDefinition { return total + count(operation.selectionSet) }
            if let fragment = definition as? FragmentDefinition { return total + count(fragment.selectionSet) }
            return total
        }
    }
}
