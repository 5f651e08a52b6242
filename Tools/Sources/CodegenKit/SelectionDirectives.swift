import Foundation

/// `@include(if: $x)` / `@skip(if: $x)` on a variable.
struct Condition: Hashable, Comparable {
    var variable: String
    var inverted: Bool

    static func < (lhs: Condition, rhs: Condition) -> Bool { (lhs.variable, lhs.inverted ? 1 : 0) < (rhs.variable, rhs.inverted ? 1 : 0) }

    /// The conditions of a selection's directives; `nil` when a literal makes it never apply.
    static func of(_ directives: [GQL.Directive]) -> [Condition]? {
        var result: [Condition] = []
        for directive in directives where directive.name == "include" || directive.name == "skip" {
            let inverted = directive.name == "skip"
            switch directive.argument("if") {
            case .variable(let name)?: result.append(Condition(variable: name, inverted: inverted))
            case .boolean(let literal)?: if literal == inverted { return nil }
            default: continue
            }
        }
        return result
    }
}

/// `@defer(label:, if:)` on a fragment: how the server is asked to deliver it later.
struct DeferDirective {
    var label: String?
    /// `if: $variable`; `nil` when always deferred.
    var variable: String?

    /// The deferral a fragment's directives ask for; `nil` when none does (no `@defer`, or
    /// `if: false`, which the server answers without deferral).
    static func of(_ directives: [GQL.Directive]) -> DeferDirective? {
        guard let directive = directives.first(where: { $0.name == "defer" }) else { return nil }
        var result = DeferDirective()
        switch directive.argument("if") {
        case .boolean(false)?: return nil
        case .variable(let name)?: result.variable = name
        default: break
        }
        if case .string(let label)? = directive.argument("label") { result.label = label }
        return result
    }
}

/// A fragment the server may deliver after the rest (`@defer`): a property that says whether its
/// data has arrived, never fields that claim to be present.
final class DeferredIR {
    let directive: DeferDirective
    /// The type condition (an inline fragment's, or the named fragment's).
    let typeCondition: String
    /// The type condition is narrower than the scope: the property is `nil` for other types.
    let narrows: Bool
    /// `@include`/`@skip` around it: OR of ANDs, as for fields.
    var conditionSets: [[Condition]]
    /// A named fragment spread with `@defer`: its name.
    let fragmentName: String?
    /// An inline fragment's own struct.
    var nested: SelectionSetIR?
    /// The struct's name (an inline fragment's) and, lowercased, the property's.
    var name = ""
    /// The property that reads it (`name` lowercased, with a trailing `_` where a field has it).
    var property = ""
    /// The type it delivers: the named fragment's struct, or `name`.
    var typeName = ""
    /// Its identity among the deferred fragments of the selection set: the label when it has one.
    var id: String { directive.label ?? name.lowerFirst }
    /// Where its selections come from, until its struct is built.
    let contribution: Contribution?

    init(
        directive: DeferDirective, typeCondition: String, narrows: Bool, conditions: [Condition], fragmentName: String?,
        contribution: Contribution?
    ) {
        self.directive = directive
        self.typeCondition = typeCondition
        self.narrows = narrows
        conditionSets = [conditions]
        self.fragmentName = fragmentName
        self.contribution = contribution
    }

    var isConditional: Bool { !conditionSets.contains { $0.isEmpty } }
}

extension Array where Element == Condition {
    func uniqued() -> [Condition] { Array(Set(self)).sorted() }
}
