@_spi(Generated) @_spi(Engine) import APICore

/// A generated test mock of one schema object type (`Mock.Droid`, from `output.testMocks`): the
/// fields a test sets, with their Swift types, and nested mocks for nested objects.
///
/// Data for any operation or fragment is built from a mock of its type with
/// ``APICore/SelectionSet/init(mock:variables:)``, or answered by ``MockAPIClient`` with
/// `stub(operation:mock:)`: each field the selection set selects is read from the mock by its
/// schema name and put under its response key, type conditions apply by the mock's type, and
/// the result goes through the same validation as a server's answer.
public protocol MockObject: Sendable {
    /// The schema name of the object type, the `__typename` of the data built.
    static var __typename: String { get }
    /// The fields set, by schema name. Generated.
    var _mockFields: [String: MockValue] { get }
}

/// The value of one field of a mock.
public indirect enum MockValue: Sendable {
    /// A scalar, enum or custom scalar (or a list of them), as its JSON.
    case leaf(JSONValue)
    /// A nested object.
    case object(any MockObject)
    /// A list of objects (or of lists).
    case list([MockValue])
    /// `null`.
    case null
}

/// Keeps a mock's nested object behind a reference, so that a mock type can hold its own type (a
/// category's parent category). Generated on the object-typed fields of mocks.
@propertyWrapper
public struct MockIndirect<Value: Sendable>: Sendable {
    private final class Box: Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    private var box: Box

    /// Holds `wrappedValue`.
    public init(wrappedValue: Value) { box = Box(wrappedValue) }

    /// The value; setting it replaces the box, so copies of a mock never share changes.
    public var wrappedValue: Value {
        get { box.value }
        set { box = Box(newValue) }
    }
}

/// A mock that does not give what a selection set needs.
public struct MockDataError: Error, Sendable, CustomStringConvertible {
    /// The response path where it happened (`hero.friends.0.name`).
    public var path: [String]
    /// What was missing or wrong.
    public var message: String

    /// `path: message`.
    public var description: String { path.isEmpty ? message : path.joined(separator: ".") + ": " + message }
}

extension SelectionSet {
    /// Data built from a mock of the type it is selected on: each selected field comes from the
    /// mock (a nullable field the mock leaves unset is `null`; a non-null one is an error naming
    /// it), then the data is validated like a server's answer.
    public init(mock: some MockObject, variables: JSONObject = [:]) throws(MockDataError) {
        let object = try MockDataBuilder(variables: variables).object(mock, selections: Self.__selections, parent: Self.__parentType, path: [])
        do throws(GraphQLDecodingError) {
            self = try Self(validating: object, variables: variables)
        } catch {
            throw MockDataError(path: error.path.components.map(\.description), message: error.message)
        }
    }
}

/// Turns a mock into the JSON a server would have answered for some selections. Deferred
/// fragments are fulfilled: a mock's data is whole.
struct MockDataBuilder: SelectionVisitor {
    let variables: JSONObject

    /// One object as the walk goes: the mock it comes from, its path for errors, its JSON so far.
    struct Built {
        let mock: any MockObject
        let path: [String]
        var json: JSONObject = [:]
    }

    func object(_ mock: any MockObject, selections: [Selection], parent: ParentType, path: [String]) throws(MockDataError) -> JSONObject {
        var builder = self
        var built = Built(mock: mock, path: path)
        try builder.walk(selections, parent: parent, in: &built)
        return built.json
    }

    func typename(of built: Built) -> String? { type(of: built.mock).__typename }

    mutating func visit(_ field: Field, in built: inout Built) throws(MockDataError) {
        let typename = type(of: built.mock).__typename
        let key = field.responseKey
        let value: JSONValue
        if field.name == "__typename" {
            value = .string(typename)
        } else {
            value = try convert(
                built.mock._mockFields[field.name] ?? .null, as: field.type, path: built.path + [key],
                missing: "Mock.\(typename) has no value for '\(field.name)', which the selection set needs")
        }
        built.json[key] = Self.merge(built.json[key], value)
    }

    private func convert(_ value: MockValue, as type: OutputType, path: [String], missing: String) throws(MockDataError) -> JSONValue {
        var value = value
        if case .leaf(.null) = value { value = .null }
        switch (type, value) {
        case (.nonNull, .null):
            throw MockDataError(path: path, message: missing)
        case (.nonNull(let inner), _):
            return try convert(value, as: inner, path: path, missing: missing)
        case (_, .null):
            return .null
        case (.scalar, .leaf(let json)):
            return json
        case (.list(let element), .leaf(.array(let items))):
            return try list(items.map(MockValue.leaf), of: element, path: path, missing: missing)
        case (.list(let element), .list(let items)):
            return try list(items, of: element, path: path, missing: missing)
        case (.object(let selectionSet), .object(let mock)):
            return .object(try object(mock, selections: selectionSet.__selections, parent: selectionSet.__parentType, path: path))
        default:
            throw MockDataError(path: path, message: "the mock's value does not have the field's shape")
        }
    }

    private func list(_ items: [MockValue], of element: OutputType, path: [String], missing: String) throws(MockDataError) -> JSONValue {
        var result: [JSONValue] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            result.append(try convert(item, as: element, path: path + [String(index)], missing: missing))
        }
        return .array(result)
    }

    /// The same response key selected in several places (a fragment and its parent) gets the
    /// union of what each selects.
    static func merge(_ existing: JSONValue?, _ new: JSONValue) -> JSONValue {
        switch (existing, new) {
        case (.object(var merged)?, .object(let more)):
            for (key, value) in more { merged[key] = merge(merged[key], value) }
            return .object(merged)
        case (.array(let left)?, .array(let right)) where left.count == right.count:
            return .array(zip(left, right).map { merge($0, $1) })
        default:
            return new
        }
    }
}
