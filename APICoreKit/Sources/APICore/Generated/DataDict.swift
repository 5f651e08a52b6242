import Foundation

/// The data of one selection set: the response's JSON object for it, checked against its
/// metadata before any accessor reads it. The object is a tree, or still on the tape the answer
/// was read into (``SelectionSet/init(validating:variables:)-(JSONTape.Value,_)``): accessors read
/// the tape, and the first change makes a tree of it.
@_spi(Generated) public struct DataDict: Sendable, Hashable {
    /// Where the object is.
    enum Storage: Sendable {
        case tree(JSONObject)
        case tape(JSONTape.Value)
    }

    var storage: Storage

    /// The object's fields by response key (built from the tape, when the data is still there).
    public var _data: JSONObject {
        get {
            switch storage {
            case .tree(let object): return object
            case .tape(let value): return value.jsonValue.objectValue ?? [:]
            }
        }
        set { storage = .tree(newValue) }
    }

    /// Whether the object is still on its tape.
    var isOnTape: Bool {
        if case .tape = storage { return true }
        return false
    }

    /// Wraps an object that was already validated.
    public init(_data: JSONObject) { self.storage = .tree(_data) }

    /// Wraps an object of a tape that was already validated.
    @usableFromInline init(tape value: JSONTape.Value) { self.storage = .tape(value) }

    /// Reads a field (the response was validated against the same metadata, so this cannot fail
    /// for generated accessors), or replaces it (for local cache mutations).
    public subscript<T: GraphQLOutputValue>(_ key: String) -> T {
        get { read(key) }
        set { _data[key] = newValue._outputJSON }
    }

    func read<T: GraphQLOutputValue>(_ key: String) -> T {
        do throws(GraphQLDecodingError) {
            switch storage {
            case .tree(let object):
                return try T(_fieldValue: object[key] ?? .null)
            case .tape(let object):
                guard let value = object[key] else { return try T(_fieldValue: .null) }
                // Objects and lists of them are read where they are; a leaf is made a value.
                if value.kind == .object || value.kind == .array, let shape = T.self as? any TapeReadable.Type {
                    return try shape.init(tape: value) as! T
                }
                return try T(_fieldValue: value.jsonValue)
            }
        } catch {
            Self.unreadable(key, error)
        }
    }

    /// ``read(_:)`` for a shape known to read a tape where it is (an object field, `T` or `T?`):
    /// chosen when the caller names the shape, so no cast asks for it.
    func read<T: GraphQLOutputValue & TapeReadable>(_ key: String) -> T {
        do throws(GraphQLDecodingError) {
            switch storage {
            case .tree(let object): return try T(_fieldValue: object[key] ?? .null)
            case .tape(let object): return try T(tape: object[key])
            }
        } catch {
            Self.unreadable(key, error)
        }
    }

    /// The object at `key`, where it is: `nil` when the field is null or absent.
    func object(_ key: String) -> DataDict? {
        switch storage {
        case .tree(let object):
            guard case .object(let value)? = object[key] else { return nil }
            return DataDict(_data: value)
        case .tape(let object):
            guard let index = object.storage.buffers.member(key, of: object.index) else { return nil }
            let value = JSONTape.Value(storage: object.storage, index: index)
            return value.kind == .object ? DataDict(tape: value) : nil
        }
    }

    /// The list at `key`, each item (an object where it is, or `nil` for null) made an `Element`:
    /// `nil` when the field is null or absent. No box, cast or key path per item.
    func objects<Element>(_ key: String, _ element: (DataDict?) -> Element) -> [Element]? {
        switch storage {
        case .tree(let object):
            guard case .array(let items)? = object[key] else { return nil }
            return items.map { item in
                guard case .object(let value) = item else { return element(nil) }
                return element(DataDict(_data: value))
            }
        case .tape(let object):
            let tape = object.storage
            let buffers = tape.buffers
            guard let list = buffers.member(key, of: object.index), buffers.kind(list) == .array else { return nil }
            var items: [Element] = []
            items.reserveCapacity(Int(buffers.words[list + 1]))
            var cursor = list + 2
            let stop = buffers.end(list)
            while cursor < stop {
                items.append(element(buffers.kind(cursor) == .object ? DataDict(tape: JSONTape.Value(storage: tape, index: cursor)) : nil))
                cursor = buffers.end(cursor)
            }
            return items
        }
    }

    /// A leaf field read off the tape by `read` (`nil`: not a value it reads, so the general
    /// path does), or from the tree as any field is: no `JSONValue` made for a tape's leaf.
    func leaf<T: GraphQLOutputValue>(_ key: String, _ read: (JSONTape.Buffers, Int) -> T?) -> T {
        if case .tape(let object) = storage {
            let buffers = object.storage.buffers
            if let value = buffers.member(key, of: object.index).flatMap({ read(buffers, $0) }) { return value }
        }
        return self.read(key)
    }

    /// A validated field that does not read. Data from outside (a server, the cache, a socket)
    /// reaches an accessor only through `SelectionSet(validating:variables:)` or the cache reader,
    /// which check every field an accessor can read, under the conditions it is read under, and
    /// remove any field that a condition left out. Only hand-built `DataDict`s that bypass both
    /// can get here.
    static func unreadable(_ key: String, _ error: GraphQLDecodingError) -> Never {
        preconditionFailure("APICore: a validated selection set could not read \(error.prefixed(by: .field(key))); the generated code and its metadata disagree")
    }

    /// The object's `__typename`, when it has one.
    var typename: String? {
        switch storage {
        case .tree(let object): return object["__typename"]?.stringValue
        case .tape(let object): return object["__typename"]?.stringValue
        }
    }

    /// Whether the object's `__typename` is one of `type`'s possible types: on a tape, its bytes
    /// are compared with a few types' names where they are, with no string made or hashed.
    func hasTypename(of type: ParentType) -> Bool {
        guard case .tape(let object) = storage, type.possibleTypes.count <= 4 else {
            return typename.map(type.matches(typename:)) ?? false
        }
        let buffers = object.storage.buffers
        guard let value = buffers.member(TapePlan.typenameKey, of: object.index), buffers.isString(value) else { return false }
        let typename = buffers.utf8(at: value)
        return type.possibleTypes.contains { name in
            var name = name
            return name.withUTF8 { JSONTape.sameBytes($0, typename) }
        }
    }

    /// The same data checked against another selection set (`nil` when it does not pass).
    func validated<T: SelectionSet>(as _: T.Type) -> T? {
        switch storage {
        case .tree(let object): return try? T(validating: object)
        case .tape(let object): return try? T(validating: object)
        }
    }

    /// Equal when their objects are.
    public static func == (lhs: DataDict, rhs: DataDict) -> Bool {
        // The same object of the same tape needs no tree to compare.
        if case .tape(let left) = lhs.storage, case .tape(let right) = rhs.storage, left.storage === right.storage, left.index == right.index {
            return true
        }
        return lhs._data == rhs._data
    }

    /// Hashes the object, as ``==(_:_:)`` compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(_data) }
}

/// A field shape that reads an object of a tape as it is (a selection set, and optionals and
/// lists of them): the tape is read as far as an accessor goes, never made a tree.
protocol TapeReadable {
    /// Reads the shape from a validated value (`nil`: the field is absent, read as null).
    init(tape value: JSONTape.Value?) throws(GraphQLDecodingError)
}

extension _ObjectValue: TapeReadable {
    init(tape value: JSONTape.Value?) throws(GraphQLDecodingError) {
        guard let value, value.kind == .object else { throw GraphQLDecodingError(message: "expected an object") }
        self.init(_boxing: T(_dataDict: DataDict(tape: value)))
    }
}

extension Optional: TapeReadable where Wrapped: TapeReadable {
    init(tape value: JSONTape.Value?) throws(GraphQLDecodingError) {
        guard let value, value.kind != .null else {
            self = nil
            return
        }
        self = try Wrapped(tape: value)
    }
}

extension Array: TapeReadable where Element: TapeReadable {
    init(tape value: JSONTape.Value?) throws(GraphQLDecodingError) {
        guard let value, value.kind == .array else { throw GraphQLDecodingError(message: "expected a list") }
        var elements: [Element] = []
        elements.reserveCapacity(value.count)
        for element in value.elements { elements.append(try Element(tape: element)) }
        self = elements
    }
}

extension DataDict {
    /// The deferred fragment `id` of this object: pending while validation listed it as such.
    @_spi(Generated) public func _deferred<T: SelectionSet>(_ id: String) -> Deferred<T> {
        // Data checked on a tape had nothing pending (the tree's walk takes deferred fragments).
        if case .tree(let object) = storage, case .array(let pending)? = object[Deferral.pendingKey], pending.contains(.string(id)) {
            return .pending
        }
        return .fulfilled(T(_dataDict: self))
    }

    /// A named fragment that always applies where it is spread, read by a generated `Fragments`.
    @_spi(Generated) public func _toFragment<T: Fragment>() -> T { T(_dataDict: self) }

    /// A named fragment spread under `@include`/`@skip`: present when its fields are.
    @_spi(Generated) public func _asConditionalFragment<T: Fragment>() -> T? { validated(as: T.self) }
}
