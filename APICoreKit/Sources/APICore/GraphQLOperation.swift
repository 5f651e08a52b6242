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
}

extension GraphQLOperation {
    /// No manifest identifier by default.
    public static var operationIdentifier: String? { nil }
    /// No variables by default.
    @_spi(Generated) public var __variables: InputDict { InputDict() }
    /// The variables as a JSON object.
    public var variablesJSON: JSONObject { __variables.jsonObject }
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
}

extension LocalCacheMutation {
    /// No variables by default.
    @_spi(Generated) public var __variables: InputDict { InputDict() }
    /// The variables as a JSON object.
    public var variablesJSON: JSONObject { __variables.jsonObject }
}

/// The data of a local cache mutation, on the root type.
public protocol MutableRootSelectionSet: RootSelectionSet, MutableSelectionSet {}
