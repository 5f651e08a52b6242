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
    let tape: JSONTape
    let words: UnsafeBufferPointer<UInt64>
    let text: UnsafeBufferPointer<UInt8>
    let unescaped: UnsafeBufferPointer<UInt8>
    /// Set when the answer needs what only the tree's walk does.
    var needsTree = false

    /// Runs `body` with a check over `tape`'s buffers.
    static func over<Result>(_ tape: JSONTape, variables: JSONObject, _ body: (inout TapeCheck) -> Result) -> Result {
        tape.text.withUnsafeBytes { raw in
            tape.unescaped.withUnsafeBufferPointer { unescaped in
                tape.words.withUnsafeBufferPointer { words in
                    var check = TapeCheck(
                        variables: variables, tape: tape, words: words, text: raw.bindMemory(to: UInt8.self), unescaped: unescaped)
                    return body(&check)
                }
            }
        }
    }

    // MARK: The tape

    @inline(__always) func kind(_ index: Int) -> JSONTape.Kind { JSONTape.Kind(rawValue: UInt8(words[index] >> 56))! }

    /// The index after the value at `index` (after its last member, for a container).
    @inline(__always) func end(_ index: Int) -> Int {
        let first = words[index]
        let raw = UInt8(first >> 56)
        return raw >= JSONTape.Kind.array.rawValue ? Int(first & JSONTape.payloadMask) : index + 2
    }

    /// The member of the object at `object` named by `key`'s bytes (the last, when written twice).
    @inline(__always) func member(_ key: UnsafeBufferPointer<UInt8>, of object: Int) -> Int? {
        var found: Int?
        var cursor = object + 2
        let stop = Int(words[object] & JSONTape.payloadMask)
        while cursor < stop {
            let first = words[cursor]
            let value = cursor + 2
            if Int(words[cursor + 1]) == key.count {
                if key.isEmpty {
                    found = value
                } else {
                    let base = UInt8(first >> 56) == JSONTape.Kind.string.rawValue ? text.baseAddress! : unescaped.baseAddress!
                    let bytes = base + Int(first & JSONTape.payloadMask)
                    // Keys of one length mostly differ in their first byte: no call for those.
                    if bytes.pointee == key[0] && memcmp(bytes, key.baseAddress!, key.count) == 0 { found = value }
                }
            }
            cursor = end(value)
        }
        return found
    }

    @inline(__always) func member(_ key: String, of object: Int) -> Int? {
        if let found = key.utf8.withContiguousStorageIfAvailable({ member($0, of: object) }) { return found }
        var key = key
        return key.withUTF8 { member($0, of: object) }
    }

    func string(at index: Int) -> String? { JSONTape.Value(tape: tape, index: index).stringValue }

    func jsonValue(at index: Int) -> JSONValue { JSONTape.Value(tape: tape, index: index).jsonValue }

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

    /// Checks the object at `object` against `selections`.
    mutating func validate(_ object: Int, selections: [Selection], in parent: ParentType) throws(GraphQLDecodingError) {
        var object = object
        try walk(selections, parent: parent, in: &object)
    }

    func typename(of object: Int) -> String? { member("__typename", of: object).flatMap(string(at:)) }

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
            try validate(value, selections: selectionSet.__selections, in: selectionSet.__parentType)
        case .list(let element):
            guard kind(value) == .array else {
                throw GraphQLDecodingError(message: "expected a list, found \(kindDescription(value))")
            }
            var cursor = value + 2
            let stop = end(value)
            var index = 0
            while cursor < stop {
                do throws(GraphQLDecodingError) {
                    try check(cursor, as: element, nullable: true)
                } catch {
                    throw error.prefixed(by: .index(index))
                }
                cursor = end(cursor)
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
        let (needsTree, failure) = TapeCheck.over(value.tape, variables: variables) { check in
            do throws(GraphQLDecodingError) {
                try check.validate(value.index, selections: Self.__selections, in: Self.__parentType)
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
