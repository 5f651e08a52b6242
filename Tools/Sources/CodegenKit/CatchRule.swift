import GraphQL

/// What `@catch` accepts beyond its declaration: `levels` other than `[0]` (catching inside a
/// list's items) is not generated, so it is refused with its place rather than ignored.
enum CatchRule {
    static func check(_ definitions: [Definition]) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        func check(_ directives: [Directive]) {
            for directive in directives where directive.name.value == "catch" {
                guard let levels = directive.arguments.first(where: { $0.name.value == "levels" })?.value else { continue }
                let values = (levels as? ListValue)?.values ?? [levels]
                if values.count != 1 || (values[0] as? IntValue)?.value != "0" {
                    diagnostics.append(Diagnostic(
                        at: directive.loc, fallbackFile: "operations",
                        "@catch(levels:) supports only [0] (the field itself); catch the list field rather than its items"))
                }
            }
        }
        func walk(_ selectionSet: SelectionSet) {
            for selection in selectionSet.selections {
                switch selection {
                case let field as Field:
                    check(field.directives)
                    if let nested = field.selectionSet { walk(nested) }
                case let inline as InlineFragment:
                    walk(inline.selectionSet)
                default:
                    continue
                }
            }
        }
        for definition in definitions {
            if let operation = definition as? OperationDefinition {
                check(operation.directives)
                walk(operation.selectionSet)
            } else if let fragment = definition as? FragmentDefinition {
                walk(fragment.selectionSet)
            }
        }
        return diagnostics
    }
}
