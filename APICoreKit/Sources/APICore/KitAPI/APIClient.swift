import Foundation

// `URLRequest` is part of the middleware API; on Linux it lives in FoundationNetworking, which
// every user of `APICore` then sees without importing it.
#if canImport(FoundationNetworking)
    @_exported import FoundationNetworking
#endif

/// The one client a kit talks to, for REST and GraphQL alike. A kit sees only this protocol: which
/// engine is behind it (ours, a mock, or an Apollo-backed one) is the app's choice.
///
/// Every method throws ``APIError`` only; cancelling the calling task cancels the request and
/// throws ``APIError/cancelled``.
public protocol APIClient: Sendable {
    /// Sends a REST request through the middleware chain and decodes its answer.
    func send<Value>(_ request: RESTRequest<Value>) async throws(APIError) -> Response<Value>

    /// Fetches a query under a cache policy and maps its data. With `.cacheAndNetwork` it answers
    /// the cached data when there is some and lets the server's answer update the cache (use
    /// ``responses(_:cachePolicy:)`` to receive both).
    func fetch<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy) async throws(APIError)
        -> Response<Value>

    /// Every result a cache policy gives for a query: one, or for `.cacheAndNetwork` up to two
    /// (the cache's, then the server's). The stream then ends.
    func responses<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy)
        -> APIStream<Result<Response<Value>, APIError>>

    /// Fetches a query, then yields again whenever a cached record its data depends on changes,
    /// whoever changed it. Errors are elements; the watch goes on until the consumer stops.
    func watch<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy)
        -> APIStream<Result<Response<Value>, APIError>>

    /// Subscribes to a subscription: each event's data is written to the cache (so watchers of the
    /// same records update) and mapped. Errors end the sequence; a dropped connection does not
    /// (see ``APISubscription/states``). Ending the iteration unsubscribes.
    func subscribe<Subscription: GraphQLSubscription, Value>(_ request: GraphQLRequest<Subscription, Value>) -> APISubscription<Value>

    /// Performs a mutation and maps its data. With an `optimisticResponse`, that data is written
    /// at once to a layer over the cache (watchers see it, with
    /// ``ResponseMetadata/isOptimistic``); the server's answer replaces the layer in one step, and
    /// a failure takes away that layer only (other mutations' layers, and what the server wrote
    /// since, stay). A client whose cache is read-only refuses it (``APIError/invalidRequest(_:)``).
    func perform<Mutation: GraphQLMutation, Value>(_ request: GraphQLRequest<Mutation, Value>, optimisticResponse: Mutation.Data?)
        async throws(APIError) -> Response<Value>

    /// Performs a mutation that may wait for the network: sent now when the server can be reached
    /// and no queued mutation waits before it; else, or when sending fails for lack of
    /// connectivity, kept in the offline queue (in the SQLite cache's file when there is one, so
    /// it survives a restart) and sent, in order, when the network is back: on the next request
    /// that succeeds, on ``OfflineMutationQueue/replay()``, or on the platform's reachability signal.
    /// Its optimistic response stays over the cache until then. Every attempt carries the same
    /// `Idempotency-Key` header. A mutation that uploads files cannot be queued, and a client
    /// whose cache is read-only sends none (``APIError/invalidRequest(_:)``).
    func performOrQueue<Mutation: GraphQLMutation, Value>(_ request: GraphQLRequest<Mutation, Value>, optimisticResponse: Mutation.Data?)
        async throws(APIError) -> MutationOutcome<Value>

    /// The normalized cache behind this client, to read and edit directly.
    var cache: any GraphQLCache { get }

    /// The mutations that wait for the network.
    var offlineQueue: any OfflineMutationQueue { get }
}

extension APIClient {
    /// Fetches a query with the default policy, `.cacheElseNetwork`.
    public func fetch<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>) async throws(APIError) -> Response<Value> {
        try await fetch(request, cachePolicy: .default)
    }

    /// Watches a query with the default policy, `.cacheElseNetwork`.
    public func watch<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>) -> APIStream<Result<Response<Value>, APIError>> {
        watch(request, cachePolicy: .default)
    }

    /// Fetches a query and returns its generated data.
    public func fetch<Query: GraphQLQuery>(_ query: Query, cachePolicy: CachePolicy = .default) async throws(APIError)
        -> Response<Query.Data>
    {
        try await fetch(GraphQLRequest(query), cachePolicy: cachePolicy)
    }

    /// Subscribes and yields each event's generated data.
    public func subscribe<Subscription: GraphQLSubscription>(_ subscription: Subscription) -> APISubscription<Subscription.Data> {
        subscribe(GraphQLRequest(subscription))
    }

    /// Performs a mutation and maps its data.
    public func perform<Mutation: GraphQLMutation, Value>(_ request: GraphQLRequest<Mutation, Value>) async throws(APIError)
        -> Response<Value>
    {
        try await perform(request, optimisticResponse: nil)
    }

    /// ``performOrQueue(_:optimisticResponse:)`` for a mutation's generated data.
    public func performOrQueue<Mutation: GraphQLMutation>(_ mutation: Mutation, optimisticResponse: Mutation.Data? = nil) async throws(APIError)
        -> MutationOutcome<Mutation.Data>
    {
        try await performOrQueue(GraphQLRequest(mutation), optimisticResponse: optimisticResponse)
    }

    /// Performs a mutation and returns its generated data.
    public func perform<Mutation: GraphQLMutation>(_ mutation: Mutation, optimisticResponse: Mutation.Data? = nil) async throws(APIError)
        -> Response<Mutation.Data>
    {
        try await perform(GraphQLRequest(mutation), optimisticResponse: optimisticResponse)
    }
}
