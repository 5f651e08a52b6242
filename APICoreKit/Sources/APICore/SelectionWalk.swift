/// What follows a selection set through one object: validating a response
/// (``SelectionValidator``), normalizing it into records and reading it back (APICoreLive's
/// `Normalizer` and `CacheReader`), finding where an increment goes (``SelectionPath``), building
/// data from mocks. ``walk(_:parent:typename:in:)`` decides which selections apply to the object,
/// the same way for all of them: fragments whose type condition its `__typename` satisfies,
/// `@include`/`@skip` conditions that hold under the variables, and deferred fragments. The
/// visitor says what a field, a field left out and a deferred fragment mean to it.
package protocol SelectionVisitor {
    /// What the walk over one object carries: the object being checked, the record being read…
    associatedtype Object
    /// What stops a walk.
    associatedtype Failure: Error

    /// The operation's variables, for `@include`/`@skip` and `@defer(if:)`.
    var variables: JSONObject { get }

    /// A field that applies to the object.
    mutating func visit(_ field: Field, in object: inout Object) throws(Failure)

    /// The selections under `@include`/`@skip` conditions that do not hold. By default, nothing.
    mutating func leaveOut(_ selections: [Selection], in object: inout Object)

    /// A fragment that is deferred under the variables (`@defer` without `if:`, or with one that
    /// holds). By default its selections are walked as any others are.
    mutating func visitDeferred(
        _ deferral: Deferral, selections: [Selection], parent: ParentType, typename: String?, in object: inout Object
    ) throws(Failure)
}

extension SelectionVisitor {
    @inlinable package mutating func leaveOut(_ selections: [Selection], in object: inout Object) {}

    @inlinable package mutating func visitDeferred(
        _ deferral: Deferral, selections: [Selection], parent: ParentType, typename: String?, in object: inout Object
    ) throws(Failure) {
        try walk(selections, parent: parent, typename: typename, in: &object)
    }

    /// Visits the selections that apply to an object of type `typename` selected as `parent`, in
    /// order, through fragments and conditions.
    @inlinable package mutating func walk(_ selections: [Selection], parent: ParentType, typename: String?, in object: inout Object)
        throws(Failure)
    {
        for selection in selections {
            switch selection {
            case .field(let field):
                try visit(field, in: &object)
            case .inlineFragment(let type):
                let condition = type.__parentType
                if condition.applies(toTypename: typename, within: parent) {
                    try walk(type.__selections, parent: condition, typename: typename, in: &object)
                }
            case .fragment(let type):
                let condition = type.__parentType
                if condition.applies(toTypename: typename, within: parent) {
                    try walk(type.__selections, parent: condition, typename: typename, in: &object)
                }
            case .conditional(let conditions, let nested):
                if conditions.allSatisfy({ $0.isSatisfied(by: variables) }) {
                    try walk(nested, parent: parent, typename: typename, in: &object)
                } else {
                    leaveOut(nested, in: &object)
                }
            case .deferred(let deferral, let nested):
                if deferral.isActive(with: variables) {
                    try visitDeferred(deferral, selections: nested, parent: parent, typename: typename, in: &object)
                } else {
                    try walk(nested, parent: parent, typename: typename, in: &object)  // `if:` false: answered with the rest
                }
            }
        }
    }

    /// Walks a deferred fragment whole or not at all, for readers that must not see part of it:
    /// the walk goes over a copy of `object`, which replaces it when the walk ends. A failure that
    /// `notArrived` says means its data is not there yet leaves `object` as it was and answers
    /// `false`; any other failure is thrown.
    @inlinable package mutating func walkWhole(
        _ selections: [Selection], parent: ParentType, typename: String?, in object: inout Object, notArrived: (Failure) -> Bool
    ) throws(Failure) -> Bool {
        var whole = object
        do throws(Failure) {
            try walk(selections, parent: parent, typename: typename, in: &whole)
        } catch where notArrived(error) {
            return false
        }
        object = whole
        return true
    }
}
