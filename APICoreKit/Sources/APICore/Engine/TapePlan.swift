import Foundation

/// A selection set made ready for ``TapeCheck``: its fields in order, each with the UTF-8 of its
/// response key and its type as a flat list of layers, so that checking an object of it reads no
/// `Selection`, `OutputType` or `String` (and retains nothing) per field. Made once per selection
/// set and kept for the life of the process, as the generated metadata it is made from is.
///
/// Only a selection set whose every selection applies to every object of its type can be made
/// flat: fields, and fragments on the type itself. One whose fragments narrow the type (an
/// interface's `... on User`) is made flat once for each of its possible types, the fields that
/// apply to an object of that `__typename` in walk order (``variants``). One with a condition
/// (`@include`, `@skip`, `@defer`), or an object whose `__typename` the schema did not list, is
/// walked by `TapeCheck`'s selection walk, field by field; the objects below it have plans of
/// their own.
@_spi(Engine) public final class TapePlan: @unchecked Sendable {
    /// One layer of a field's type, outside in: `[nonNull, list, object]` is `[T]!`.
    public enum Layer {
        /// Not null: the layer after it is the value's.
        case nonNull
        /// A list: the layer after it is its items'.
        case list
        /// `String` or `ID`.
        case string
        /// `Int`.
        case int
        /// `Float`.
        case double
        /// `Boolean`.
        case bool
        /// An enum: any string (the type, asked for what it says of anything else).
        case anyString(any GraphQLOutputValue.Type)
        /// A custom scalar, asked.
        case scalar(any GraphQLOutputValue.Type)
        /// An object, checked with its own plan.
        case object(Unmanaged<TapePlan>)
    }

    /// One field: the UTF-8 of its response key, where its type starts in ``layers``, and the
    /// field (for its name in an error, and `@catch`).
    public struct Entry {
        /// The UTF-8 of the response key.
        public let key: UnsafeBufferPointer<UInt8>
        /// Where the field's type starts in ``TapePlan/layers``.
        public let type: Int
        /// The field.
        public unowned(unsafe) let field: Field

        init(key: UnsafeBufferPointer<UInt8>, type: Int, field: Field) {
            self.key = key
            self.type = type
            self.field = field
        }
    }

    /// A selection set whose fragments narrow its type, made flat for one possible type.
    public struct Variant {
        /// The UTF-8 of the `__typename`.
        public let typename: UnsafeBufferPointer<UInt8>
        /// The fields that apply to an object of that type, in walk order.
        public let entries: UnsafeBufferPointer<Entry>
    }

    /// The selection set, and its selections for a walk field by field.
    public let type: any SelectionSet.Type
    /// The selections.
    public let selections: [Selection]
    /// The type they are selected on.
    public let parent: ParentType
    /// The fields, when the selection set is flat; `nil` otherwise.
    @exclusivity(unchecked) public private(set) var entries: UnsafeBufferPointer<Entry>?
    /// The fields' types, layer by layer.
    @exclusivity(unchecked) public private(set) var layers = UnsafeBufferPointer<Layer>(start: nil, count: 0)
    /// For a selection set that is not flat but has no condition: its fields for each possible
    /// type of ``parent`` (empty when there are more than ``maxVariants``).
    @exclusivity(unchecked) public private(set) var variants = UnsafeBufferPointer<Variant>(start: nil, count: 0)
    /// Where each field's type starts in ``layers``, for a selection set walked field by field
    /// (every field of every branch).
    @exclusivity(unchecked) public private(set) var fieldLayers: [ObjectIdentifier: Int] = [:]
    /// What the plan holds on to: its fields (every branch's, when it is not flat).
    private var fields: [Field] = []

    private init(_ type: any SelectionSet.Type) {
        self.type = type
        selections = type.__selections
        parent = type.__parentType
    }

    /// The plan of `type`, made on first use.
    public static func of(_ type: any SelectionSet.Type) -> TapePlan {
        lock.lock()
        defer { lock.unlock() }
        return plan(of: type)
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var plans: [ObjectIdentifier: TapePlan] = [:]

    /// Under the lock: the plan, and those of the objects below it (a plan is registered before
    /// its fields are read, so a selection set that holds itself finds it).
    private static func plan(of type: any SelectionSet.Type) -> TapePlan {
        if let known = plans[ObjectIdentifier(type)] { return known }
        let plan = TapePlan(type)
        plans[ObjectIdentifier(type)] = plan
        let flatFields = flat(plan.selections, parent: plan.parent)
        plan.fields = flatFields ?? Selection.fields(of: plan.selections)
        var layers: [Layer] = []
        var starts: [Int] = []
        for field in plan.fields {
            starts.append(layers.count)
            append(field.type, to: &layers)
        }
        plan.layers = UnsafeBufferPointer(immortalCopyOf: layers)
        if flatFields != nil {
            plan.entries = UnsafeBufferPointer(immortalCopyOf: zip(plan.fields, starts).map { field, start in
                Entry(key: UnsafeBufferPointer(immortalCopyOf: Array(field.responseKey.utf8)), type: start, field: field)
            })
        } else {
            plan.fieldLayers = Dictionary(zip(plan.fields.map(ObjectIdentifier.init), starts)) { first, _ in first }
            plan.variants = UnsafeBufferPointer(immortalCopyOf: variants(of: plan))
        }
        return plan
    }

    /// The UTF-8 of `__typename`.
    nonisolated(unsafe) public static let typenameKey = UnsafeBufferPointer(immortalCopyOf: Array("__typename".utf8))

    /// Past this many possible types, a selection set that is not flat is walked.
    static let maxVariants = 64

    /// The selection set made flat for each possible type of its parent, when it has no condition.
    private static func variants(of plan: TapePlan) -> [Variant] {
        guard plan.parent.possibleTypes.count <= maxVariants else { return [] }
        var variants: [Variant] = []
        for typename in plan.parent.possibleTypes.sorted() {
            guard let fields = flat(plan.selections, parent: plan.parent, typename: typename) else { return [] }
            let entries = fields.map { field in
                Entry(key: UnsafeBufferPointer(immortalCopyOf: Array(field.responseKey.utf8)), type: plan.fieldLayers[ObjectIdentifier(field)]!, field: field)
            }
            variants.append(Variant(typename: UnsafeBufferPointer(immortalCopyOf: Array(typename.utf8)), entries: UnsafeBufferPointer(immortalCopyOf: entries)))
        }
        return variants
    }

    /// The fields of selections that apply to every object of `parent` (with `typename`, to every
    /// object of that type), in walk order, as ``SelectionVisitor/walk(_:parent:in:)`` visits
    /// them; `nil` when that depends on more (a condition, a deferral, or with no `typename` a
    /// fragment on a narrower type).
    private static func flat(_ selections: [Selection], parent: ParentType, typename: String? = nil) -> [Field]? {
        var fields: [Field] = []
        for selection in selections {
            let fragment: any SelectionSet.Type
            switch selection {
            case .field(let field):
                fields.append(field)
                continue
            case .inlineFragment(let type):
                fragment = type
            case .fragment(let type):
                fragment = type
            case .conditional, .deferred:
                return nil
            }
            let condition = fragment.__parentType
            if condition.name == parent.name {
                guard let inner = flat(fragment.__selections, parent: condition, typename: typename) else { return nil }
                fields += inner
            } else if let typename {
                guard condition.applies(toTypename: typename, within: parent) else { continue }
                guard let inner = flat(fragment.__selections, parent: condition, typename: typename) else { return nil }
                fields += inner
            } else {
                return nil
            }
        }
        return fields
    }

    private static func append(_ type: OutputType, to layers: inout [Layer]) {
        switch type {
        case .nonNull(let inner):
            layers.append(.nonNull)
            append(inner, to: &layers)
        case .list(let inner):
            layers.append(.list)
            append(inner, to: &layers)
        case .object(let selectionSet):
            layers.append(.object(Unmanaged.passUnretained(plan(of: selectionSet))))
        case .scalar(let scalar):
            switch ObjectIdentifier(scalar) {
            case ObjectIdentifier(String.self): layers.append(.string)
            case ObjectIdentifier(Int.self): layers.append(.int)
            case ObjectIdentifier(Double.self): layers.append(.double)
            case ObjectIdentifier(Bool.self): layers.append(.bool)
            default: layers.append(scalar is any AcceptsEveryString.Type ? .anyString(scalar) : .scalar(scalar))
            }
        }
    }
}

extension TapePlan {
    /// The fields that apply to an object whose `__typename` is `typename`'s bytes, when the plan
    /// has a variant for it.
    @inlinable public func entries(forTypename typename: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<Entry>? {
        variants.first { JSONTape.sameBytes($0.typename, typename) }?.entries
    }

    /// Whether the type that starts at `layer` holds objects (at any list depth).
    @inlinable public static func holdsObjects(_ layers: UnsafeBufferPointer<Layer>, from layer: Int) -> Bool {
        var layer = layer
        while true {
            switch layers[layer] {
            case .nonNull, .list: layer += 1
            case .object: return true
            default: return false
            }
        }
    }

}

/// A leaf type that reads every string as a value of its own (a generated enum keeps an unknown
/// name), and nothing else.
protocol AcceptsEveryString {}

extension GraphQLEnum: AcceptsEveryString {}

extension UnsafeBufferPointer {
    /// A copy of `elements` that is never freed: for what lives as long as the process.
    fileprivate init(immortalCopyOf elements: [Element]) {
        let copy = UnsafeMutableBufferPointer<Element>.allocate(capacity: Swift.max(elements.count, 1))
        _ = copy.initialize(from: elements)
        self.init(start: copy.baseAddress, count: elements.count)
    }
}
