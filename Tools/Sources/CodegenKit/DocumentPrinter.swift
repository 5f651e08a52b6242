/// Prints operations and fragments as the documents sent to the server: compact, deterministic,
/// and with `__typename` added to every selection set below the root (as Apollo does), so that
/// type conditions can be decided and cache records know their type. Client-only directives are
/// left out.
enum DocumentPrinter {
    /// Directives that only the client reads: never sent to a server.
    static let clientOnlyDirectives: Set<String> = ["apollo_client_ios_localCacheMutation", "typePolicy", "fieldPolicy", "import", "nonnull"]

    /// The document sent for an operation: the operation, then every fragment it uses (at any
    /// depth), by name.
    static func document(of operation: GQL.Operation, fragments: [String: GQL.Fragment]) -> String {
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
        return ([print(operation)] + names.sorted().compactMap { fragments[$0].map(print) }).joined(separator: " ")
    }

    static func print(_ operation: GQL.Operation) -> String {
        var out = operation.kind.rawValue + " " + operation.name
        if !operation.variables.isEmpty {
            out += "(" + operation.variables.map { definition in
                var text = "$\(definition.name): \(definition.type)"
                if let value = definition.defaultValue { text += " = " + print(value) }
                return text + directives(definition.directives)
            }.joined(separator: ", ") + ")"
        }
        out += directives(operation.directives)
        return out + " " + print(operation.selectionSet, addTypename: false)
    }

    static func print(_ fragment: GQL.Fragment) -> String {
        "fragment \(fragment.name) on \(fragment.typeCondition)\(directives(fragment.directives)) "
            + print(fragment.selectionSet, addTypename: true)
    }

    static func print(_ selectionSet: GQL.SelectionSet, addTypename: Bool) -> String {
        var parts: [String] = []
        let hasTypename = selectionSet.selections.contains {
            if case .field(let field) = $0 { return field.name == "__typename" && field.alias == nil }
            return false
        }
        if addTypename && !hasTypename { parts.append("__typename") }
        for selection in selectionSet.selections {
            switch selection {
            case .field(let field):
                var text = field.alias.map { "\($0): " } ?? ""
                text += field.name + arguments(field.arguments) + directives(field.directives)
                if let nested = field.selectionSet { text += " " + print(nested, addTypename: true) }
                parts.append(text)
            case .inlineFragment(let inline):
                var text = "..."
                if let condition = inline.typeCondition { text += " on \(condition)" }
                text += directives(inline.directives)
                parts.append(text + " " + print(inline.selectionSet, addTypename: false))
            case .fragmentSpread(let spread):
                parts.append("...\(spread.name)\(directives(spread.directives))")
            }
        }
        return "{ " + parts.joined(separator: " ") + " }"
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
