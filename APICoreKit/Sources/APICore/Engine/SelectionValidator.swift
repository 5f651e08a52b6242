/// Checks a response against selection-set metadata, so that every accessor of the generated
/// data can read what it selects: a value that passed is of the declared type, and a field the
/// variables leave out is not there at all. Paths are built only when an error unwinds, so a
/// valid response costs no allocation per field, and an object is copied only when it holds a
/// field that a condition left out.
///
/// With a ``ResponseRecorder``, the same walk also hands what it checks to the recorder (the
/// engine's, which builds the cache's records): data and records come out of one pass over the
/// selections. Public behind `@_spi(Engine)` and inlinable so that the engine's recorder is
/// specialized into the walk; `Data(validating:)` is what everyone else calls.
@_spi(Engine) public struct SelectionValidator<Recorder: ResponseRecorder>: SelectionVisitor {
    public let variables: JSONObject
    /// What the walk records from what it checks; `nil` when it only checks.
    public var recorder: Recorder?

    @inlinable public init(variables: JSONObject, recorder: Recorder?) {
        self.variables = variables
        self.recorder = recorder
    }

    /// One object as the walk goes: its fields (with values replaced where validation removed
    /// something below them), the keys of fields that conditions left out, whether anything
    /// changed, the deferred fragments whose data has not arrived, and the record its fields go
    /// into (when the walk records).
    public struct Visited {
        @usableFromInline var fields: JSONObject
        @usableFromInline var leftOut: [String] = []
        @usableFromInline var changed = false
        @usableFromInline var pending: [JSONValue] = []
        @usableFromInline var record: Recorder.Place?

        @inlinable init(fields: JSONObject, record: Recorder.Place?) {
            self.fields = fields
            self.record = record
        }
    }

    /// Validates one object: its selections, then removes the fields selected only under
    /// conditions that do not hold; with `place`, its fields are recorded there. Returns whether
    /// `object` changed (here or below).
    @inlinable @discardableResult
    public mutating func validate(
        _ object: inout JSONObject, selections: [Selection], in parent: ParentType, recordingAt place: Recorder.Place? = nil
    ) throws(GraphQLDecodingError) -> Bool {
        var visited = Visited(fields: object, record: place)
        try walk(selections, parent: parent, in: &visited)
        if let place = visited.record { recorder?.finish(place, checked: TreeObject(visited.fields)) }
        if !visited.pending.isEmpty || visited.fields[Deferral.pendingKey] != nil {
            // Listed afresh each time, so data validated again (a cache write) says what it holds now.
            visited.fields[Deferral.pendingKey] = visited.pending.isEmpty ? nil : .array(visited.pending)
            visited.changed = true
        }
        if visited.leftOut.contains(where: { visited.fields[$0] != nil }) {
            var selected = SelectedKeys(variables: variables, typename: visited.fields["__typename"]?.stringValue)
            var keys: Set<String> = []
            selected.walk(selections, parent: parent, in: &keys)
            for key in visited.leftOut where !keys.contains(key) && visited.fields[key] != nil {
                visited.fields[key] = nil
                visited.changed = true
            }
        }
        if visited.changed { object = visited.fields }
        return visited.changed
    }

    /// Validates the fields of a deferred fragment that have arrived in `object` (which was
    /// validated before, with the fragment pending): `false` while some are still missing; else the
    /// fragment is no longer listed as pending (fragments deferred inside it are), and with
    /// `place` its fields are recorded there.
    @inlinable public mutating func validateArrived(
        _ object: inout JSONObject, deferral: Deferral, selections: [Selection], in parent: ParentType,
        recordingAt place: Recorder.Place? = nil
    ) throws(GraphQLDecodingError) -> Bool {
        var visited = Visited(fields: object, record: place)
        do throws(GraphQLDecodingError) {
            try walk(selections, parent: parent, in: &visited)
        } catch where error.isMissingField {
            return false
        }
        if let place = visited.record { recorder?.finish(place, checked: TreeObject(visited.fields)) }
        let before = visited.fields[Deferral.pendingKey]?.arrayValue ?? []
        let now = before.filter { $0 != .string(deferral.id) } + visited.pending
        visited.fields[Deferral.pendingKey] = now.isEmpty ? nil : .array(now)
        object = visited.fields
        return true
    }

    @inlinable public func typename(of object: Visited) -> String? { object.fields["__typename"]?.stringValue }

    @inlinable @inline(__always)
    public mutating func visit(_ field: Field, in object: inout Visited) throws(GraphQLDecodingError) {
        let key = field.responseKey
        guard let value = object.fields[key] else {
            throw GraphQLDecodingError.missingField(key)
        }
        // An error `@catch(to: RESULT)` put in its field: read by the accessor, never cached.
        if field.catchTo == .result, CaughtError.isCaughtError(value) { return }
        // Where the value goes in the object's record (nowhere when the walk records nothing, or
        // when the recorder says so).
        var slot: Recorder.Slot?
        if object.record != nil { slot = recorder?.slot(for: field, isNull: value.isNull, in: &object.record!) }
        do throws(GraphQLDecodingError) {
            let checked = try check(value, as: field.type, nullable: true, at: slot)
            if let replaced = checked.replacement {
                object.fields[key] = replaced
                object.changed = true
            }
            if let slot { Recorder.store(checked.stored, at: slot, in: &object.record!) }
        } catch {
            throw error.prefixed(by: .field(key))
        }
    }

    @inlinable public mutating func leaveOut(_ selections: [Selection], in object: inout Visited) {
        object.leftOut += Selection.fields(of: selections).lazy.map(\.responseKey)
    }

    /// Whole or pending: a field missing anywhere in it means its data has not arrived; a value of
    /// the wrong type is an error all the same. (A pending fragment's fields that did arrive are not
    /// recorded: they are written when the fragment is whole.)
    @inlinable public mutating func visitDeferred(
        _ deferral: Deferral, selections: [Selection], parent: ParentType, in object: inout Visited
    ) throws(GraphQLDecodingError) {
        if try !walkWhole(selections, parent: parent, in: &object, notArrived: \.isMissingField) {
            object.pending.append(.string(deferral.id))
        }
    }

    /// What checking one value gives: the value to keep in its place when validation removed a
    /// left-out field somewhere below it (else `nil`: the value stays as it is), and the value as
    /// its record stores it (objects as references to their own records).
    @usableFromInline struct Checked {
        @usableFromInline var replacement: JSONValue?
        @usableFromInline var stored: JSONValue

        @inlinable init(replacement: JSONValue? = nil, stored: JSONValue) {
            self.replacement = replacement
            self.stored = stored
        }
    }

    /// Checks one value; with `slot`, records the objects in it.
    @inlinable mutating func check(_ value: JSONValue, as type: OutputType, nullable: Bool, at slot: Recorder.Slot?) throws(GraphQLDecodingError)
        -> Checked
    {
        switch type {
        case .nonNull(let inner):
            if case .null = value {
                throw GraphQLDecodingError(message: "null for a non-null field")
            }
            return try check(value, as: inner, nullable: false, at: slot)
        case _ where nullable && value.isNull:
            return Checked(stored: value)
        case .scalar(let scalar):
            _ = try scalar.init(_fieldValue: value)
            return Checked(stored: value)
        case .object(let selectionSet):
            guard case .object(var object) = value else {
                throw GraphQLDecodingError(message: "expected an object, found \(value.kindDescription)")
            }
            var place: Recorder.Place?
            if let slot { place = recorder?.place(for: TreeObject(object), of: selectionSet, at: slot) }
            let changed = try validate(&object, selections: selectionSet.__selections, in: selectionSet.__parentType, recordingAt: place)
            return Checked(replacement: changed ? .object(object) : nil, stored: place.map { Recorder.reference(to: $0) } ?? value)
        case .list(let element):
            guard case .array(let elements) = value else {
                throw GraphQLDecodingError(message: "expected a list, found \(value.kindDescription)")
            }
            // A list of leaves is stored as it came; one of objects as their references.
            let recordsItems = slot != nil && element.holdsObjects
            var result = elements
            var changed = false
            var stored: [JSONValue] = []
            if recordsItems { stored.reserveCapacity(elements.count) }
            for (index, item) in elements.enumerated() {
                do throws(GraphQLDecodingError) {
                    let checked = try check(item, as: element, nullable: true, at: recordsItems ? slot.map { Recorder.item(index, of: $0) } : nil)
                    if let replaced = checked.replacement {
                        result[index] = replaced
                        changed = true
                    }
                    if recordsItems { stored.append(checked.stored) }
                } catch {
                    throw error.prefixed(by: .index(index))
                }
            }
            return Checked(replacement: changed ? .array(result) : nil, stored: recordsItems ? .array(stored) : value)
        }
    }
}

/// The response keys that selections select in an object of type `typename` under these
/// variables.
@_spi(Engine) public struct SelectedKeys: SelectionVisitor {
    public let variables: JSONObject
    @usableFromInline let typename: String?

    @inlinable public init(variables: JSONObject, typename: String?) {
        self.variables = variables
        self.typename = typename
    }

    @inlinable public func typename(of _: Set<String>) -> String? { typename }

    @inlinable public mutating func visit(_ field: Field, in keys: inout Set<String>) { keys.insert(field.responseKey) }
}

/// What a ``SelectionValidator`` hands the objects and fields it checks to: the engine's cache
/// records. A `Place` is the record of one object being built, a `Slot` where one field's value
/// goes in it.
@_spi(Engine) public protocol ResponseRecorder {
    /// The record being built for one object.
    associatedtype Place
    /// Where one value goes in a record.
    associatedtype Slot

    /// Where a field's value goes in `place`; `nil` when it goes nowhere (the record is the
    /// object itself, or the answer's errors name the field; `isNull`: its value is null).
    mutating func slot(for field: Field, isNull: Bool, in place: inout Place) -> Slot?
    /// The slot of item `index` of the list at `slot`.
    static func item(_ index: Int, of slot: Slot) -> Slot
    /// The record of an object of `type` found at `slot`: a tree's object, or a tape's.
    mutating func place<Object: RecordedObject>(for object: Object, of type: any SelectionSet.Type, at slot: Slot) -> Place
    /// Puts a checked value (objects as their references) at `slot` of `place`.
    static func store(_ value: JSONValue, at slot: Slot, in place: inout Place)
    /// What a field holding the object recorded at `place` stores.
    static func reference(to place: Place) -> JSONValue
    /// The object recorded at `place` is checked: `checked` is its data as validation left it.
    mutating func finish<Object: RecordedObject>(_ place: Place, checked: Object)
}

/// An object a ``ResponseRecorder`` is handed: a tree's (`JSONObject`) or one still on its
/// ``JSONTape``. What a recorder reads of it: members (key fields, `__typename`), a member
/// object (a Relay edge's `node`), how many members it has, and, for a record that is the object
/// itself, the whole of it.
@_spi(Engine) public protocol RecordedObject {
    /// The member named `key`, as a value.
    subscript(member key: String) -> JSONValue? { get }
    /// The member named `key`, when it is an object.
    func object(_ key: String) -> Self?
    /// How many members it has (a key written twice counts twice).
    var memberCount: Int { get }
    /// The object as a tree.
    var tree: JSONObject { get }
    /// The object as a value of the tape it was read onto (`nil` for a tree's): a record can keep
    /// it there and make the tree only when it is written.
    var onTape: JSONTape.Value? { get }
}

/// A tree's object, as a ``RecordedObject``.
@_spi(Engine) public struct TreeObject: RecordedObject {
    /// The object.
    public let tree: JSONObject

    /// Wraps `tree`.
    @inlinable public init(_ tree: JSONObject) { self.tree = tree }

    /// The member.
    @inlinable public subscript(member key: String) -> JSONValue? { tree[key] }
    /// The member object.
    @inlinable public func object(_ key: String) -> TreeObject? { tree[key]?.objectValue.map(TreeObject.init) }
    /// How many members.
    @inlinable public var memberCount: Int { tree.count }
    /// A tree is on no tape.
    @inlinable public var onTape: JSONTape.Value? { nil }
}

/// A walk that only checks.
@_spi(Engine) public enum NoRecorder: ResponseRecorder {
    public func slot(for _: Field, isNull _: Bool, in place: inout Never) -> Never? {}
    public static func item(_: Int, of slot: Never) -> Never {}
    public func place<Object: RecordedObject>(for _: Object, of _: any SelectionSet.Type, at slot: Never) -> Never {}
    public static func store(_: JSONValue, at slot: Never, in _: inout Never) {}
    public static func reference(to place: Never) -> JSONValue {}
    public func finish<Object: RecordedObject>(_ place: Never, checked _: Object) {}
}

extension SelectionValidator where Recorder == NoRecorder {
    /// A validator that only checks.
    @inlinable public init(variables: JSONObject) {
        self.init(variables: variables, recorder: nil)
    }
}

extension OutputType {
    /// Whether values of this type hold objects (at any list depth).
    @inlinable public var holdsObjects: Bool {
        switch self {
        case .nonNull(let inner), .list(let inner): return inner.holdsObjects
        case .scalar: return false
        case .object: return true
        }
    }
}
