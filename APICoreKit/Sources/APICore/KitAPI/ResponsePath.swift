/// A path into a GraphQL response, as in the `path` of a GraphQL error: field names (response
/// keys) and list indexes. `hero.friends.0.name` reads `hero`, then `friends`, then the first
/// element, then `name`.
public struct ResponsePath: Sendable, Hashable, CustomStringConvertible, ExpressibleByArrayLiteral {
    /// One step of the path.
    public enum Component: Sendable, Hashable, CustomStringConvertible {
        /// A response key (the alias when there is one).
        case field(String)
        /// An index into a list.
        case index(Int)

        /// The key, or the index as digits.
        public var description: String {
            switch self {
            case .field(let name): return name
            case .index(let index): return String(index)
            }
        }
    }

    /// The steps from the root.
    public var components: [Component]

    /// A path of these steps.
    public init(_ components: [Component] = []) { self.components = components }

    /// A path from a literal array of steps.
    public init(arrayLiteral elements: Component...) { components = elements }

    /// This path with a field appended.
    public func appending(_ field: String) -> ResponsePath { ResponsePath(components + [.field(field)]) }

    /// This path with a list index appended.
    public func appending(_ index: Int) -> ResponsePath { ResponsePath(components + [.index(index)]) }

    /// Dotted form, such as `hero.friends.0.name`; the root is `(root)`.
    public var description: String {
        components.isEmpty ? "(root)" : components.map(\.description).joined(separator: ".")
    }
}

extension ResponsePath.Component: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    /// A string literal is a field.
    public init(stringLiteral value: String) { self = .field(value) }
    /// An integer literal is an index.
    public init(integerLiteral value: Int) { self = .index(value) }
}

/// A response that does not match the selection set it was decoded against.
public struct GraphQLDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where in the response.
    public var path: ResponsePath
    /// What was wrong there.
    public var message: String

    /// Whether a selected field was absent (as opposed to present with the wrong value): what a
    /// deferred fragment whose data has not arrived looks like.
    @usableFromInline var isMissingField = false

    /// Creates the error.
    public init(path: ResponsePath = [], message: String) {
        self.path = path
        self.message = message
    }

    @usableFromInline init(path: ResponsePath, message: String, isMissingField: Bool) {
        self.init(path: path, message: message)
        self.isMissingField = isMissingField
    }

    /// The field `key` is not in the object that selects it.
    @inlinable static func missingField(_ key: String) -> GraphQLDecodingError {
        GraphQLDecodingError(path: [.field(key)], message: "missing field '\(key)'", isMissingField: true)
    }

    /// The same error seen from one level up: `component` goes in front of the path.
    @_spi(Engine) public func prefixed(by component: ResponsePath.Component) -> GraphQLDecodingError {
        GraphQLDecodingError(path: ResponsePath([component] + path.components), message: message, isMissingField: isMissingField)
    }

    /// `path: message`.
    public var description: String { "\(path): \(message)" }

    /// Errors are equal when they say the same thing at the same place.
    public static func == (lhs: GraphQLDecodingError, rhs: GraphQLDecodingError) -> Bool {
        lhs.path == rhs.path && lhs.message == rhs.message
    }

    /// Hashes what equality compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(path)
        hasher.combine(message)
    }
}

extension JSONObject {
    /// The value at `path`, through objects and lists.
    @_spi(Engine) public func value(at path: ResponsePath) -> JSONValue? {
        var current = JSONValue.object(self)
        for component in path.components {
            switch (component, current) {
            case (.field(let key), .object(let object)):
                guard let next = object[key] else { return nil }
                current = next
            case (.index(let index), .array(let items)) where items.indices.contains(index):
                current = items[index]
            default:
                return nil
            }
        }
        return current
    }
}
