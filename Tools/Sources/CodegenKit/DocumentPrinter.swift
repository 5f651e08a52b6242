import GraphQL

/// Prints operations and fragments as the documents sent to the server: compact, deterministic,
/// and with `__typename` added to every selection set below the root (as Apollo does), so that
/// type conditions can be decided and cache records know their type. Client-only directives are
/// left out.
enum DocumentPrinter {
    static func print(_ operation: OperationDefinition) -> String {
        var out = operation.operation.rawValue
        if let name = operation.name?.value { out += " " + name }
        if !operation.variableDefinitions.isEmpty {
            out += "(" + operation.variableDefinitions.map { definition in
                var text = "$\(definition.variable.name.value): \(TypeRef(definition.type))"
                if let value = definition.defaultValue { text += " = " + print(value) }
                return text + directives(definition.directives)
            }.joined(separator: ", ") + ")"
        }
        out += directives(operation.directives)
        return out + " " + print(operation.selectionSet, addTypename: false)
    }

    static func print(_ fragment: FragmentDefinition) -> String {
        "fragment \(fragment.name.value) on \(fragment.typeCondition.name.value)\(directives(fragment.directives)) "
            + print(fragment.selectionSet, addTypename: true)
    }

    static func print(_ selectionSet: SelectionSet, addTypename: Bool) -> String {
        var parts: [String] = []
        let hasTypename = selectionSet.selections.contains { ($0 as? GraphQL.Field)?.name.value == "__typename" && ($0 as? GraphQL.Field)?.alias == nil }
        if addTypename && !hasTypename { parts.append("__typename") }
        for selection in selectionSet.selections {
            switch selection {
            case let field as GraphQL.Field:
                var text = field.alias.map { "\($0.value): " } ?? ""
                text += field.name.value
                if !field.arguments.isEmpty {
                    text += "(" + field.arguments.map { "\($0.name.value): \(print($0.value))" }.joined(separator: ", ") + ")"
                }
                text += directives(field.directives)
                if let nested = field.selectionSet { text += " " + print(nested, addTypename: true) }
                parts.append(text)
            case let inline as InlineFragment:
                var text = "..."
                if let condition = inline.typeCondition { text += " on \(condition.name.value)" }
                text += directives(inline.directives)
                parts.append(text + " " + print(inline.selectionSet, addTypename: false))
            case let spread as FragmentSpread:
                parts.append("...\(spread.name.value)\(directives(spread.directives))")
            default:
                continue
            }
        }
        return "{ " + parts.joined(separator: " ") + " }"
    }

    /// Directives that only the client reads: never sent to a server.
    static let clientOnlyDirectives: Set<String> = ["apollo_client_ios_localCacheMutation", "typePolicy", "fieldPolicy", "import", "nonnull"]

    static func directives(_ directives: [Directive]) -> String {
        directives.filter { !clientOnlyDirectives.contains($0.name.value) }.map { directive in
            " @\(directive.name.value)"
                + (directive.arguments.isEmpty ? "" : "(" + directive.arguments.map { "\($0.name.value): \(print($0.value))" }.joined(separator: ", ") + ")")
        }.joined()
    }

    static func print(_ value: any Value) -> String {
        switch value {
        case let variable as Variable: return "$" + variable.name.value
        case let int as IntValue: return int.value
        case let float as FloatValue: return float.value
        case let string as StringValue: return IntrospectionSDL.stringLiteral(string.value)
        case let bool as BooleanValue: return bool.value ? "true" : "false"
        case is NullValue: return "null"
        case let enumValue as EnumValue: return enumValue.value
        case let list as ListValue: return "[" + list.values.map(print).joined(separator: ", ") + "]"
        case let object as ObjectValue: return "{" + object.fields.map { "\($0.name.value): \(print($0.value))" }.joined(separator: ", ") + "}"
        default: return "null"
        }
    }
}
