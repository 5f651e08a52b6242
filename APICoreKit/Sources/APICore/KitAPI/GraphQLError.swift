/// One entry of a GraphQL response's `errors`.
public struct GraphQLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A place in the operation's document.
    public struct Location: Sendable, Hashable {
        /// One-based line.
        public var line: Int
        /// One-based column.
        public var column: Int

        /// Creates a location.
        public init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }
    }

    /// The server's message.
    public var message: String
    /// The response path of the field that failed, when the error is about a field.
    public var path: ResponsePath?
    /// Where in the document.
    public var locations: [Location]
    /// The server's `extensions` object.
    public var extensions: JSONObject

    /// `extensions.code`, such as `UNAUTHENTICATED`, when there is one.
    public var code: String? { extensions["code"]?.stringValue }

    /// Creates an error.
    public init(message: String, path: ResponsePath? = nil, locations: [Location] = [], extensions: JSONObject = [:]) {
        self.message = message
        self.path = path
        self.locations = locations
        self.extensions = extensions
    }

    /// Reads an error from its JSON; anything unexpected is kept as well as can be, never dropped.
    @_spi(Engine) public init(json: JSONValue) {
        guard case .object(let object) = json else {
            self.init(message: json.stringValue ?? "malformed GraphQL error: \(json)")
            return
        }
        let path = object["path"]?.arrayValue.map { components in
            ResponsePath(components.map { component -> ResponsePath.Component in
                if let index = component.intValue { return .index(index) }
                return .field(component.stringValue ?? component.description)
            })
        }
        let locations = (object["locations"]?.arrayValue ?? []).compactMap { location -> Location? in
            guard let line = location["line"]?.intValue, let column = location["column"]?.intValue else { return nil }
            return Location(line: line, column: column)
        }
        self.init(
            // An empty message says as little as a missing one.
            message: object["message"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? "GraphQL error without a message: \(json)",
            path: path,
            locations: locations,
            extensions: object["extensions"]?.objectValue ?? [:]
        )
    }

    /// The message, with the code and path when known.
    public var description: String {
        var text = message
        if let code { text += " [\(code)]" }
        if let path { text += " at \(path)" }
        return text
    }
}

extension GraphQLError {
    /// The error as JSON, as a server sends it: what `init(json:)` reads back (an offline
    /// queue's stored failures, errors that `@catch` put in data).
    @_spi(Engine) public var jsonValue: JSONValue {
        var object: JSONObject = ["message": .string(message), "extensions": .object(extensions)]
        if let path {
            object["path"] = .array(path.components.map { component in
                switch component {
                case .field(let key): return .string(key)
                case .index(let index): return .int(index)
                }
            })
        }
        if !locations.isEmpty {
            object["locations"] = .array(locations.map { .object(["line": .int($0.line), "column": .int($0.column)]) })
        }
        return .object(object)
    }
}
