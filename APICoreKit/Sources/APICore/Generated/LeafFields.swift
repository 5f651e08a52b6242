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
