/// Prints operations and fragments as the documents sent to the server: compact, deterministic,
/// and with `__typename` added to every selection set below the root (as Apollo does), so that
/// type conditions can be decided and cache records know their type. With the schema, the key
/// fields that `@typePolicy(keyFields:)` declares are added where a selection set lacks them (on an
/// interface or union, as `... on Type { keys }` for each possible type whose own differ), so that
/// every object arrives with what keys it in the cache; the generated accessors do not change.
/// Client-only directives are left out.
enum DocumentPrinter {
    /// Directives that only the client reads: never sent to a server.
    static let clientOnlyDirectives: Set<String> = [
        "apollo_client_ios_localCacheMutation", "typePolicy", "fieldPolicy", "import", "nonnull", "catch", "catchByDefault",
    ]

    /// The document sent for an operation: the operation, then every fragment it uses (at any
    /// depth), by name.
    static func document(of operation: GQL.Operation, fragments: [String: GQL.Fragment], schema: SchemaModel? = nil) -> String {
        var names: Set<String> = []
        var pending = [operation.selectionSet]
        while let selectionSet = pending.popLast() {
            for selection in selectionSet.selections {
                switch selection {
                case .field(let field): if let nested = field.selectionSet { pending.append(nested) }
                case .inlineFragment(let inline): pending.append(inline.selectionSet)
                case .fragmentSpread(let spread):
                    if names.insert(spread.name).inserted, let fragment = fragments[spread.name] { pending.append(fragment.selectionSet) }
                }
            }
        }
        return ([print(operation, schema: schema)] + names.sorted().compactMap { fragments[$0].map { print($0, schema: schema) } })
            .joined(separator: " ")
    }

    static func print(_ operation: GQL.Operation, schema: SchemaModel? = nil) -> String {
        var out = operation.kind.rawValue + " " + operation.name
        if !operation.variables.isEmpty {
            out += "(" + operation.variables.map { definition in
                var text = "$\(definition.name): \(definition.type)"
                if let value = definition.defaultValue { text += " = " + print(value) }
                return text + directives(definition.directives)
            }.joined(separator: ", ") + ")"
        }
        out += directives(operation.directives)
        let root = schema.map { Scope(schema: $0, type: $0.rootType(of: operation.kind), addsKeys: false) }
        return out + " " + print(operation.selectionSet, addTypename: false, scope: root)
    }

    static func print(_ fragment: GQL.Fragment, schema: SchemaModel? = nil) -> String {
        "fragment \(fragment.name) on \(fragment.typeCondition)\(directives(fragment.directives)) "
            + print(fragment.selectionSet, addTypename: true, scope: schema.map { Scope(schema: $0, type: fragment.typeCondition, addsKeys: true) })
    }

    /// Where a selection set is printed: the schema, the type it is on, and whether key fields are
    /// added there (not at an operation's root, nor inside a type condition, whose enclosing
    /// selection set adds them).
    struct Scope {
        let schema: SchemaModel
        let type: String
        let addsKeys: Bool

        func nested(_ type: String?, addsKeys: Bool) -> Scope? {
            type.map { Scope(schema: schema, type: $0, addsKeys: addsKeys) }
        }
    }

    static func print(_ selectionSet: GQL.SelectionSet, addTypename: Bool, scope: Scope? = nil) -> String {
        var parts: [String] = []
        let direct = Set(selectionSet.selections.compactMap { selection -> String? in
            if case .field(let field) = selection, field.alias == nil { return field.name }
            return nil
        })
        if addTypename && !direct.contains("__typename") { parts.append("__typename") }
        for selection in selectionSet.selections {
            switch selection {
            case .field(let field):
                var text = field.alias.map { "\($0): " } ?? ""
                text += field.name + arguments(field.arguments) + directives(field.directives)
                if let nested = field.selectionSet {
                    let type = scope.flatMap { $0.schema.type(named: $0.type)?.field(named: field.name)?.type.namedType }
                    text += " " + print(nested, addTypename: true, scope: scope?.nested(type, addsKeys: true))
                }
                parts.append(text)
            case .inlineFragment(let inline):
                var text = "..."
                if let condition = inline.typeCondition { text += " on \(condition)" }
                text += directives(inline.directives)
                parts.append(text + " " + print(inline.selectionSet, addTypename: false, scope: scope?.nested(inline.typeCondition ?? scope?.type, addsKeys: false)))
            case .fragmentSpread(let spread):
                parts.append("...\(spread.name)\(directives(spread.directives))")
            }
        }
        if let scope, scope.addsKeys { parts += missingKeyFields(on: scope.type, selected: direct, schema: scope.schema) }
        return "{ " + parts.joined(separator: " ") + " }"
    }

    /// The declared key fields a selection set on `type` lacks: its own type's as fields, and on an
    /// interface or union each possible type's that differ, as `... on Type { keys }`.
    static func missingKeyFields(on type: String, selected: Set<String>, schema: SchemaModel) -> [String] {
        guard let definition = schema.type(named: type) else { return [] }
        let own = schema.declaredKeyFields(of: type)
        var parts = own.filter { !selected.contains($0) && definition.field(named: $0) != nil }
        guard definition.kind != .object else { return parts }
        for possible in schema.possibleTypes(of: type).sorted() {
            let keys = schema.declaredKeyFields(of: possible)
            guard !keys.isEmpty, keys != own else { continue }
            let missing = keys.filter { !selected.contains($0) && schema.type(named: possible)?.field(named: $0) != nil }
            if !missing.isEmpty { parts.append("... on \(possible) { " + missing.joined(separator: " ") + " }") }
        }
        return parts
    }

    static func directives(_ directives: [GQL.Directive]) -> String {
        directives.filter { !clientOnlyDirectives.contains($0.name) }.map { " @\($0.name)" + arguments($0.arguments) }.joined()
    }

    static func arguments(_ arguments: [GQL.Argument]) -> String {
        arguments.isEmpty ? "" : "(" + arguments.map { "\($0.name): \(print($0.value))" }.joined(separator: ", ") + ")"
    }

    static func print(_ value: GQL.Value) -> String {
        switch value {
        case .variable(let name): return "$" + name
        case .int(let text), .float(let text), .enumValue(let text): return text
        case .string(let string): return IntrospectionSDL.stringLiteral(string)
        case .boolean(let bool): return bool ? "true" : "false"
        case .null: return "null"
        case .list(let values): return "[" + values.map(print).joined(separator: ", ") + "]"
        case .object(let fields): return "{" + fields.map { "\($0.name): \(print($0.value))" }.joined(separator: ", ") + "}"
        }
    }
}
