import Foundation

/// Checks data where the reader left it, on its ``JSONTape``: the same rules as
/// ``SelectionValidator``, with no tree built for the answer. Each selected field is found among
/// its object's members by comparing key bytes, and a leaf is checked by its kind on the tape (a
/// `String` field is a string there; only a custom scalar or enum is read into a value to ask it).
/// What passes is wrapped as it is: the ``DataDict`` reads the tape.
///
/// What this walk does not do, it hands back to the tree's: an object with a field that a
/// condition left out but the server sent anyway (the tree removes it), a deferred fragment (the
/// tree lists what is pending). Those answers are checked by ``SelectionValidator`` over the
/// tree, as before, with the same errors. (Data on a tape has no deferred fragment pending, so a
/// `__pending` member a server might send is never read as the engine's list.)
struct TapeCheck: SelectionVisitor {
    let variables: JSONObject
    let storage: JSONTape.Storage
    let tape: JSONTape.Buffers
    /// Set when the answer needs what only the tree's walk does.
    var needsTree = false

    /// Runs `body` with a check over `storage`'s buffers.
    static func over<Result>(_ storage: JSONTape.Storage, variables: JSONObject, _ body: (inout TapeCheck) -> Result) -> Result {
        storage.reading { buffers in
            var check = TapeCheck(variables: variables, storage: storage, tape: buffers)
            return body(&check)
        }
    }

    // MARK: The tape

    @inline(__always) func kind(_ index: Int) -> JSONTape.Kind { tape.kind(index) }

    @inline(__always) func member(_ key: String, of object: Int) -> Int? { tape.member(key, of: object) }

    func jsonValue(at index: Int) -> JSONValue { JSONTape.Value(storage: storage, index: index).jsonValue }

    func kindDescription(_ index: Int) -> String {
        switch kind(index) {
        case .null: return "null"
        case .true, .false: return "a Boolean"
        case .int, .double, .number: return "a number"
        case .string, .escapedString: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    // MARK: The walk

    /// Checks the object at `object` against the selection set `plan` was made of: field by
    /// field from the plan when it is flat, else through the selection walk.
    mutating func validate(_ object: Int, plan: TapePlan) throws(GraphQLDecodingError) {
        guard let entries = plan.entries else {
            var object = object
            try walk(plan.selections, parent: plan.parent, in: &object)
            return
        }
        let layers = plan.layers
        for entry in entries {
            guard let value = tape.member(entry.key, of: object) else {
                let key = entry.field.responseKey
                throw GraphQLDecodingError(path: [.field(key)], message: "missing field '\(key)'", isMissingField: true)
            }
            if entry.field.catchTo == .result, kind(value) == .object, CaughtError.isCaughtError(jsonValue(at: value)) { continue }
            do throws(GraphQLDecodingError) {
                try check(value, layer: entry.type, of: layers, nullable: true)
            } catch {
                throw error.prefixed(by: .field(entry.field.responseKey))
            }
        }
    }

    /// Checks one value against the type that starts at `layer`.
    mutating func check(_ value: Int, layer: Int, of layers: UnsafeBufferPointer<TapePlan.Layer>, nullable: Bool) throws(GraphQLDecodingError) {
        let kind = kind(value)
        switch layers[layer] {
        case .nonNull:
            if kind == .null { throw GraphQLDecodingError(message: "null for a non-null field") }
            return try check(value, layer: layer + 1, of: layers, nullable: false)
        case _ where nullable && kind == .null:
            return
        case .string:
            if kind == .string || kind == .escapedString { return }
            _ = try String(_fieldValue: jsonValue(at: value))
        case .anyString:
            if kind == .string || kind == .escapedString { return }
            // As `GraphQLEnum(_fieldValue:)` says it.
            throw GraphQLDecodingError(message: "expected an enum value (a string), found \(kindDescription(value))")
        case .int:
            if kind == .int { return }
            _ = try Int(_fieldValue: jsonValue(at: value))
        case .double:
            if kind == .int || kind == .double { return }
            _ = try Double(_fieldValue: jsonValue(at: value))
        case .bool:
            if kind == .true || kind == .false { return }
            _ = try Bool(_fieldValue: jsonValue(at: value))
        case .scalar(let scalar):
            _ = try scalar.init(_fieldValue: jsonValue(at: value))
        case .object(let plan):
            guard kind == .object else { throw GraphQLDecodingError(message: "expected an object, found \(kindDescription(value))") }
            try validate(value, plan: plan.takeUnretainedValue())
        case .list:
            guard kind == .array else { throw GraphQLDecodingError(message: "expected a list, found \(kindDescription(value))") }
            var cursor = value + 2
            let stop = tape.end(value)
            var index = 0
            while cursor < stop {
                do throws(GraphQLDecodingError) {
                    try check(cursor, layer: layer + 1, of: layers, nullable: true)
                } catch {
                    throw error.prefixed(by: .index(index))
                }
                cursor = tape.end(cursor)
                index += 1
            }
        }
    }

    func typename(of object: Int) -> String? {
        guard let value = member("__typename", of: object), kind(value) == .string || kind(value) == .escapedString else { return nil }
        return tape.string(at: value)
    }

    mutating func visit(_ field: Field, in object: inout Int) throws(GraphQLDecodingError) {
        let key = field.responseKey
        guard let value = member(key, of: object) else {
            throw GraphQLDecodingError(path: [.field(key)], message: "missing field '\(key)'", isMissingField: true)
        }
        if field.catchTo == .result, kind(value) == .object, CaughtError.isCaughtError(jsonValue(at: value)) { return }
        do throws(GraphQLDecodingError) {
            try check(value, as: field.type, nullable: true)
        } catch {
            throw error.prefixed(by: .field(key))
        }
    }

    /// A field a condition left out is the tree's to remove, when the server sent it.
    mutating func leaveOut(_ selections: [Selection], in object: inout Int) {
        for field in Selection.fields(of: selections) where member(field.responseKey, of: object) != nil {
            needsTree = true
        }
    }

    /// The tree lists what is pending.
    mutating func visitDeferred(_: Deferral, selections _: [Selection], parent _: ParentType, in _: inout Int) {
        needsTree = true
    }

    mutating func check(_ value: Int, as type: OutputType, nullable: Bool) throws(GraphQLDecodingError) {
        switch type {
        case .nonNull(let inner):
            if kind(value) == .null { throw GraphQLDecodingError(message: "null for a non-null field") }
            try check(value, as: inner, nullable: false)
        case _ where nullable && kind(value) == .null:
            return
        case .scalar(let scalar):
            if !Self.holds(kind(value), scalar) { _ = try scalar.init(_fieldValue: jsonValue(at: value)) }
        case .object(let selectionSet):
            guard kind(value) == .object else {
                throw GraphQLDecodingError(message: "expected an object, found \(kindDescription(value))")
            }
            try validate(value, plan: TapePlan.of(selectionSet))
        case .list(let element):
            guard kind(value) == .array else {
                throw GraphQLDecodingError(message: "expected a list, found \(kindDescription(value))")
            }
            var cursor = value + 2
            let stop = tape.end(value)
            var index = 0
            while cursor < stop {
                do throws(GraphQLDecodingError) {
                    try check(cursor, as: element, nullable: true)
                } catch {
                    throw error.prefixed(by: .index(index))
                }
                cursor = tape.end(cursor)
                index += 1
            }
        }
    }

    /// Whether a value of `kind` is one the built-in `scalar` reads as it is, without asking it.
    @inline(__always) static func holds(_ kind: JSONTape.Kind, _ scalar: any GraphQLOutputValue.Type) -> Bool {
        let type = ObjectIdentifier(scalar)
        switch kind {
        case .string, .escapedString: return type == ObjectIdentifier(String.self)
        case .int: return type == ObjectIdentifier(Int.self) || type == ObjectIdentifier(Double.self)
        case .double: return type == ObjectIdentifier(Double.self)
        case .true, .false: return type == ObjectIdentifier(Bool.self)
        default: return false
        }
    }
}

extension SelectionSet {
    /// Validates the object at `value` of a tape against this selection set and wraps it, the
    /// tape kept as the data (no tree built): ``init(validating:variables:)`` for an answer still
    /// on its tape, with the same rules and errors.
    @_spi(Engine) public init(validating value: JSONTape.Value, variables: JSONObject = [:]) throws(GraphQLDecodingError) {
        guard value.kind == .object else {
            throw GraphQLDecodingError(message: "expected an object, found \(value.jsonValue.kindDescription)")
        }
        // Up to the first error the walks agree; past something only the tree's walk does (a
        // deferred fragment it checks whole, say), the tree's says what is wrong first.
        let (needsTree, failure) = TapeCheck.over(value.storage, variables: variables) { check in
            do throws(GraphQLDecodingError) {
                try check.validate(value.index, plan: TapePlan.of(Self.self))
                return (check.needsTree, GraphQLDecodingError?.none)
            } catch {
                return (check.needsTree, error)
            }
        }
        if let failure, !needsTree { throw failure }
        if needsTree {
            try self.init(validating: value.jsonValue.objectValue ?? [:], variables: variables)
        } else {
            self.init(_dataDict: DataDict(tape: value))
        }
    }
}
