import GraphQL

/// The incremental-delivery rules for `@defer` that GraphQLSwift's validator does not know: a
/// label is a string literal, unique within its operation (fragments spread into it included),
/// and a subscription's root selection set has no deferred fragment.
struct DeferRule {
    let fragments: [String: FragmentDefinition]
    private(set) var diagnostics: [Diagnostic] = []

    init(fragments: [String: FragmentDefinition]) {
        self.fragments = fragments
    }

    mutating func check(_ operations: [OperationDefinition]) {
        for operation in operations {
            var labels: [String: Location?] = [:]
            var visited: Set<String> = []
            walk(operation.selectionSet, labels: &labels, visited: &visited, isSubscriptionRoot: operation.operation == .subscription)
        }
    }

    private mutating func walk(
        _ selectionSet: SelectionSet, labels: inout [String: Location?], visited: inout Set<String>, isSubscriptionRoot: Bool
    ) {
        for selection in selectionSet.selections {
            switch selection {
            case let field as Field:
                if let nested = field.selectionSet { walk(nested, labels: &labels, visited: &visited, isSubscriptionRoot: false) }
            case let inline as InlineFragment:
                check(inline.directives, labels: &labels, isSubscriptionRoot: isSubscriptionRoot)
                walk(inline.selectionSet, labels: &labels, visited: &visited, isSubscriptionRoot: isSubscriptionRoot)
            case let spread as FragmentSpread:
                check(spread.directives, labels: &labels, isSubscriptionRoot: isSubscriptionRoot)
                let name = spread.name.value
                if let fragment = fragments[name], visited.insert(name).inserted {
                    walk(fragment.selectionSet, labels: &labels, visited: &visited, isSubscriptionRoot: isSubscriptionRoot)
                }
            default:
                continue
            }
        }
    }

    private mutating func check(_ directives: [Directive], labels: inout [String: Location?], isSubscriptionRoot: Bool) {
        for directive in directives where directive.name.value == "defer" {
            if isSubscriptionRoot {
                diagnostics.append(Diagnostic(
                    at: directive.loc, fallbackFile: "operations", "@defer is not allowed on the root selection set of a subscription"))
            }
            guard let label = directive.arguments.first(where: { $0.name.value == "label" }) else { continue }
            guard let value = label.value as? StringValue else {
                diagnostics.append(Diagnostic(at: directive.loc, fallbackFile: "operations", "@defer's label must be a string literal"))
                continue
            }
            if let first = labels[value.value] {
                diagnostics.append(Diagnostic(
                    at: directive.loc, fallbackFile: "operations",
                    "@defer label \"\(value.value)\" is used more than once in one operation\(Diagnostic.reference("first at", first))"))
            } else {
                labels[value.value] = directive.loc
            }
        }
    }
}
