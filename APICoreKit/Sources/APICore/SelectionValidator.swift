/// Checks a response against selection-set metadata, so that every accessor of the generated
/// data can read what it selects: a value that passed is of the declared type, and a field the
/// variables leave out is not there at all. Paths are built only when an error unwinds, so a
/// valid response costs no allocation per field, and an object is copied only when it holds a
/// field that a condition left out.
///
/// With ``records``, the same walk also turns what it checks into the cache's records
/// (``ResponseRecords``): data and records come out of one pass over the selections.
package struct SelectionValidator: SelectionVisitor {
    package let variables: JSONObject
    /// The records the walk builds from what it checks, for the cache; `nil` when it only checks.
    package var records: ResponseRecords?

    package init(variables: JSONObject, records: ResponseRecords? = nil) {
        self.variables = variables
        self.records = records
    }

    /// One object as the walk goes: its fields (with values replaced where validation removed
    /// something below them), the keys of fields that conditions left out, whether anything
    /// changed, the deferred fragments whose data has not arrived, and the record its fields go
    /// into (when the walk builds records).
    package struct Visited {
        var fields: JSONObject
        var leftOut: [String] = []
        var changed = false
        var pending: [JSONValue] = []
        var record: ResponseRecords.Place?
    }

    /// Validates one object: its selections, then removes the fields selected only under
    /// conditions that do not hold; with `place`, its fields are recorded there. Returns whether
    /// `object` changed (here or below).
    @discardableResult
    package mutating func validate(
        _ object: inout JSONObject, selections: [Selection], in parent: ParentType, recordingAt place: ResponseRecords.Place? = nil
    ) throws(GraphQLDecodingError) -> Bool {
        var visited = Visited(fields: object, record: place)
        try walk(selections, parent: parent, in: &visited)
        if var place = visited.record {
            if place.adopting { place.fields = visited.fields }
            records?.add(place)
        }
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
    package mutating func validateArrived(
        _ object: inout JSONObject, deferral: Deferral, selections: [Selection], in parent: ParentType,
        recordingAt place: ResponseRecords.Place? = nil
    ) throws(GraphQLDecodingError) -> Bool {
        var visited = Visited(fields: object, record: place)
        do throws(GraphQLDecodingError) {
            try walk(selections, parent: parent, in: &visited)
        } catch where error.isMissingField {
            return false
        }
        if let place = visited.record { records?.add(place) }
        let before = visited.fields[Deferral.pendingKey]?.arrayValue ?? []
        let now = before.filter { $0 != .string(deferral.id) } + visited.pending
        visited.fields[Deferral.pendingKey] = now.isEmpty ? nil : .array(now)
        object = visited.fields
        return true
    }

    package func typename(of object: Visited) -> String? { object.fields["__typename"]?.stringValue }

    @inline(__always)
    package mutating func visit(_ field: Field, in object: inout Visited) throws(GraphQLDecodingError) {
        let key = field.responseKey
        guard let value = object.fields[key] else {
            throw GraphQLDecodingError(path: [.field(key)], message: "missing field '\(key)'", isMissingField: true)
        }
        // An error `@catch(to: RESULT)` put in its field: read by the accessor, never cached.
        if field.catchTo == .result, ErrorCatching.isCaughtError(value) { return }
        // Where the value goes in the object's record (nowhere when the walk builds no records, when
        // the record is the object itself, or when an error of the response names the field).
        var slot: ResponseRecords.Slot?
        if object.record?.adopting == false { slot = records?.slot(for: field, value: value, in: &object.record!) }
        do throws(GraphQLDecodingError) {
            let checked = try check(value, as: field.type, nullable: true, at: slot)
            if let replaced = checked.replacement {
                object.fields[key] = replaced
                object.changed = true
            }
            if let slot { object.record!.fields[slot.storageKey] = checked.stored }
        } catch {
            throw error.prefixed(by: .field(key))
        }
    }

    package mutating func leaveOut(_ selections: [Selection], in object: inout Visited) {
        Self.collectKeys(of: selections, into: &object.leftOut)
    }

    /// Whole or pending: a field missing anywhere in it means its data has not arrived; a value of
    /// the wrong type is an error all the same. (A pending fragment's fields that did arrive are not
    /// recorded: they are written when the fragment is whole.)
    package mutating func visitDeferred(
        _ deferral: Deferral, selections: [Selection], parent: ParentType, in object: inout Visited
    ) throws(GraphQLDecodingError) {
        if try !walkWhole(selections, parent: parent, in: &object, notArrived: \.isMissingField) {
            object.pending.append(.string(deferral.id))
        }
    }

    /// The response keys of every field in `selections`, at any depth of fragments and conditions.
    package static func collectKeys(of selections: [Selection], into keys: inout [String]) {
        keys += Selection.fields(of: selections).lazy.map(\.responseKey)
    }

    /// The response keys that selections select in an object of type `typename` under these
    /// variables.
    private struct SelectedKeys: SelectionVisitor {
        let variables: JSONObject
        let typename: String?

        func typename(of _: Set<String>) -> String? { typename }

        mutating func visit(_ field: Field, in keys: inout Set<String>) { keys.insert(field.responseKey) }
    }

    /// What checking one value gives: the value to keep in its place when validation removed a
    /// left-out field somewhere below it (else `nil`: the value stays as it is), and the value as
    /// its record stores it (objects as references to their own records).
    struct Checked {
        var replacement: JSONValue?
        var stored: JSONValue
    }

    /// Checks one value; with `slot`, records the objects in it.
    mutating func check(_ value: JSONValue, as type: OutputType, nullable: Bool, at slot: ResponseRecords.Slot?) throws(GraphQLDecodingError)
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
            let place = slot.map { records!.place(for: object, of: selectionSet, at: $0) }
            let changed = try validate(&object, selections: selectionSet.__selections, in: selectionSet.__parentType, recordingAt: place)
            return Checked(replacement: changed ? .object(object) : nil, stored: place.map { CacheNaming.reference(to: $0.key) } ?? value)
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
                    let checked = try check(item, as: element, nullable: true, at: recordsItems ? slot?.item(index) : nil)
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

extension OutputType {
    /// Whether values of this type hold objects (at any list depth).
    package var holdsObjects: Bool {
        switch self {
        case .nonNull(let inner), .list(let inner): return inner.holdsObjects
        case .scalar: return false
        case .object: return true
        }
    }
}
