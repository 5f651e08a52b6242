@_spi(Engine) @_spi(Generated) @_spi(Tools) import APICore
import Foundation

/// A JSON object as the engine read it: still on the tape the reader left it on (an answer,
/// a message's payload), or a tree (built on the client, or read by a path that needs one).
/// The engine checks an answer, and builds its records, on its tape; a tree is made only when
/// something asks for one.
package enum ReadObject: Sendable, Equatable {
    /// A tree.
    case tree(JSONObject)
    /// An object on its tape.
    case tape(JSONTape.Value)

    /// The object as a tree (built from the tape, when it is there).
    package var tree: JSONObject {
        switch self {
        case .tree(let object): return object
        case .tape(let value): return value.jsonValue.objectValue ?? [:]
        }
    }

    /// The member named `key`, as a tree.
    package subscript(key: String) -> JSONValue? {
        switch self {
        case .tree(let object): return object[key]
        case .tape(let value): return value[key]?.jsonValue
        }
    }

    /// Reads a document whose root must be an object: `nil` when it is another value.
    package init?(_ tape: JSONTape) {
        guard tape.root.kind == .object else { return nil }
        self = .tape(tape.root)
    }

    /// Equal when their trees are.
    package static func == (lhs: ReadObject, rhs: ReadObject) -> Bool { lhs.tree == rhs.tree }
}

/// Reading a GraphQL response, shared by every client in this package (the engine and the mock),
/// so that both turn the same JSON into the same values and errors.
package enum GraphQLResponseReading {
    /// The outcome of reading a GraphQL response envelope.
    package enum Envelope {
        /// No errors: the `data` object (nil when absent or null).
        case data(ReadObject?)
        /// Errors that fields of the operation catch (`@catch`): the data with each in its place,
        /// and the errors.
        case caught(JSONObject, [GraphQLError])
        /// Not an object with `data` or `errors` at the top.
        case notGraphQL
    }

    /// Reads `{"data": …, "errors": […]}`. Errors, with any partial data, are thrown, unless
    /// fields of `catching` (the operation's selections) catch every one.
    package static func read(_ parsed: JSONValue, statusCode: Int?, operationName: String, catching selections: [Selection] = [])
        throws(APIError) -> Envelope
    {
        guard case .object(let envelope) = parsed, envelope["data"] != nil || envelope["errors"] != nil else {
            return .notGraphQL
        }
        let errors = (envelope["errors"]?.arrayValue ?? []).map(GraphQLError.init(json:))
        let data = envelope["data"]?.objectValue
        if !errors.isEmpty {
            if let data, !selections.isEmpty, let caught = ErrorCatching.catching(errors, in: data, selections: selections) {
                return .caught(caught, errors)
            }
            throw .graphQL(GraphQLFailure(errors: errors, partialData: data, statusCode: statusCode, operationName: operationName))
        }
        return .data(data.map(ReadObject.tree))
    }

    /// ``read(_:statusCode:operationName:catching:)`` for an envelope still on its tape: without
    /// errors, its `data` stays there; with errors, the envelope is read as a tree.
    package static func read(_ envelope: JSONTape.Value, statusCode: Int?, operationName: String, catching selections: [Selection] = [])
        throws(APIError) -> Envelope
    {
        guard envelope.kind == .object else { return .notGraphQL }
        let data = envelope["data"]
        let errors = envelope["errors"]
        if let errors, errors.kind == .array, errors.count > 0 {
            return try read(envelope.jsonValue, statusCode: statusCode, operationName: operationName, catching: selections)
        }
        guard data != nil || errors != nil else { return .notGraphQL }
        return .data(data.flatMap { $0.kind == .object ? .tape($0) : nil })
    }

    /// Reads a result object, as a tree or on its tape.
    package static func read(_ result: ReadObject, statusCode: Int?, operationName: String, catching selections: [Selection] = [])
        throws(APIError) -> Envelope
    {
        switch result {
        case .tree(let object): return try read(.object(object), statusCode: statusCode, operationName: operationName, catching: selections)
        case .tape(let value): return try read(value, statusCode: statusCode, operationName: operationName, catching: selections)
        }
    }
}
