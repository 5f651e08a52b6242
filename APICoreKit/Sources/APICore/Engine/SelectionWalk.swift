/// What follows a selection set through one object: validating a response
/// and building its records in the same walk (``SelectionValidator``), reading records back
/// (APICoreLive's `CacheReader`), finding where an increment goes (APICoreSupport's `SelectionPath`), building
/// data from mocks. ``walk(_:parent:in:)`` decides which selections apply to the object,
/// the same way for all of them: fragments whose type condition its `__typename` satisfies,
/// `@include`/`@skip` conditions that hold under the variables, and deferred fragments. The
/// visitor says what a field, a field left out and a deferred fragment mean to it.
///
/// Public behind `@_spi(Engine)` only so that `walk` is specialized for each visitor in the
/// modules that define them (a `package` inlinable function is not); not for apps or kits.
@_spi(Engine) public protocol SelectionVisitor {
    /// What the walk over one object carries: the object being checked, the record being read…
    associatedtype Object
    /// What stops a walk.
    associatedtype Failure: Error

    /// The operation's variables, for `@include`/`@skip` and `@defer(if:)`.
    var variables: JSONObject { get }

    /// Whether every fragment and condition applies, whatever the object and the variables: a walk
    /// over what the selections could select (their keys, whether they hold a connection), not
    /// over one object's data. By default, no.
    static var walksEveryBranch: Bool { get }

    /// The object's `__typename`, for type conditions (asked only when a fragment narrows the
    /// type).
    func typename(of object: Object) -> String?

    /// A field that applies to the object.
    mutating func visit(_ field: Field, in object: inout Object) throws(Failure)

    /// The selections under `@include`/`@skip` conditions that do not hold. By default, nothing.
    mutating func leaveOut(_ selections: [Selection], in object: inout Object)

    /// A fragment that is deferred under the variables (`@defer` without `if:`, or with one that
    /// holds). By default its selections are walked as any others are.
    mutating func visitDeferred(
        _ deferral: Deferral, selections: [Selection], parent: ParentType, in object: inout Object
    ) throws(Failure)
}

extension SelectionVisitor {
    /// One object's data: fragments and conditions apply as it and the variables say.
    @inlinable public static var walksEveryBranch: Bool { false }

    /// Nothing: fields left out are not there.
    @inlinable public mutating func leaveOut(_ selections: [Selection], in object: inout Object) {}

    /// The deferred fragment's selections, walked as any others are.
    @inlinable public mutating func visitDeferred(
        _ deferral: Deferral, selections: [Selection], parent: ParentType, in object: inout Object
    ) throws(Failure) {
        try walk(selections, parent: parent, in: &object)
    }

    /// Visits the selections that apply to an object selected as `parent`, in order, through
    /// fragments and conditions.
    @inlinable public mutating func walk(_ selections: [Selection], parent: ParentType, in object: inout Object) throws(Failure) {
        var typename: String??
        for selection in selections {
            switch selection {
            case .field(let field):
                try visit(field, in: &object)
            case .inlineFragment(let type):
                let condition = type.__parentType
                if applies(condition, within: parent, to: object, typename: &typename) {
                    try walk(type.__selections, parent: condition, in: &object)
                }
            case .fragment(let type):
                let condition = type.__parentType
                if applies(condition, within: parent, to: object, typename: &typename) {
                    try walk(type.__selections, parent: condition, in: &object)
                }
            case .conditional(let conditions, let nested):
                if Self.walksEveryBranch || conditions.allSatisfy({ $0.isSatisfied(by: variables) }) {
                    try walk(nested, parent: parent, in: &object)
                } else {
                    leaveOut(nested, in: &object)
                }
            case .deferred(let deferral, let nested):
                if !Self.walksEveryBranch && deferral.isActive(with: variables) {
                    try visitDeferred(deferral, selections: nested, parent: parent, in: &object)
                } else {
                    try walk(nested, parent: parent, in: &object)  // `if:` false: answered with the rest
                }
            }
        }
    }

    /// Whether a type condition applies; the object's `__typename` is looked up once, and only
    /// for a condition narrower than `parent`.
    @inlinable func applies(_ condition: ParentType, within parent: ParentType, to object: Object, typename: inout String??) -> Bool {
        if Self.walksEveryBranch || condition.name == parent.name { return true }
        if typename == nil { typename = .some(self.typename(of: object)) }
        return condition.applies(toTypename: typename ?? nil, within: parent)
    }

    /// Walks a deferred fragment whole or not at all, for readers that must not see part of it:
    /// the walk goes over a copy of `object`, which replaces it when the walk ends. A failure that
    /// `notArrived` says means its data is not there yet leaves `object` as it was and answers
    /// `false`; any other failure is thrown.
    @inlinable public mutating func walkWhole(
        _ selections: [Selection], parent: ParentType, in object: inout Object, notArrived: (Failure) -> Bool
    ) throws(Failure) -> Bool {
        var whole = object
        do throws(Failure) {
            try walk(selections, parent: parent, in: &whole)
        } catch where notArrived(error) {
            return false
        }
        object = whole
        return true
    }
}

extension Selection {
    /// Every field that `selections` select at their own level, in order, through every fragment
    /// and condition (deferred ones included): for what a selection set could hold, without an
    /// object's data to say which apply.
    @_spi(Engine) public static func fields(of selections: [Selection]) -> [Field] {
        var visitor = EveryField()
        var fields: [Field] = []
        // Every branch applies, so the parent type is never compared with a condition.
        visitor.walk(selections, parent: .object(""), in: &fields)
        return fields
    }
}

/// Collects the fields of every branch.
private struct EveryField: SelectionVisitor {
    static var walksEveryBranch: Bool { true }
    /// Stored, not computed: a value of no size has no address of its own (every one shares a
    /// fixed one), so ThreadSanitizer took two concurrent walks for a race on that address.
    let variables: JSONObject = [:]
    func typename(of _: [Field]) -> String? { nil }
    mutating func visit(_ field: Field, in fields: inout [Field]) { fields.append(field) }
}
