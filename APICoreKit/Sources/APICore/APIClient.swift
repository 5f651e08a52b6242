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
    /// since, stay).
    func perform<Mutation: GraphQLMutation, Value>(_ request: GraphQLRequest<Mutation, Value>, optimisticResponse: Mutation.Data?)
        async throws(APIError) -> Response<Value>

    /// Performs a mutation that may wait for the network: sent now when the server can be reached
    /// and no queued mutation waits before it; else, or when sending fails for lack of
    /// connectivity, kept in the offline queue (in the SQLite cache's file when there is one, so
    /// it survives a restart) and sent, in order, when the network is back: on the next request
    /// that succeeds, on ``replayQueuedMutations()``, or on the platform's reachability signal.
    /// Its optimistic response stays over the cache until then. Every attempt carries the same
    /// `Idempotency-Key` header. A mutation that uploads files cannot be queued
    /// (``APIError/invalidRequest(_:)``).
    func performOrQueue<Mutation: GraphQLMutation, Value>(_ request: GraphQLRequest<Mutation, Value>, optimisticResponse: Mutation.Data?)
        async throws(APIError) -> MutationOutcome<Value>

    /// Tells the client how to write into the cache the answer to a queued mutation of this type
    /// that an earlier launch queued. ``performOrQueue(_:optimisticResponse:)`` registers its own
    /// type; call this at launch for every type the app queues. A queued mutation whose type is
    /// not registered is still sent, in its turn, but its answer is not written (its optimistic
    /// data is taken away, and the log says so).
    func registerQueueable<Mutation: GraphQLMutation>(_ type: Mutation.Type)

    /// The mutations in the offline queue, in order: waiting, being sent, or refused by the server.
    func queuedMutations() async throws(APIError) -> [QueuedMutation]

    /// Every change of state of a queued mutation, from now on: queued, sending, done, failed (with
    /// the server's error), cancelled. Stop iterating to stop observing.
    func queuedMutationUpdates() -> APIStream<QueuedMutation>

    /// Sends the queued mutations now, in order, and returns when the queue has no mutation left
    /// to send or the server still cannot be reached. A mutation the server refuses is reported
    /// (``QueuedMutation/State/failed(_:)``) and the next one is sent.
    func replayQueuedMutations() async

    /// Takes a mutation out of the queue, with its optimistic data: one that waits, or one the
    /// server refused. One being sent cannot be cancelled (``APIError/invalidRequest(_:)``).
    func cancelQueuedMutation(id: String) async throws(APIError)

    /// A query's data as the cache has it, or `nil` when a field is missing (expiry ignored).
    func readQuery<Query: GraphQLQuery>(_ query: Query) async throws(APIError) -> Query.Data?

    /// Writes a query's data into the cache, as if the server had answered it.
    func writeQuery<Query: GraphQLQuery>(_ query: Query, data: Query.Data) async throws(APIError)

    /// Reads a local cache mutation's data from the cache, lets `body` change it through its
    /// settable fields, and writes the result back as ``writeQuery(_:data:)`` would: watchers of
    /// the records it touches are told. Answers the data written. Throws ``APIError/cacheMiss(_:)``
    /// when the cache lacks a selected field.
    func updateCache<Mutation: LocalCacheMutation>(_ mutation: Mutation, _ body: (inout Mutation.Data) -> Void) async throws(APIError)
        -> Mutation.Data

    /// Reads a fragment marked `@apollo_client_ios_localCacheMutation` from the cached record with
    /// this key (`"Household:hh-1"`), lets `body` change it, and writes it back in one step, as
    /// ``updateCache(_:_:)`` does. Throws ``APIError/cacheMiss(_:)`` when the record lacks a
    /// selected field.
    func updateCache<Fragment: APICore.Fragment & MutableSelectionSet>(
        fragment: Fragment.Type, key: String, variables: JSONObject, _ body: (inout Fragment) -> Void
    ) async throws(APIError) -> Fragment

    /// Changes one cached record's fields (by storage key; references are `{"__ref": key}`).
    /// Watchers of the record are told.
    func updateRecord(_ key: String, _ update: @escaping @Sendable (inout JSONObject) -> Void) async throws(APIError)

    /// Removes one cached record.
    func removeRecord(_ key: String) async throws(APIError)

    /// Removes every cached record, in memory and on disk (for logging out). Queued mutations
    /// stay: cancel them (``cancelQueuedMutation(id:)``) to drop them too.
    func clearCache() async throws(APIError)

    /// Removes from the normalized cache, in memory and in its persistent store, what nothing needs
    /// any more: records older than their type's maximum age by more than `maxStaleness`, fields
    /// that refer to records that no longer exist, and records that no operation's root record
    /// reaches. Records that an active watcher reads are always kept. Answers what was removed.
    func collectGarbage(maxStaleness: Duration) async throws(APIError) -> CacheCollection

    /// How many records the normalized cache holds, of which types, the oldest, and its sizes in
    /// memory and on disk (a persistent store's records are all read to count them).
    func cacheSummary() async throws(APIError) -> CacheSummary
}

extension APIClient {
    /// Collects garbage allowing no staleness: every record past its type's maximum age goes.
    public func collectGarbage() async throws(APIError) -> CacheCollection {
        try await collectGarbage(maxStaleness: .zero)
    }

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

    /// ``updateCache(fragment:key:variables:_:)`` for a fragment without variables.
    public func updateCache<Fragment: APICore.Fragment & MutableSelectionSet>(
        fragment: Fragment.Type, key: String, _ body: (inout Fragment) -> Void
    ) async throws(APIError) -> Fragment {
        try await updateCache(fragment: fragment, key: key, variables: [:], body)
    }
}
