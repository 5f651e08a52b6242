import Foundation

/// Checks data where the reader left it, on its ``JSONTape``: the same rules as
/// ``SelectionValidator``, with no tree built for the answer. Each selected field is found among
/// its object's members by comparing key bytes, and a leaf is checked by its kind on the tape (a
/// `String` field is a string there; only a custom scalar is read into a value to ask it). What
/// passes is wrapped as it is: the ``DataDict`` reads the tape.
///
/// With a ``ResponseRecorder``, the same walk hands the recorder what it checks (the engine's
/// cache records), as the tree's does: checked data and records in one pass over the tape. Only
/// leaves and the objects a record is made of become values.
///
/// What this walk does not do, it hands back to the tree's: an object with a field that a
/// condition left out but the server sent anyway (the tree removes it), a deferred fragment (the
/// tree lists what is pending). Those answers are checked (and recorded) by
/// ``SelectionValidator`` over the tree, as before, with the same errors. (Data on a tape has no
/// deferred fragment pending, so a `__pending` member a server might send is never read as the
/// engine's list.)
///
/// Public behind `@_spi(Engine)` and inlinable, as ``SelectionValidator`` is, so that the
/// engine's recorder is specialized into the walk.
@_spi(Engine) public struct TapeCheck<Recorder: ResponseRecorder>: SelectionVisitor {
    /// The operation's variables, for `@include`/`@skip`.
    public let variables: JSONObject
    /// The tape being walked, and what holds it (for a recorder that keeps an object on it).
    @usableFromInline let tape: JSONTape.Buffers
    @usableFromInline unowned(unsafe) let storage: JSONTape.Storage
    /// What the walk records from what it checks; `nil` when it only checks.
    public var recorder: Recorder?
    /// Set when the answer needs what only the tree's walk does.
    @usableFromInline var needsTree = false

    /// One object as the walk goes: where it is on the tape, and the record its fields go into.
    public struct Visited {
        @usableFromInline let index: Int
        @usableFromInline var record: Recorder.Place?
        /// The plan of the object's selection set, for its fields' types.
        @usableFromInline unowned(unsafe) let plan: TapePlan

        @inlinable init(index: Int, record: Recorder.Place?, plan: TapePlan) {
            self.index = index
            self.record = record
            self.plan = plan
        }
    }

    @inlinable init(variables: JSONObject, tape: JSONTape.Buffers, storage: JSONTape.Storage, recorder: Recorder?) {
        self.variables = variables
        self.tape = tape
        self.storage = storage
        self.recorder = recorder
    }

    /// Checks the object at `value` against the selection set of `plan` (``TapePlan/of(_:)``),
    /// recording it at `place`: `false` when the answer is one for the tree's walk (nothing
    /// recorded then counts: begin again over the tree). The recorder is handed back with what
    /// it recorded. Not generic over the selection set, so that a caller that knows its recorder
    /// has the walk specialized for it.
    @inlinable public static func check(
        _ value: JSONTape.Value, plan: TapePlan, variables: JSONObject, recorder: inout Recorder?, at place: Recorder.Place?
    ) throws(GraphQLDecodingError) -> Bool {
        guard value.kind == .object else {
            throw GraphQLDecodingError(message: "expected an object, found \(value.jsonValue.kindDescription)")
        }
        let storage = value.storage
        // Up to the first error the walks agree; past something only the tree's walk does (a
        // deferred fragment it checks whole, say), the tree's says what is wrong first. The
        // recorder is moved into the walk and back, never copied.
        var check = TapeCheck(variables: variables, tape: storage.buffers, storage: storage, recorder: recorder.take())
        defer { recorder = check.recorder.take() }
        do throws(GraphQLDecodingError) {
            try check.validate(value.index, plan: plan, recordingAt: place)
        } catch where !check.needsTree {
            throw error
        } catch {}
        return !check.needsTree
    }

    // MARK: The tape

    @inlinable func kind(_ index: Int) -> JSONTape.Kind { tape.kind(index) }

    @inlinable func jsonValue(at index: Int) -> JSONValue { tape.jsonValue(at: index) }

    /// How an error names the value at `index` (only errors ask, so the value is built).
    @inlinable func kindDescription(_ index: Int) -> String { jsonValue(at: index).kindDescription }

    @inlinable func isCaughtError(_ value: Int) -> Bool {
        kind(value) == .object && CaughtError.isCaughtError(jsonValue(at: value))
    }

    // MARK: The walk

    /// Checks the object at `object` against the selection set `plan` was made of, recording it
    /// at `place`: field by field from the plan when it is flat, else through the selection walk.
    @inlinable mutating func validate(_ object: Int, plan: TapePlan, recordingAt place: Recorder.Place?) throws(GraphQLDecodingError) {
        var visited = Visited(index: object, record: place, plan: plan)
        // The plan's fields, or those of its variant for the object's `__typename`.
        if let entries = plan.entries ?? variant(of: object, in: plan) {
            for entry in entries {
                guard let value = tape.member(entry.key, of: object) else { throw GraphQLDecodingError.missingField(entry.field.responseKey) }
                try check(entry.field, value: value, layer: entry.type, in: &visited)
            }
        } else {
            try walk(plan.selections, parent: plan.parent, in: &visited)
        }
        if let place = visited.record {
            let checked = TapeObject(buffers: tape, storage: storage, index: object)
            recorder?.finish(place, checked: checked)
        }
    }

    /// The fields of a plan that is not flat for the object's `__typename`, when the plan has them.
    @inlinable func variant(of object: Int, in plan: TapePlan) -> UnsafeBufferPointer<TapePlan.Entry>? {
        guard !plan.variants.isEmpty, let typename = tape.member(TapePlan.typenameKey, of: object), kind(typename) == .string else { return nil }
        return plan.entries(forTypename: tape.utf8(at: typename))
    }

    /// Checks the value of `field` (its type starting at `layer` of the object's plan), and
    /// records it in the object's record.
    @inlinable mutating func check(_ field: Field, value: Int, layer: Int, in object: inout Visited) throws(GraphQLDecodingError) {
        // An error `@catch(to: RESULT)` put in its field: read by the accessor, never cached.
        if field.catchTo == .result, isCaughtError(value) { return }
        var slot: Recorder.Slot?
        if object.record != nil {
            let isNull = kind(value) == .null
            slot = recorder?.slot(for: field, isNull: isNull, in: &object.record!)
        }
        do throws(GraphQLDecodingError) {
            let stored = try check(value, layer: layer, of: object.plan.layers, nullable: true, at: slot)
            if let slot, let stored { Recorder.store(stored, at: slot, in: &object.record!) }
        } catch {
            throw error.prefixed(by: .field(field.responseKey))
        }
    }

    /// Checks one value against the type that starts at `layer`; with `slot`, records the objects
    /// in it and answers what its record stores (objects as their references).
    @inlinable mutating func check(
        _ value: Int, layer: Int, of layers: UnsafeBufferPointer<TapePlan.Layer>, nullable: Bool, at slot: Recorder.Slot?
    ) throws(GraphQLDecodingError) -> JSONValue? {
        let kind = kind(value)
        switch layers[layer] {
        case .nonNull:
            if kind == .null { throw GraphQLDecodingError(message: "null for a non-null field") }
            return try check(value, layer: layer + 1, of: layers, nullable: false, at: slot)
        case _ where nullable && kind == .null:
            return slot == nil ? nil : .null
        case .string:
            if kind != .string && kind != .escapedString { _ = try String(_fieldValue: jsonValue(at: value)) }
        case .anyString(let scalar):
            if kind != .string && kind != .escapedString { _ = try scalar.init(_fieldValue: jsonValue(at: value)) }
        case .int:
            if kind != .int { _ = try Int(_fieldValue: jsonValue(at: value)) }
        case .double:
            if kind != .int && kind != .double { _ = try Double(_fieldValue: jsonValue(at: value)) }
        case .bool:
            if kind != .true && kind != .false { _ = try Bool(_fieldValue: jsonValue(at: value)) }
        case .scalar(let scalar):
            _ = try scalar.init(_fieldValue: jsonValue(at: value))
        case .object(let plan):
            guard kind == .object else { throw GraphQLDecodingError(message: "expected an object, found \(kindDescription(value))") }
            // The plan lives as long as the process: borrowed, not retained, per object.
            unowned(unsafe) let set = plan.takeUnretainedValue()
            var place: Recorder.Place?
            if let slot {
                let object = TapeObject(buffers: tape, storage: storage, index: value)
                place = recorder?.place(for: object, of: set.type, at: slot)
            }
            try validate(value, plan: set, recordingAt: place)
            return place.map { Recorder.reference(to: $0) }
        case .list:
            guard kind == .array else { throw GraphQLDecodingError(message: "expected a list, found \(kindDescription(value))") }
            // A list of leaves is stored as it came; one of objects as their references.
            let recordsItems = slot != nil && TapePlan.holdsObjects(layers, from: layer + 1)
            var stored: [JSONValue] = []
            var cursor = value + 2
            let stop = tape.end(value)
            var index = 0
            while cursor < stop {
                do throws(GraphQLDecodingError) {
                    let item = try check(cursor, layer: layer + 1, of: layers, nullable: true, at: recordsItems ? slot.map { Recorder.item(index, of: $0) } : nil)
                    if recordsItems { stored.append(item ?? .null) }
                } catch {
                    throw error.prefixed(by: .index(index))
                }
                cursor = tape.end(cursor)
                index += 1
            }
            if recordsItems { return .array(stored) }
        }
        return slot == nil ? nil : jsonValue(at: value)
    }

    // MARK: The selection walk, for selection sets that are not flat

    /// The object's `__typename`, for type conditions.
    @inlinable public func typename(of object: Visited) -> String? {
        guard let value = tape.member("__typename", of: object.index), kind(value) == .string || kind(value) == .escapedString else { return nil }
        return tape.string(at: value)
    }

    /// A field of a selection set walked field by field: checked and recorded as a plan's are.
    @inlinable public mutating func visit(_ field: Field, in object: inout Visited) throws(GraphQLDecodingError) {
        guard let value = tape.member(field.responseKey, of: object.index) else { throw GraphQLDecodingError.missingField(field.responseKey) }
        try check(field, value: value, layer: object.plan.fieldLayers[ObjectIdentifier(field)]!, in: &object)
    }

    /// A field a condition left out is the tree's to remove, when the server sent it.
    @inlinable public mutating func leaveOut(_ selections: [Selection], in object: inout Visited) {
        for field in Selection.fields(of: selections) where tape.member(field.responseKey, of: object.index) != nil {
            needsTree = true
        }
    }

    /// The tree lists what is pending.
    @inlinable public mutating func visitDeferred(_: Deferral, selections _: [Selection], parent _: ParentType, in _: inout Visited) {
        needsTree = true
    }
}

extension SelectionSet {
    /// Validates the object at `value` of a tape against this selection set and wraps it, the
    /// tape kept as the data (no tree built): ``init(validating:variables:)`` for an answer still
    /// on its tape, with the same rules and errors.
    @_spi(Engine) public init(validating value: JSONTape.Value, variables: JSONObject = [:]) throws(GraphQLDecodingError) {
        var none: NoRecorder?
        if try TapeCheck.check(value, plan: TapePlan.of(Self.self), variables: variables, recorder: &none, at: nil) {
            self.init(_dataDict: DataDict(tape: value))
        } else {
            try self.init(validating: value.jsonValue.objectValue ?? [:], variables: variables)
        }
    }

    /// Wraps the object at `value` of a tape that ``TapeCheck`` checked against this selection set.
    @_spi(Engine) public init(checkedOnTape value: JSONTape.Value) {
        self.init(_dataDict: DataDict(tape: value))
    }
}

/// An object of a tape as a recorder reads it, during a walk over the tape's buffers (it holds
/// them, so it does not outlive the walk; ``onTape`` does).
@_spi(Engine) public struct TapeObject: RecordedObject {
    @usableFromInline let buffers: JSONTape.Buffers
    @usableFromInline unowned(unsafe) let storage: JSONTape.Storage
    @usableFromInline let index: Int

    @inlinable init(buffers: JSONTape.Buffers, storage: JSONTape.Storage, index: Int) {
        self.buffers = buffers
        self.storage = storage
        self.index = index
    }

    /// The member, as a value.
    @inlinable public subscript(member key: String) -> JSONValue? { buffers.member(key, of: index).map { buffers.jsonValue(at: $0) } }
    /// The member, when it is an object.
    @inlinable public func object(_ key: String) -> TapeObject? {
        guard let member = buffers.member(key, of: index), buffers.kind(member) == .object else { return nil }
        return TapeObject(buffers: buffers, storage: storage, index: member)
    }
    /// How many members (a key written twice counts twice).
    @inlinable public var memberCount: Int { Int(buffers.words[index + 1]) }
    /// The object as a tree.
    @inlinable public var tree: JSONObject { buffers.jsonValue(at: index).objectValue ?? [:] }
    /// The object as a value of its tape (which it keeps).
    @inlinable public var onTape: JSONTape.Value? { JSONTape.Value(storage: storage, index: index) }
}
