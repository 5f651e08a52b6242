@_spi(Engine) @_spi(Generated) import APICore
import Foundation

/// Reading a GraphQL response, shared by every client in this package (the engine and the mock),
/// so that both turn the same JSON into the same values and errors.
package enum GraphQLResponseReading {
    /// The outcome of reading a GraphQL response envelope.
    package enum Envelope {
        /// No errors: the `data` object (nil when absent or null).
        case data(JSONObject?)
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
        return .data(data)
    }
}
