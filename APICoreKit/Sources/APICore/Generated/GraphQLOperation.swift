/// A GraphQL operation as generated from a `.graphql` file: its document, its name, its typed
/// variables and its typed `Data`.
public protocol GraphQLOperation: Sendable {
    /// The selection set of the response's `data`.
    associatedtype Data: RootSelectionSet

    /// Query, mutation or subscription.
    static var operationType: GraphQLOperationType { get }
    /// The operation's name, as written after `query`/`mutation`/`subscription`.
    static var operationName: String { get }
    /// The full document sent to the server: the operation and every fragment it uses.
    static var document: String { get }
    /// An identifier from a persisted-operation manifest, when the generator wrote one.
    static var operationIdentifier: String? { get }

    /// The variables, by name; absent ones are left out.
    @_spi(Generated) var __variables: InputDict { get }
    /// The default values the document gives its variables (`$episode: Episode = JEDI`), by name.
    @_spi(Generated) static var __variableDefaults: JSONObject { get }
}

extension GraphQLOperation {
    /// No manifest identifier by default.
    public static var operationIdentifier: String? { nil }
    /// No variables by default.
    @_spi(Generated) public var __variables: InputDict { InputDict() }
    /// No variable defaults by default.
    @_spi(Generated) public static var __variableDefaults: JSONObject { [:] }
    /// The variables as a JSON object, as they are sent: the ones left out are absent.
    public var variablesJSON: JSONObject { __variables.jsonObject }
    /// The variables as the server coerces them (CoerceVariableValues): those given, and the
    /// default of each one left out that has a default in the document. Cache keys, `@include`
    /// and `@skip` and cache reads use these, so that they mean what the server's answer means.
    @_spi(Engine) public var coercedVariables: JSONObject { InputDict.coerced(variablesJSON, defaults: Self.__variableDefaults) }
}

/// A query: a read that may be cached and retried.
public protocol GraphQLQuery: GraphQLOperation {}
/// A mutation: a write, never retried unless the request opts in.
public protocol GraphQLMutation: GraphQLOperation {}
/// A subscription: a stream of events.
public protocol GraphQLSubscription: GraphQLOperation {}

extension GraphQLQuery {
    /// `.query`.
    public static var operationType: GraphQLOperationType { .query }
}

extension GraphQLMutation {
    /// `.mutation`.
    public static var operationType: GraphQLOperationType { .mutation }
}

extension GraphQLSubscription {
    /// `.subscription`.
    public static var operationType: GraphQLOperationType { .subscription }
}

/// The selection set of an operation's `data`, on the root type.
public protocol RootSelectionSet: SelectionSet {}

/// An operation marked `@apollo_client_ios_localCacheMutation`: a typed read and write of data
/// already in the cache, never sent to a server. It is not a ``GraphQLOperation``, so `fetch`,
/// `perform` and `subscribe` do not accept it; ``GraphQLCache/update(_:_:)`` (`client.cache`) does.
public protocol LocalCacheMutation: Sendable {
    /// The cached data it reads and writes, with settable fields.
    associatedtype Data: MutableRootSelectionSet

    /// Query, mutation or subscription: which root record the data hangs from.
    static var operationType: GraphQLOperationType { get }
    /// The operation's name, as written in its `.graphql` file.
    static var operationName: String { get }

    /// The variables, by name; absent ones are left out.
    @_spi(Generated) var __variables: InputDict { get }
    /// The default values the document gives its variables, by name.
    @_spi(Generated) static var __variableDefaults: JSONObject { get }
}

extension LocalCacheMutation {
    /// No variables by default.
    @_spi(Generated) public var __variables: InputDict { InputDict() }
    /// No variable defaults by default.
    @_spi(Generated) public static var __variableDefaults: JSONObject { [:] }
    /// The variables as a JSON object: the ones left out are absent.
    public var variablesJSON: JSONObject { __variables.jsonObject }
    /// The variables with the document's default for each one left out, as a query with the same
    /// variables would key its fields (`coercedVariables`).
    @_spi(Engine) public var coercedVariables: JSONObject { InputDict.coerced(variablesJSON, defaults: Self.__variableDefaults) }
}

extension InputDict {
    /// `given`, with each default whose variable `given` lacks.
    static func coerced(_ given: JSONObject, defaults: JSONObject) -> JSONObject {
        defaults.isEmpty ? given : given.merging(defaults) { given, _ in given }
    }
}

/// The data of a local cache mutation, on the root type.
public protocol MutableRootSelectionSet: RootSelectionSet, MutableSelectionSet {}
