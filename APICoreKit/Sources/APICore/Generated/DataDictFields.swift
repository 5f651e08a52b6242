// DataDict's typed field subscripts: objects and lists of objects first, then the four built-in
// scalars read off the tape.

/// Fields whose value is an object: read and written through `DataDict`.
///
/// ``SelectionSet`` does not refine ``GraphQLOutputValue``: a conformance per generated struct is
/// a set of functions the compiler emits for each, and a module of hundreds of structs builds
/// faster without them. An object field is read by one of `DataDict`'s subscripts for the six
/// shapes a schema gives nearly every object field (`T`, `T?`, `[T]`, `[T?]`, `[T]?`, `[T?]?`);
/// any other shape (lists of lists, `@catch(to: RESULT)`) names its shape with `_ObjectValue`
/// in place of the selection set: `__data["rows", as: [[_ObjectValue<Cell>]].self]`.
extension DataDict {
    /// An object field.
    public subscript<T: SelectionSet>(_ key: String) -> T {
        get {
            guard let object = object(key) else { Self.unreadable(key, GraphQLDecodingError(message: "expected an object")) }
            return T(_dataDict: object)
        }
        set { _data[key] = newValue._outputJSON }
    }

    /// A nullable object field (or one `@include`/`@skip` can leave out).
    public subscript<T: SelectionSet>(_ key: String) -> T? {
        get { object(key).map(T.init(_dataDict:)) }
        set { _data[key] = newValue?._outputJSON ?? .null }
    }

    /// A list of objects.
    public subscript<T: SelectionSet>(_ key: String) -> [T] {
        get {
            guard let list: [T] = self[key] else { Self.unreadable(key, GraphQLDecodingError(message: "expected a list")) }
            return list
        }
        set { self[key, as: [_ObjectValue<T>].self] = newValue }
    }

    /// A list of nullable objects.
    public subscript<T: SelectionSet>(_ key: String) -> [T?] {
        get {
            guard let list: [T?] = self[key] else { Self.unreadable(key, GraphQLDecodingError(message: "expected a list")) }
            return list
        }
        set { self[key, as: [_ObjectValue<T>?].self] = newValue }
    }

    /// A nullable list of objects.
    public subscript<T: SelectionSet>(_ key: String) -> [T]? {
        get {
            objects(key) { item in
                guard let item else { Self.unreadable(key, GraphQLDecodingError(message: "null in a list of non-null objects")) }
                return T(_dataDict: item)
            }
        }
        set { self[key, as: [_ObjectValue<T>]?.self] = newValue }
    }

    /// A nullable list of nullable objects.
    public subscript<T: SelectionSet>(_ key: String) -> [T?]? {
        get { objects(key) { $0.map(T.init(_dataDict:)) } }
        set { self[key, as: [_ObjectValue<T>?]?.self] = newValue }
    }

    /// An object field of any shape, named with `_ObjectValue` in place of its selection set.
    public subscript<Shape: _ObjectShape>(_ key: String, as shape: Shape.Type) -> Shape.Unboxed {
        get { (read(key) as Shape)._unboxed }
        set { _data[key] = Shape(_boxing: newValue)._outputJSON }
    }
}

/// A shape of object field — `_ObjectValue`, and optionals, lists and `Result`s of shapes — as a
/// ``GraphQLOutputValue``, with the value that generated code reads and writes (`_ObjectValue<T>`
/// boxes `T`, `[_ObjectValue<T>?]` boxes `[T?]`).
public protocol _ObjectShape: GraphQLOutputValue {
    /// The shape with selection sets in place of their boxes.
    associatedtype Unboxed: Sendable
    /// The value unboxed.
    var _unboxed: Unboxed { get }
    /// Boxes a value.
    init(_boxing value: Unboxed)
}

/// A selection set as a ``GraphQLOutputValue``: the innermost part of an `_ObjectShape`.
public struct _ObjectValue<T: SelectionSet>: _ObjectShape {
    /// The selection set.
    public let value: T

    /// Boxes `value`.
    public init(_boxing value: T) { self.value = value }

    /// Reads the object (an error when the JSON is no object).
    public init(_fieldValue value: JSONValue) throws(GraphQLDecodingError) { self.value = try T(_fieldValue: value) }

    /// The object's JSON.
    public var _outputJSON: JSONValue { value._outputJSON }

    /// The selection set.
    public var _unboxed: T { value }
}

extension Optional: _ObjectShape where Wrapped: _ObjectShape {
    /// `nil` stays `nil`.
    public var _unboxed: Wrapped.Unboxed? { self?._unboxed }

    /// Boxes the value, if any.
    public init(_boxing value: Wrapped.Unboxed?) { self = value.map(Wrapped.init(_boxing:)) }
}

extension Array: _ObjectShape where Element: _ObjectShape {
    /// Each element unboxed.
    public var _unboxed: [Element.Unboxed] { map { $0._unboxed } }

    /// Each element boxed.
    public init(_boxing value: [Element.Unboxed]) { self = value.map(Element.init(_boxing:)) }
}

extension Result: _ObjectShape where Success: _ObjectShape, Failure == GraphQLError {
    /// The value unboxed, or the error.
    public var _unboxed: Result<Success.Unboxed, GraphQLError> { map { $0._unboxed } }

    /// The value boxed, or the error.
    public init(_boxing value: Result<Success.Unboxed, GraphQLError>) { self = value.map(Success.init(_boxing:)) }
}

/// Fields of the four built-in scalars, read off a tape where they are: a string is decoded from
/// the answer's bytes and a number taken from its word, with no `JSONValue` made, no cast and no
/// generic call per read. Generated accessors (`public var name: String { __data["name"] }`)
/// choose these over ``DataDict/subscript(_:)-(String)->T`` by their type; tree-backed data, and
/// any value these do not read, go the general way.
extension DataDict {
    /// A `String` or `ID` field.
    public subscript(_ key: String) -> String {
        get { leaf(key) { $0.stringIfString(at: $1) } }
        set { _data[key] = newValue._outputJSON }
    }

    /// A nullable `String` or `ID` field.
    public subscript(_ key: String) -> String? {
        get { nullableLeaf(key) { $0.stringIfString(at: $1) } }
        set { _data[key] = newValue._outputJSON }
    }

    /// An `Int` field.
    public subscript(_ key: String) -> Int {
        get { leaf(key) { $0.int(at: $1) } }
        set { _data[key] = newValue._outputJSON }
    }

    /// A nullable `Int` field.
    public subscript(_ key: String) -> Int? {
        get { nullableLeaf(key) { $0.int(at: $1) } }
        set { _data[key] = newValue._outputJSON }
    }

    /// A `Float` field.
    public subscript(_ key: String) -> Double {
        get { leaf(key) { $0.double(at: $1) } }
        set { _data[key] = newValue._outputJSON }
    }

    /// A nullable `Float` field.
    public subscript(_ key: String) -> Double? {
        get { nullableLeaf(key) { $0.double(at: $1) } }
        set { _data[key] = newValue._outputJSON }
    }

    /// A `Boolean` field.
    public subscript(_ key: String) -> Bool {
        get { leaf(key) { $0.bool(at: $1) } }
        set { _data[key] = newValue._outputJSON }
    }

    /// A nullable `Boolean` field.
    public subscript(_ key: String) -> Bool? {
        get { nullableLeaf(key) { $0.bool(at: $1) } }
        set { _data[key] = newValue._outputJSON }
    }

    /// ``leaf(_:_:)`` for a nullable field: `null` is `nil`, anything else as `read` reads it.
    private func nullableLeaf<T: GraphQLOutputValue>(_ key: String, _ read: (JSONTape.Buffers, Int) -> T?) -> T? {
        leaf(key) { buffers, index in buffers.kind(index) == .null ? .some(nil) : read(buffers, index).map(Optional.some) }
    }
}

extension JSONTape.Buffers {
    /// Whether the value at `index` is a string.
    func isString(_ index: Int) -> Bool {
        let kind = kind(index)
        return kind == .string || kind == .escapedString
    }

    /// The string at `index`, when it is one.
    func stringIfString(at index: Int) -> String? {
        isString(index) ? string(at: index) : nil
    }

    /// The integer at `index`, when it is one `Int` holds (others go the general way).
    func int(at index: Int) -> Int? {
        kind(index) == .int ? Int(bitPattern: UInt(words[index + 1])) : nil
    }

    /// The number at `index` as a `Double`, when it is an integer or a `Double` written exactly.
    func double(at index: Int) -> Double? {
        switch kind(index) {
        case .double: return Double(bitPattern: words[index + 1])
        case .int: return Double(Int(bitPattern: UInt(words[index + 1])))
        default: return nil
        }
    }

    /// The Boolean at `index`.
    func bool(at index: Int) -> Bool? {
        switch kind(index) {
        case .true: return true
        case .false: return false
        default: return nil
        }
    }
}
