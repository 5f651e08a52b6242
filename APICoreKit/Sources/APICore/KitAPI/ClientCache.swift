import Foundation

/// The normalized cache behind a client, read and edited directly: `client.cache`. What a feature
/// fetches, watches and performs goes through ``APIClient``; this is for the code that shapes the
/// cache itself (an optimistic list edit, a record removed after a delete, logging out).
///
/// Every method throws ``APIError`` only. A client without a cache answers
/// ``APIError/invalidRequest(_:)`` to the methods that need one (``readQuery(_:)`` answers `nil`);
/// one whose cache is read-only (an extension's, `SQLiteCache.readOnlyStorage(at:)`) answers it to
/// every method that writes.
public protocol GraphQLCache: Sendable {
    /// A query's data as the cache has it, or `nil` when a field is missing (expiry ignored).
    func readQuery<Query: GraphQLQuery>(_ query: Query) async throws(APIError) -> Query.Data?

    /// A request's data as the memory cache holds it, read at once without waiting for the store:
    /// for a view's first frame. `nil` when memory lacks any of it (the persistent store may still
    /// have it: ``APIClient/fetch(_:cachePolicy:)`` finds it) or its mapping throws. Optimistic
    /// layers are read; the metadata says whether the data is stale or optimistic.
    func readInMemory<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>) -> Response<Value>?

    /// A fragment's data at the record with this key (`"Household:hh-1"`), as the memory cache
    /// holds it, read at once without waiting for the store; `nil` when memory lacks any of it.
    func readInMemory<Fragment: APICore.Fragment>(_ fragment: Fragment.Type, key: String, variables: JSONObject) -> Fragment?

    /// A fragment's data at the record with this key: as the cache has it now, then again each time
    /// a record it reads changes (whoever changed it). When the cache lacks a selected field, the
    /// element is ``APIError/cacheMiss(_:)``, and the watch goes on. Ends when the consumer stops.
    func watch<Fragment: APICore.Fragment>(_ fragment: Fragment.Type, key: String, variables: JSONObject)
        -> APIStream<Result<Fragment, APIError>>

    /// Writes a query's data into the cache, as if the server had answered it.
    func writeQuery<Query: GraphQLQuery>(_ query: Query, data: Query.Data) async throws(APIError)

    /// Reads a local cache mutation's data from the cache, lets `body` change it through its
    /// settable fields, and writes the result back as ``writeQuery(_:data:)`` would: watchers of
    /// the records it touches are told. Answers the data written. Throws ``APIError/cacheMiss(_:)``
    /// when the cache lacks a selected field. (`body` is `@Sendable` so that `@MainActor` code,
    /// a view's, can pass one.)
    func update<Mutation: LocalCacheMutation>(_ mutation: Mutation, _ body: @Sendable (inout Mutation.Data) -> Void) async throws(APIError)
        -> Mutation.Data

    /// Reads a fragment marked `@apollo_client_ios_localCacheMutation` from the cached record with
    /// this key (`"Household:hh-1"`), lets `body` change it, and writes it back in one step, as
    /// ``update(_:_:)`` does. Throws ``APIError/cacheMiss(_:)`` when the record lacks a selected
    /// field.
    func update<Fragment: APICore.Fragment & MutableSelectionSet>(
        fragment: Fragment.Type, key: String, variables: JSONObject, _ body: @Sendable (inout Fragment) -> Void
    ) async throws(APIError) -> Fragment

    /// Changes one cached record's fields (by storage key; references are `{"__ref": key}`).
    /// Watchers of the record are told.
    func updateRecord(_ key: String, _ update: @escaping @Sendable (inout JSONObject) -> Void) async throws(APIError)

    /// Removes one cached record.
    func removeRecord(_ key: String) async throws(APIError)

    /// Removes every cached record, in memory and on disk (for logging out). Queued mutations
    /// stay: cancel them (``OfflineMutationQueue/cancel(id:)``) to drop them too.
    func clear() async throws(APIError)
}

extension GraphQLCache {
    /// ``readInMemory(_:key:variables:)`` for a fragment without variables.
    public func readInMemory<Fragment: APICore.Fragment>(_ fragment: Fragment.Type, key: String) -> Fragment? {
        readInMemory(fragment, key: key, variables: [:])
    }

    /// ``watch(_:key:variables:)`` for a fragment without variables.
    public func watch<Fragment: APICore.Fragment>(_ fragment: Fragment.Type, key: String) -> APIStream<Result<Fragment, APIError>> {
        watch(fragment, key: key, variables: [:])
    }

    /// ``update(fragment:key:variables:_:)`` for a fragment without variables.
    public func update<Fragment: APICore.Fragment & MutableSelectionSet>(
        fragment: Fragment.Type, key: String, _ body: @Sendable (inout Fragment) -> Void
    ) async throws(APIError) -> Fragment {
        try await update(fragment: fragment, key: key, variables: [:], body)
    }
}

/// The mutations that wait for the network (``APIClient/performOrQueue(_:optimisticResponse:)``):
/// `client.offlineQueue`.
public protocol OfflineMutationQueue: Sendable {
    /// Tells the client how to write into the cache the answer to a queued mutation of this type
    /// that an earlier launch queued. ``APIClient/performOrQueue(_:optimisticResponse:)`` registers
    /// its own type; call this at launch for every type the app queues. A queued mutation whose
    /// type is not registered is still sent, in its turn, but its answer is not written (its
    /// optimistic data is taken away, and the log says so).
    func register<Mutation: GraphQLMutation>(_ type: Mutation.Type)

    /// The mutations in the queue, in order: waiting, being sent, or refused by the server.
    func mutations() async throws(APIError) -> [QueuedMutation]

    /// Every change of state of a queued mutation, from now on: queued, sending, done, failed (with
    /// the server's error), cancelled. Stop iterating to stop observing.
    func updates() -> APIStream<QueuedMutation>

    /// Sends the queued mutations now, in order, and returns when the queue has no mutation left
    /// to send or the server still cannot be reached. A mutation the server refuses is reported
    /// (``QueuedMutation/State/failed(_:)``) and the next one is sent.
    func replay() async

    /// Takes a mutation out of the queue, with its optimistic data: one that waits, or one the
    /// server refused. One being sent cannot be cancelled (``APIError/invalidRequest(_:)``).
    func cancel(id: String) async throws(APIError)
}
