import GraphQL

/// The incremental-delivery rules for `@defer` and `@stream` that GraphQLSwift's validator does
/// not know: a label is a string literal, unique within its operation across both directives
/// (fragments spread into it included); `@stream` goes on list fields only, with an `initialCount`
/// that is not negative; and a subscription's root selection set has no deferred fragment and no
/// streamed field.
struct IncrementalDeliveryRule {
    let schema: SchemaModel
    let fragments: [String: FragmentDefinition]
    private(set) var diagnostics: [Diagnostic] = []

    init(schema: SchemaModel, fragments: [String: FragmentDefinition]) {
        self.schema = schema
        self.fragments = fragments
    }

    mutating func check(_ operations: [OperationDefinition], rootTypes: [OperationType: String]) {
        for operation in operations {
            var labels: [String: Location?] = [:]
            var visited: Set<String> = []
            walk(
                operation.selectionSet, on: rootTypes[operation.operation] ?? "", labels: &labels, visited: &visited,
                isSubscriptionRoot: operation.operation == .subscription)
        }
    }

    private mutating func walk(
        _ selectionSet: SelectionSet, on parentType: String, labels: inout [String: Location?], visited: inout Set<String>,
        isSubscriptionRoot: Bool
    ) {
        for selection in selectionSet.selections {
            switch selection {
            case let field as Field:
                let definition = schema.field(field.name.value, on: parentType)
                checkStream(field, definition: definition, labels: &labels, isSubscriptionRoot: isSubscriptionRoot)
                if let nested = field.selectionSet {
                    walk(nested, on: definition?.type.namedType ?? "", labels: &labels, visited: &visited, isSubscriptionRoot: false)
                }
            case let inline as InlineFragment:
                checkDefer(inline.directives, labels: &labels, isSubscriptionRoot: isSubscriptionRoot)
                walk(
                    inline.selectionSet, on: inline.typeCondition?.name.value ?? parentType, labels: &labels, visited: &visited,
                    isSubscriptionRoot: isSubscriptionRoot)
            case let spread as FragmentSpread:
                checkDefer(spread.directives, labels: &labels, isSubscriptionRoot: isSubscriptionRoot)
                let name = spread.name.value
                if let fragment = fragments[name], visited.insert(name).inserted {
                    walk(
                        fragment.selectionSet, on: fragment.typeCondition.name.value, labels: &labels, visited: &visited,
                        isSubscriptionRoot: isSubscriptionRoot)
                }
            default:
                continue
            }
        }
    }

    private mutating func checkDefer(_ directives: [Directive], labels: inout [String: Location?], isSubscriptionRoot: Bool) {
        for directive in directives where directive.name.value == "defer" {
            if isSubscriptionRoot {
                diagnostics.append(Diagnostic(
                    at: directive.loc, fallbackFile: "operations", "@defer is not allowed on the root selection set of a subscription"))
            }
            checkLabel(of: directive, labels: &labels)
        }
    }

    private mutating func checkStream(_ field: Field, definition: SchemaModel.FieldDefinition?, labels: inout [String: Location?], isSubscriptionRoot: Bool) {
        for directive in field.directives where directive.name.value == "stream" {
            let name = field.alias?.value ?? field.name.value
            if isSubscriptionRoot {
                diagnostics.append(Diagnostic(
                    at: directive.loc, fallbackFile: "operations", "@stream is not allowed on '\(name)', a root field of a subscription"))
            }
            if let definition, !definition.type.nullable.isList {
                diagnostics.append(Diagnostic(
                    at: directive.loc, fallbackFile: "operations",
                    "@stream is only for list fields, and '\(name)' is of type \(definition.type), which is not a list"))
            }
            if let count = directive.arguments.first(where: { $0.name.value == "initialCount" })?.value as? IntValue,
                (Int(count.value) ?? -1) < 0
            {
                diagnostics.append(Diagnostic(
                    at: directive.loc, fallbackFile: "operations", "@stream's initialCount on '\(name)' must not be negative (it is \(count.value))"))
            }
            checkLabel(of: directive, labels: &labels)
        }
    }

    private mutating func checkLabel(of directive: Directive, labels: inout [String: Location?]) {
        let kind = directive.name.value
        guard let label = directive.arguments.first(where: { $0.name.value == "label" }) else { return }
        guard let value = label.value as? StringValue else {
            diagnostics.append(Diagnostic(at: directive.loc, fallbackFile: "operations", "@\(kind)'s label must be a string literal"))
            return
        }
        if let first = labels[value.value] {
            diagnostics.append(Diagnostic(
                at: directive.loc, fallbackFile: "operations",
                "@\(kind) label \"\(value.value)\" is used more than once in one operation\(Diagnostic.reference("first at", first))"))
        } else {
            labels[value.value] = directive.loc
        }
    }
}
