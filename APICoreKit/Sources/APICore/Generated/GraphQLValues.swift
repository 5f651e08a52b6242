/// A value that can be read from a field of a GraphQL response: scalars, enums, custom scalars,
/// and optionals and lists of these. (A selection set is read through `DataDict`'s own subscripts,
/// or boxed as `_ObjectValue`.)
///
/// Generated accessors are written against this protocol; the response was validated against the
/// selection-set metadata before any accessor runs.
///
/// Its underscored hooks are for the engine. They stay public (not `@_spi(Generated)` like the
/// rest of the runtime) because a kit's own ``CustomScalarType`` conforms to this protocol, and
/// Swift lets a conformance use only default implementations its module can see.
public protocol GraphQLOutputValue: Sendable {
    /// Reads the value from the JSON of one field. Errors carry a path relative to that field.
    init(_fieldValue value: JSONValue) throws(GraphQLDecodingError)
    /// The JSON of the field (for data built or changed on the client: local cache mutations, mocks).
    var _outputJSON: JSONValue { get }
}

/// A value that can be sent as a GraphQL variable or input-object field. Its underscored hooks are
/// public for the same reason as ``GraphQLOutputValue``'s.
public protocol GraphQLInputValue: Sendable {
    /// The JSON to send, or `nil` to leave the variable or field out entirely.
    var _inputJSON: JSONValue? { get }
    /// Adds the files (`Upload` values) this value holds, with their paths below `path`.
    func _collectFiles(at path: [String], into files: inout [(path: [String], file: GraphQLFile)])
    /// `_inputJSON` and, in the same walk, `_collectFiles`: what `InputDict` asks of each field,
    /// so that a nested input object's fields are read once, not once for each (reading them
    /// twice at every level made an expression nested n deep cost 2ⁿ).
    func _inputJSON(collectingFilesAt path: [String], into files: inout [(path: [String], file: GraphQLFile)]) -> JSONValue?
}

/// A custom scalar (`DateTime`, `URL`, ...). The generated default is a `String` typealias, written
/// once and never overwritten, so an app can replace it by a type conforming to this protocol.
public protocol CustomScalarType: GraphQLOutputValue, GraphQLInputValue, Hashable {
    /// Reads the scalar from its JSON form.
    init(jsonValue value: JSONValue) throws
    /// Its JSON form.
    var jsonValue: JSONValue { get }
}

extension CustomScalarType {
    /// Reads the scalar; a failure names the scalar type and the reason.
    public init(_fieldValue value: JSONValue) throws(GraphQLDecodingError) {
        do {
            try self.init(jsonValue: value)
        } catch {
            throw GraphQLDecodingError(message: "invalid \(Self.self): \(error)")
        }
    }

    /// The JSON form, always sent.
    public var _inputJSON: JSONValue? { jsonValue }
    /// The JSON form.
    public var _outputJSON: JSONValue { jsonValue }
}

extension String: GraphQLOutputValue, GraphQLInputValue {
    /// Reads a `String` or `ID` field (the GraphQL spec serializes `ID` as a string).
    public init(_fieldValue value: JSONValue) throws(GraphQLDecodingError) {
        guard case .string(let string) = value else {
            throw GraphQLDecodingError(message: "expected a string, found \(value.kindDescription)")
        }
        self = string
    }

    /// A JSON string.
    public var _inputJSON: JSONValue? { .string(self) }
    /// The same JSON, as a field value.
    public var _outputJSON: JSONValue { .string(self) }
}

extension Int: GraphQLOutputValue, GraphQLInputValue {
    /// Reads an `Int` field; a fractional number, or one past `Int`'s range, is an error (never
    /// a rounded value).
    public init(_fieldValue value: JSONValue) throws(GraphQLDecodingError) {
        switch value {
        case .int(let int): self = int
        // Integral and below 2^53, so `Int(double)` is exact and cannot trap.
        case .double(let double) where double.rounded() == double && abs(double) < 9.0e15: self = Int(double)
        case .number(let number) where number.text == "-0": self = 0
        case .double, .number:
            throw GraphQLDecodingError(message: "expected an integer within Int's range, found \(value)")
        default: throw GraphQLDecodingError(message: "expected an integer, found \(value.kindDescription)")
        }
    }

    /// A JSON integer.
    public var _inputJSON: JSONValue? { .int(self) }
    /// The same JSON, as a field value.
    public var _outputJSON: JSONValue { .int(self) }
}

extension Double: GraphQLOutputValue, GraphQLInputValue {
    /// Reads a `Float` field (integers included), to the nearest `Double`; a number past
    /// `Double`'s range is an error, never infinity or zero.
    public init(_fieldValue value: JSONValue) throws(GraphQLDecodingError) {
        guard let double = value.doubleValue else {
            if case .number(let number) = value {
                throw GraphQLDecodingError(message: "the number \(number) is out of range for Float")
            }
            throw GraphQLDecodingError(message: "expected a number, found \(value.kindDescription)")
        }
        self = double
    }

    /// A JSON number.
    public var _inputJSON: JSONValue? { .double(self) }
    /// The same JSON, as a field value.
    public var _outputJSON: JSONValue { .double(self) }
}

extension Bool: GraphQLOutputValue, GraphQLInputValue {
    /// Reads a `Boolean` field.
    public init(_fieldValue value: JSONValue) throws(GraphQLDecodingError) {
        guard let bool = value.boolValue else {
            throw GraphQLDecodingError(message: "expected a Boolean, found \(value.kindDescription)")
        }
        self = bool
    }

    /// A JSON Boolean.
    public var _inputJSON: JSONValue? { .bool(self) }
    /// The same JSON, as a field value.
    public var _outputJSON: JSONValue { .bool(self) }
}

extension JSONValue: GraphQLOutputValue, GraphQLInputValue {
    /// Any JSON is accepted as it is (for `JSON`-like custom scalars).
    public init(_fieldValue value: JSONValue) throws(GraphQLDecodingError) { self = value }
    /// Sent as it is.
    public var _inputJSON: JSONValue? { self }
    /// The same JSON, as a field value.
    public var _outputJSON: JSONValue { self }
}

extension GraphQLEnum: GraphQLOutputValue, GraphQLInputValue {
    /// Reads an enum value; unknown names are kept as `.unknown`.
    public init(_fieldValue value: JSONValue) throws(GraphQLDecodingError) {
        guard case .string(let raw) = value else {
            throw GraphQLDecodingError(message: "expected an enum value (a string), found \(value.kindDescription)")
        }
        self.init(rawValue: raw)
    }

    /// The raw name as a JSON string.
    public var _inputJSON: JSONValue? { .string(rawValue) }
    /// The same JSON, as a field value.
    public var _outputJSON: JSONValue { .string(rawValue) }
}

extension Optional: GraphQLOutputValue where Wrapped: GraphQLOutputValue {
    /// `null` (or a field left out by `@include`/`@skip`) is `nil`.
    public init(_fieldValue value: JSONValue) throws(GraphQLDecodingError) {
        if case .null = value {
            self = .none
        } else {
            self = .some(try Wrapped(_fieldValue: value))
        }
    }

    /// `nil` is `null`.
    public var _outputJSON: JSONValue { self?._outputJSON ?? .null }
}

extension Optional: GraphQLInputValue where Wrapped: GraphQLInputValue {
    /// `nil` leaves the value out (use ``GraphQLNullable`` to send an explicit `null`).
    public var _inputJSON: JSONValue? { self?._inputJSON }
}

extension GraphQLNullable: GraphQLInputValue where Wrapped: GraphQLInputValue {
    /// `.none` leaves the value out, `.null` sends `null`.
    public var _inputJSON: JSONValue? {
        switch self {
        case .none: return nil
        case .null: return .null
        case .some(let value): return value._inputJSON ?? .null
        }
    }
}

extension Array: GraphQLOutputValue where Element: GraphQLOutputValue {
    /// Reads a list, element by element.
    public init(_fieldValue value: JSONValue) throws(GraphQLDecodingError) {
        guard case .array(let elements) = value else {
            throw GraphQLDecodingError(message: "expected a list, found \(value.kindDescription)")
        }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            do throws(GraphQLDecodingError) {
                result.append(try Element(_fieldValue: element))
            } catch {
                throw error.prefixed(by: .index(index))
            }
        }
        self = result
    }

    /// A JSON array of the elements.
    public var _outputJSON: JSONValue { .array(map(\._outputJSON)) }
}

extension Array: GraphQLInputValue where Element: GraphQLInputValue {
    /// A JSON array; an element that would be left out is sent as `null`.
    public var _inputJSON: JSONValue? { .array(map { $0._inputJSON ?? .null }) }
}

/// An input object: generated as a struct whose fields are kept as a dictionary of inputs.
public protocol InputObject: GraphQLInputValue, Hashable {
    /// The fields to send, by schema name.
    @_spi(Generated) var __data: InputDict { get }
}

extension InputObject {
    /// A JSON object of the fields that are not absent.
    public var _inputJSON: JSONValue? { .object(__data.jsonObject) }

    /// Its JSON and files, from one reading of its fields.
    public func _inputJSON(collectingFilesAt path: [String], into files: inout [(path: [String], file: GraphQLFile)]) -> JSONValue? {
        let data = __data
        for (fieldPath, file) in data.files { files.append((path + fieldPath, file)) }
        return .object(data.jsonObject)
    }
}

/// A field of an input object that holds its own type, directly or through other input objects
/// (`input Filter { not: Filter }`): Swift lays a struct's stored properties out inline, so a
/// struct cannot contain itself. The generated struct keeps such a field in this box, out of
/// line, behind a property of the field's own type; fields outside a cycle are stored as they are.
@_spi(Generated) public indirect enum InputIndirect<Value: Hashable & Sendable>: Hashable, Sendable {
    case value(Value)

    /// Boxes `value`.
    public init(_ value: Value) { self = .value(value) }

    /// The value in the box.
    public var value: Value {
        switch self {
        case .value(let value): return value
        }
    }
}

/// The fields of an input object or the variables of an operation, by name.
@_spi(Generated) public struct InputDict: Sendable, Hashable {
    /// The JSON of each field that is sent (absent fields are left out; files are `null`).
    public let jsonObject: JSONObject
    /// The files among the fields, with their paths (`["input", "attachment"]`), sorted by path.
    public let files: [(path: [String], file: GraphQLFile)]

    /// Collects the fields; `.none` values are left out.
    public init(_ fields: [String: any GraphQLInputValue] = [:]) {
        var object = JSONObject(minimumCapacity: fields.count)
        var files: [(path: [String], file: GraphQLFile)] = []
        for (key, value) in fields {
            if let json = value._inputJSON(collectingFilesAt: [key], into: &files) { object[key] = json }
        }
        jsonObject = object
        self.files = files.sorted { $0.path.lexicographicallyPrecedes($1.path) }
    }

    /// Equal when the JSON and the files are equal.
    public static func == (lhs: InputDict, rhs: InputDict) -> Bool {
        lhs.jsonObject == rhs.jsonObject && lhs.files.map(\.path) == rhs.files.map(\.path) && lhs.files.map(\.file) == rhs.files.map(\.file)
    }

    /// Hashes the JSON and the file paths.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(jsonObject)
        hasher.combine(files.map(\.path))
    }

    /// The JSON of the field named `key`, or `nil` when it is absent.
    public subscript(key: String) -> JSONValue? { jsonObject[key] }
}

/// A nullable GraphQL input: absent, explicitly `null`, or a value.
///
/// GraphQL tells "not given" (the server keeps its default or leaves a field alone) apart from
/// "given as null" (the server clears it). `Optional` cannot say both, so nullable variables and
/// input-object fields use this type. `nil` literals mean `.none` (absent).
public enum GraphQLNullable<Wrapped: Sendable>: Sendable {
    /// Not sent at all.
    case none
    /// Sent as `null`.
    case null
    /// Sent as this value.
    case some(Wrapped)
}

extension GraphQLNullable: Equatable where Wrapped: Equatable {}
extension GraphQLNullable: Hashable where Wrapped: Hashable {}

extension GraphQLNullable: ExpressibleByNilLiteral {
    /// `nil` is `.none`: absent, not `null`.
    public init(nilLiteral: ()) { self = .none }
}

extension GraphQLNullable {
    /// `.some(value)` when there is one, else `.none` (absent).
    public init(_ optional: Wrapped?) {
        self = optional.map { .some($0) } ?? .none
    }

    /// `.some(value)` when there is one, else `.null` (sent as null).
    public init(orNull optional: Wrapped?) {
        self = optional.map { .some($0) } ?? .null
    }
}

extension GraphQLNullable: ExpressibleByStringLiteral, ExpressibleByExtendedGraphemeClusterLiteral,
    ExpressibleByUnicodeScalarLiteral
where Wrapped: ExpressibleByStringLiteral {
    /// A string literal is `.some` (grapheme and scalar literals too, through the standard
    /// library's defaults).
    public init(stringLiteral value: Wrapped.StringLiteralType) { self = .some(Wrapped(stringLiteral: value)) }
}

extension GraphQLNullable: ExpressibleByIntegerLiteral where Wrapped: ExpressibleByIntegerLiteral {
    /// An integer literal is `.some`.
    public init(integerLiteral value: Wrapped.IntegerLiteralType) { self = .some(Wrapped(integerLiteral: value)) }
}

extension GraphQLNullable: ExpressibleByFloatLiteral where Wrapped: ExpressibleByFloatLiteral {
    /// A float literal is `.some`.
    public init(floatLiteral value: Wrapped.FloatLiteralType) { self = .some(Wrapped(floatLiteral: value)) }
}

extension GraphQLNullable: ExpressibleByBooleanLiteral where Wrapped: ExpressibleByBooleanLiteral {
    /// A Boolean literal is `.some`.
    public init(booleanLiteral value: Wrapped.BooleanLiteralType) { self = .some(Wrapped(booleanLiteral: value)) }
}
