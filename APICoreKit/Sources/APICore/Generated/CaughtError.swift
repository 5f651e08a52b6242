/// A field's error caught with `@catch(to: RESULT)`, as it stands in the data the generated
/// accessor reads (as `Result.failure`): an object under a key GraphQL reserves (`__` names), so no
/// server field can clash with it. It never reaches the cache. APICoreSupport's `ErrorCatching`
/// puts it there.
@_spi(Engine) public enum CaughtError {
    @usableFromInline static let key = "__caughtError"

    /// Whether `value` is a caught error.
    @inlinable public static func isCaughtError(_ value: JSONValue) -> Bool {
        if case .object(let object) = value, object.count == 1, object[key] != nil { return true }
        return false
    }

    /// The error a caught-error value holds.
    static func error(in value: JSONValue) -> GraphQLError? {
        guard isCaughtError(value), let error = value[key] else { return nil }
        return GraphQLError(json: error)
    }

    /// The value that stands for `error` in the field that caught it.
    public static func value(of error: GraphQLError) -> JSONValue { .object([key: error.jsonValue]) }
}

extension Result: GraphQLOutputValue where Success: GraphQLOutputValue, Failure == GraphQLError {
    /// A field caught with `@catch(to: RESULT)`: the error the server sent for it, or its value.
    public init(_fieldValue value: JSONValue) throws(GraphQLDecodingError) {
        if let error = CaughtError.error(in: value) {
            self = .failure(error)
        } else {
            self = .success(try Success(_fieldValue: value))
        }
    }

    /// The value's JSON, or the error in the place the server's would be caught.
    public var _outputJSON: JSONValue {
        switch self {
        case .success(let value): return value._outputJSON
        case .failure(let error): return CaughtError.value(of: error)
        }
    }
}
