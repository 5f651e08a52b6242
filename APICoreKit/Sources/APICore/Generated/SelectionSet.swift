/// The GraphQL kind of operation.
public enum GraphQLOperationType: String, Sendable, Hashable {
    /// A read.
    case query
    /// A write.
    case mutation
    /// A stream of events.
    case subscription
}

/// The type a selection set is selected on, with the object types it can be at runtime, so that a
/// type condition can be checked against a response's `__typename`. A class, so that generated
/// code hands out the schema's one instance with one reference count, not four.
@_spi(Generated) public final class ParentType: Sendable, Hashable {
    /// The schema name of the object, interface or union.
    public let name: String
    /// The object types that satisfy it (itself, for an object type).
    public let possibleTypes: Set<String>
    /// The fields that identify an object of this type in the cache (from `@typePolicy(keyFields:)`
    /// or `id`), empty when it has none.
    public let keyFields: [String]
    /// For an interface or union: the key fields of the possible types whose own differ from
    /// ``keyFields`` (a `User` under an `Actor` without `id` is still keyed by its `id`).
    public let keyFieldsByType: [String: [String]]

    private init(name: String, possibleTypes: Set<String>, keyFields: [String], keyFieldsByType: [String: [String]]) {
        self.name = name
        self.possibleTypes = possibleTypes
        self.keyFields = keyFields
        self.keyFieldsByType = keyFieldsByType
    }

    /// Equal when they describe the same type the same way.
    public static func == (lhs: ParentType, rhs: ParentType) -> Bool {
        lhs === rhs
            || (lhs.name == rhs.name && lhs.possibleTypes == rhs.possibleTypes && lhs.keyFields == rhs.keyFields
                && lhs.keyFieldsByType == rhs.keyFieldsByType)
    }

    /// Hashes the name and possible types (equal types have equal ones).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(possibleTypes)
    }

    /// An object type.
    public static func object(_ name: String, keyFields: [String] = []) -> ParentType {
        ParentType(name: name, possibleTypes: [name], keyFields: keyFields, keyFieldsByType: [:])
    }

    /// An interface or union with the object types that implement or belong to it, and the key
    /// fields of those whose own differ from the abstract type's.
    public static func abstract(
        _ name: String, possibleTypes: Set<String>, keyFields: [String] = [], keyFieldsByType: [String: [String]] = [:]
    ) -> ParentType {
        ParentType(name: name, possibleTypes: possibleTypes, keyFields: keyFields, keyFieldsByType: keyFieldsByType)
    }

    /// The key fields of an object of this runtime type: its own type's, not the declared one's.
    @inlinable public func keyFields(forTypename typename: String) -> [String] {
        keyFieldsByType.isEmpty ? keyFields : keyFieldsByType[typename] ?? keyFields
    }

    /// Whether an object whose `__typename` is `typename` satisfies this type.
    public func matches(typename: String) -> Bool { possibleTypes.contains(typename) }

    /// Whether selections under this type condition apply to an object selected as `parent`: always
    /// on the parent's own type, else when the object's `__typename` is one of the possible types.
    /// A `__typename` the schema did not have when the code was generated (a type the server added
    /// since) satisfies no narrower condition, even one whose possible types were all of the
    /// parent's then. Only an object without `__typename` falls back on comparing possible types.
    @usableFromInline package func applies(toTypename typename: String?, within parent: ParentType) -> Bool {
        if name == parent.name { return true }
        guard let typename else { return parent.possibleTypes.isSubset(of: possibleTypes) }
        return matches(typename: typename)
    }
}

/// The shape of a field's value, as the schema declares it.
@_spi(Generated) public indirect enum OutputType: Sendable {
    /// A leaf: a scalar, an enum or a custom scalar.
    case scalar(any GraphQLOutputValue.Type)
    /// An object with its own selection set.
    case object(any SelectionSet.Type)
    /// A value that cannot be null.
    case nonNull(OutputType)
    /// A list.
    case list(OutputType)
}

/// An argument value written in an operation: a literal, a variable, or a list or object of them.
@_spi(Generated) public indirect enum ArgumentValue: Sendable, Hashable {
    /// A literal value.
    case value(JSONValue)
    /// `$name`.
    case variable(String)
    /// A list literal.
    case list([ArgumentValue])
    /// An object literal.
    case object([String: ArgumentValue])

    /// The value with variables replaced by their values, as GraphQL coerces arguments
    /// (CoerceArgumentValues): `nil` when it is a variable with no value, so that the argument
    /// counts as not given (an explicit `null` stays `null`); in an object, a field whose variable
    /// has no value is left out; in a list, such an item is `null`. `variables` are the
    /// operation's coerced ones (`coercedVariables`), defaults applied.
    public func resolved(with variables: JSONObject) -> JSONValue? {
        switch self {
        case .value(let value): return value
        case .variable(let name): return variables[name]
        case .list(let list): return .array(list.map { $0.resolved(with: variables) ?? .null })
        case .object(let object): return .object(object.compactMapValues { $0.resolved(with: variables) })
        }
    }
}

/// A field in a selection set.
@_spi(Generated) public final class Field: Sendable {
    /// The schema name.
    public let name: String
    /// The alias, when the operation gives one.
    public let alias: String?
    /// The type of its value.
    public let type: OutputType
    /// Its arguments, by name.
    public let arguments: [String: ArgumentValue]
    /// For a connection field (`@typePolicy(connectionFields:)`), the arguments that choose a page:
    /// the cache keys the field without them and merges its pages into one list. `nil` for any
    /// other field.
    public let pagination: Set<String>?
    /// For a field with `@fieldPolicy(forField:keyArgs:)`, the arguments whose values are the key
    /// fields of the object it returns: when the cache has not stored the field, a read finds the
    /// object's record by them (`book(id: "1")` reads `Book:1`; a list argument gives a list).
    public let keyArgs: [String]?
    /// What `@catch(to:)` makes of an error at the field or below it; `nil` when the error goes on
    /// up (`THROW`, the default): to a catching field above, else to the caller.
    public let catchTo: CatchTo?
    /// How long the cache may keep the field's value, from the schema's `@cacheControl(maxAge:)`
    /// on the field or on the type it returns; the objects below it keep it too unless a shorter
    /// age says otherwise. `nil`: the schema says nothing.
    public let cacheMaxAge: Duration?

    /// Where a caught error goes.
    public enum CatchTo: Sendable, Hashable {
        /// The field is `null` (its accessor optional).
        case null
        /// The field holds the error (its accessor a `Result<Value, GraphQLError>`).
        case result
    }

    /// The key under which the response holds the field: the alias, else the name.
    @inlinable public var responseKey: String { alias ?? name }

    /// Describes a field; `pagination` names the page arguments of a connection field, `keyArgs`
    /// the arguments of a field policy, `catchTo` what `@catch` makes of an error, `cacheMaxAge`
    /// what `@cacheControl(maxAge:)` allows the cache.
    public init(
        _ name: String, alias: String? = nil, _ type: OutputType, arguments: [String: ArgumentValue] = [:], pagination: Set<String>? = nil,
        keyArgs: [String]? = nil, catchTo: CatchTo? = nil, cacheMaxAge: Duration? = nil
    ) {
        self.catchTo = catchTo
        self.cacheMaxAge = cacheMaxAge
        self.name = name
        self.alias = alias
        self.type = type
        self.arguments = arguments
        self.pagination = pagination
        self.keyArgs = keyArgs
    }
}

/// An `@include(if: $var)` or `@skip(if: $var)` condition on a variable.
@_spi(Generated) public struct SelectionCondition: Sendable, Hashable {
    /// The Boolean variable.
    public let variable: String
    /// `true` for `@skip`, `false` for `@include`.
    public let inverted: Bool

    /// `@include(if: $variable)`.
    public static func include(if variable: String) -> SelectionCondition {
        SelectionCondition(variable: variable, inverted: false)
    }

    /// `@skip(if: $variable)`.
    public static func skip(if variable: String) -> SelectionCondition {
        SelectionCondition(variable: variable, inverted: true)
    }

    /// Whether the selection applies with these variables (a missing variable counts as false).
    @inlinable public func isSatisfied(by variables: JSONObject) -> Bool {
        let value = variables[variable]?.boolValue ?? false
        return inverted ? !value : value
    }
}

/// One entry of a selection set's metadata: a field, a fragment (named or inline), or entries
/// that apply only under conditions.
@_spi(Generated) public indirect enum Selection: Sendable {
    /// A field.
    case field(Field)
    /// An inline fragment (`... on Droid { ... }`) or a type case.
    case inlineFragment(any SelectionSet.Type)
    /// A named fragment spread (`...HeroDetails`).
    case fragment(any Fragment.Type)
    /// Selections that apply only when every condition holds (`@include`/`@skip`).
    case conditional([SelectionCondition], [Selection])
    /// A fragment the server may deliver later (`@defer`): until its data has arrived, its
    /// selections are pending, not missing.
    case deferred(Deferral, [Selection])
}

/// How a fragment is deferred: its identity in the generated data, its `label`, and the
/// variable of its `if:` argument.
@_spi(Generated) public struct Deferral: Sendable, Hashable {
    /// The name the generated accessor asks for: unique among the deferred fragments of one
    /// selection set.
    public let id: String
    /// The `label` argument, as sent.
    public let label: String?
    /// `if: $variable`: deferred only when it holds; `nil` when always deferred.
    public let condition: SelectionCondition?

    /// Describes a deferred fragment.
    public init(_ id: String, label: String? = nil, if condition: SelectionCondition? = nil) {
        self.id = id
        self.label = label
        self.condition = condition
    }

    /// Whether the server defers the fragment under these variables; when not, its data comes
    /// with the rest.
    @inlinable public func isActive(with variables: JSONObject) -> Bool { condition?.isSatisfied(by: variables) ?? true }

    /// The key under which validated data lists the deferred fragments whose data has not
    /// arrived yet, by ``id``.
    public static let pendingKey = "__pending"
}

/// A fragment delivered later (`@defer`): pending until its data arrives.
public enum Deferred<Fragment: SelectionSet>: Sendable, Hashable {
    /// The server has not delivered the fragment's data yet.
    case pending
    /// The fragment's data.
    case fulfilled(Fragment)

    /// The fragment's data, or `nil` while pending.
    public var value: Fragment? {
        if case .fulfilled(let fragment) = self { return fragment }
        return nil
    }
}

/// Generated data: a struct per selection set, with accessors that read its `DataDict`.
///
/// Its metadata and data (`__parentType`, `__selections`, `__data`) are for generated code and the
/// engine (`@_spi(Generated)`): a kit reads the generated accessors.
///
/// A selection set is not a ``GraphQLOutputValue`` itself (that conformance would be a witness
/// table and functions for the compiler to emit in every generated struct): `DataDict` reads and
/// writes object fields with subscripts of their own, or boxed as `_ObjectValue`.
public protocol SelectionSet: Sendable, Hashable {
    /// The type it is selected on.
    @_spi(Generated) static var __parentType: ParentType { get }
    /// What it selects.
    @_spi(Generated) static var __selections: [Selection] { get }
    /// Its data.
    @_spi(Generated) var __data: DataDict { get }
    /// Wraps validated data.
    @_spi(Generated) init(_dataDict: DataDict)
}

/// The data of a local cache mutation: a selection set whose fields can be set.
public protocol MutableSelectionSet: SelectionSet {
    /// Its data, which the generated setters change.
    @_spi(Generated) var __data: DataDict { get set }
}

extension SelectionSet {
    /// Wraps the JSON object of a validated response (an error when it is no object).
    public init(_fieldValue value: JSONValue) throws(GraphQLDecodingError) {
        guard case .object(let object) = value else {
            throw GraphQLDecodingError(message: "expected an object, found \(value.kindDescription)")
        }
        self.init(_dataDict: DataDict(_data: object))
    }

    /// The `__typename` of the object, when the response carries it.
    public var __typename: String? { __data.typename }

    // Equatable and Hashable as Swift would derive them for the one stored property, written once
    // here: a module of generated structs then compiles about 15 % faster, no struct having its
    // conformance derived (`hashValue` included) on its own.

    /// Equal when their data is.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.__data == rhs.__data }

    /// Hashes the data, as ``==(_:_:)`` compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(__data) }

    /// The hash of the data.
    public var hashValue: Int { __data.hashValue }

    /// The JSON object it wraps.
    public var _outputJSON: JSONValue { .object(jsonObject) }

    /// Its data as a JSON object (response keys to values), to build other data from it: an
    /// optimistic response from what the cache has, say, checked again by `init(validating:)`.
    public var jsonObject: JSONObject { __data._data }

    /// Converts to a type case or fragment of the same object when its type condition holds.
    @_spi(Generated) public func _asInlineFragment<T: SelectionSet>() -> T? {
        guard __data.hasTypename(of: T.__parentType) else { return nil }
        return T(_dataDict: __data)
    }

    /// Converts to a named fragment that applies unconditionally.
    @_spi(Generated) public func _toFragment<T: SelectionSet>() -> T { T(_dataDict: __data) }

    /// A deferred fragment of this selection set, by its ``Deferral/id``.
    @_spi(Generated) public func _deferred<T: SelectionSet>(_ id: String) -> Deferred<T> { __data._deferred(id) }

    /// A deferred fragment on a narrower type than this selection set's: `nil` when the object
    /// is of another type (or, under `@include`/`@skip`, when the condition left it out).
    @_spi(Generated) public func _deferredIfApplies<T: SelectionSet>(_ id: String) -> Deferred<T>? {
        guard let typename = __typename, T.__parentType.matches(typename: typename) else { return nil }
        return _deferredIfIncluded(id)
    }

    /// A deferred fragment under `@include`/`@skip`: `nil` when the condition left it out.
    @_spi(Generated) public func _deferredIfIncluded<T: SelectionSet>(_ id: String) -> Deferred<T>? {
        if case .pending = __data._deferred(id) as Deferred<T> { return .pending }
        return __data.validated(as: T.self).map { .fulfilled($0) }
    }
}

/// A named fragment: its definition text travels with every operation that spreads it.
public protocol Fragment: SelectionSet {
    /// `fragment Name on Type { ... }`.
    @_spi(Generated) static var fragmentDefinition: String { get }
}

extension SelectionSet {
    /// Validates `object` against this selection set and wraps it.
    ///
    /// Every selected field must be present with a value of its declared type, except those that
    /// `@include`/`@skip` leave out or type conditions that do not apply. The first mismatch is
    /// reported with its path from `object`. A field that only a condition left out under these
    /// `variables` is removed from the wrapped data, whatever the server sent for it, so that its
    /// accessor reads `nil` instead of a value nobody checked.
    public init(validating object: JSONObject, variables: JSONObject = [:]) throws(GraphQLDecodingError) {
        var object = object
        var validator = SelectionValidator(variables: variables)
        try validator.validate(&object, selections: Self.__selections, in: Self.__parentType)
        self.init(_dataDict: DataDict(_data: object))
    }
}
