import GraphQL

/// Operations and fragments as the generator sees them once they are validated: plain values of
/// our own, so that the IR, the templates and the document printer never touch the parser's AST
/// (only `Compilation` and the validation rules do, and `GQL.lower` converts).
enum GQL {
    /// A value written in a document: an argument, a default, a directive argument.
    indirect enum Value {
        case variable(String)
        /// Integers and floats keep the text they were written with.
        case int(String)
        case float(String)
        case string(String)
        case boolean(Bool)
        case null
        case enumValue(String)
        case list([Value])
        case object([(name: String, value: Value)])

        /// Whether a variable occurs anywhere inside.
        var containsVariable: Bool {
            switch self {
            case .variable: return true
            case .list(let values): return values.contains { $0.containsVariable }
            case .object(let fields): return fields.contains { $0.value.containsVariable }
            default: return false
            }
        }
    }

    /// `name: value`, as an argument of a field or a directive.
    struct Argument {
        var name: String
        var value: Value
    }

    /// `@name(arguments)`.
    struct Directive {
        var name: String
        var arguments: [Argument]

        func argument(_ name: String) -> Value? { arguments.first { $0.name == name }?.value }
    }

    /// `{ ... }`. A class: its identity tells two places that spread the same selections apart
    /// from two that merely look alike, which decides when generated types can be shared.
    final class SelectionSet {
        let selections: [Selection]
        init(_ selections: [Selection]) { self.selections = selections }
    }

    enum Selection {
        case field(Field)
        case inlineFragment(InlineFragment)
        case fragmentSpread(FragmentSpread)
    }

    struct Field {
        var alias: String?
        var name: String
        var arguments: [Argument]
        var directives: [Directive]
        var selectionSet: SelectionSet?

        /// The key of the field in the response: the alias, else the name.
        var responseKey: String { alias ?? name }
    }

    struct InlineFragment {
        var typeCondition: String?
        var directives: [Directive]
        var selectionSet: SelectionSet
    }

    struct FragmentSpread {
        var name: String
        var directives: [Directive]
    }

    struct VariableDefinition {
        var description: String? = nil
        var name: String
        var type: TypeRef
        var defaultValue: Value?
        var directives: [Directive]
    }

    /// `query`, `mutation` or `subscription`.
    enum OperationKind: String {
        case query, mutation, subscription
    }

    struct Operation {
        /// Its description (`"Finds items" query Items { … }`), for the generated doc comment.
        var description: String? = nil
        var kind: OperationKind
        var name: String
        var variables: [VariableDefinition]
        var directives: [Directive]
        var selectionSet: SelectionSet
    }

    struct Fragment {
        var description: String? = nil
        var name: String
        var typeCondition: String
        var directives: [Directive]
        var selectionSet: SelectionSet
    }
}

extension [GQL.Directive] {
    /// Marked `@apollo_client_ios_localCacheMutation`: generated with settable fields, never sent.
    var isLocalCacheMutation: Bool { contains { $0.name == "apollo_client_ios_localCacheMutation" } }

    /// The modules named by `@import(module:)`.
    var importedModules: [String] {
        filter { $0.name == "import" }.compactMap { directive in
            if case .string(let module)? = directive.argument("module") { return module }
            return nil
        }
    }
}

// MARK: From the parser's AST

extension GQL {
    /// A validated operation, converted once. Anonymous operations never get here (they are an
    /// error before), so the name is the empty string only in unreachable cases.
    /// The descriptions of a definition and its variables, by where each starts (see
    /// `ExecutableDescriptions`).
    typealias Descriptions = (Location?) -> String?

    static func lower(_ operation: OperationDefinition, descriptions: Descriptions = { _ in nil }) -> Operation {
        Operation(
            description: descriptions(operation.loc), kind: OperationKind(rawValue: operation.operation.rawValue) ?? .query,
            name: operation.name?.value ?? "",
            variables: operation.variableDefinitions.map { definition in
                VariableDefinition(
                    description: descriptions(definition.loc), name: definition.variable.name.value, type: TypeRef(definition.type),
                    defaultValue: definition.defaultValue.map(lower), directives: definition.directives.map(lower))
            },
            directives: operation.directives.map(lower), selectionSet: lower(operation.selectionSet))
    }

    static func lower(_ fragment: FragmentDefinition, descriptions: Descriptions = { _ in nil }) -> Fragment {
        Fragment(
            description: descriptions(fragment.loc), name: fragment.name.value, typeCondition: fragment.typeCondition.name.value,
            directives: fragment.directives.map(lower), selectionSet: lower(fragment.selectionSet))
    }

    private static func lower(_ selectionSet: GraphQL.SelectionSet) -> SelectionSet {
        SelectionSet(selectionSet.selections.compactMap { selection -> Selection? in
            switch selection {
            case let field as GraphQL.Field:
                return .field(Field(
                    alias: field.alias?.value, name: field.name.value,
                    arguments: field.arguments.map { Argument(name: $0.name.value, value: lower($0.value)) },
                    directives: field.directives.map(lower), selectionSet: field.selectionSet.map(lower)))
            case let inline as GraphQL.InlineFragment:
                return .inlineFragment(InlineFragment(
                    typeCondition: inline.typeCondition?.name.value, directives: inline.directives.map(lower),
                    selectionSet: lower(inline.selectionSet)))
            case let spread as GraphQL.FragmentSpread:
                return .fragmentSpread(FragmentSpread(name: spread.name.value, directives: spread.directives.map(lower)))
            default:
                return nil
            }
        })
    }

    private static func lower(_ directive: GraphQL.Directive) -> Directive {
        Directive(name: directive.name.value, arguments: directive.arguments.map { Argument(name: $0.name.value, value: lower($0.value)) })
    }

    static func lower(_ value: any GraphQL.Value) -> Value {
        switch value {
        case let variable as GraphQL.Variable: return .variable(variable.name.value)
        case let int as IntValue: return .int(int.value)
        case let float as FloatValue: return .float(float.value)
        case let string as StringValue: return .string(string.value)
        case let bool as BooleanValue: return .boolean(bool.value)
        case let enumValue as EnumValue: return .enumValue(enumValue.value)
        case let list as ListValue: return .list(list.values.map(lower))
        case let object as ObjectValue: return .object(object.fields.map { ($0.name.value, lower($0.value)) })
        default: return .null
        }
    }
}
