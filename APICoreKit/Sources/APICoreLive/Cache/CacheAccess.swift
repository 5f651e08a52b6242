@_spi(Engine) @_spi(Generated) import APICore
import APICoreSupport
import Foundation

/// Reading and writing the cache directly (`client.cache`), and its maintenance: every change
/// through the writer, watchers of fragments through the pipeline's.
struct CacheAccess: GraphQLCache, CacheMaintenance {
    let pipeline: GraphQLPipeline
    /// Typed cache updates, one at a time.
    private let updates = AsyncLock()

    init(pipeline: GraphQLPipeline) {
        self.pipeline = pipeline
    }

    private var store: NormalizedStore? { pipeline.store }
    private var cacheWriter: CacheWriter { pipeline.writer }

    func readQuery<Query: GraphQLQuery>(_ query: Query) async throws(APIError) -> Query.Data? {
        guard let store else { return nil }
        let outcome = await store.read(Query.self, variables: query.coercedVariables, requestMaxAge: nil)
        return outcome.data.map { Query.Data(_dataDict: DataDict(_data: $0)) }
    }

    func readInMemory<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>) -> Response<Value>? {
        let start = ContinuousClock.now
        let selection = CacheSelection(Query.Data.self, at: CacheNaming.rootKey(for: .query), variables: request.operation.coercedVariables)
        guard let read = store?.readInMemory(selection, requestMaxAge: request.cacheMaxAge), let data = read.data else { return nil }
        return try? Self.cachedResponse(request, read: read, data: data, start: start).get()
    }

    func readInMemory<Fragment: APICore.Fragment>(_ fragment: Fragment.Type, key: String, variables: JSONObject) -> Fragment? {
        let selection = CacheSelection(Fragment.self, at: key, variables: variables)
        return store?.readInMemory(selection, requestMaxAge: nil)?.data.map { Fragment(_dataDict: DataDict(_data: $0)) }
    }

    func writeQuery<Query: GraphQLQuery>(_ query: Query, data: Query.Data) async throws(APIError) {
        guard store != nil else { throw .invalidRequest("this client has no cache to write to") }
        try pipeline.configuration.refuseIfCacheReadOnly("Writing \(Query.operationName) to the cache")
        await cacheWriter.write(try cacheWriter.check(
            local: data.__data._data, as: Query.Data.self, at: CacheNaming.rootKey(for: .query), named: Query.operationName,
            variables: query.coercedVariables))
    }

    func update<Mutation: LocalCacheMutation>(_ mutation: Mutation, _ body: @Sendable (inout Mutation.Data) -> Void) async throws(APIError)
        -> Mutation.Data
    {
        try await update(
            Mutation.Data.self, at: CacheNaming.rootKey(for: Mutation.operationType), named: Mutation.operationName,
            variables: mutation.coercedVariables, body)
    }

    func update<Fragment: APICore.Fragment & MutableSelectionSet>(
        fragment: Fragment.Type, key: String, variables: JSONObject, _ body: @Sendable (inout Fragment) -> Void
    ) async throws(APIError) -> Fragment {
        try await update(Fragment.self, at: key, named: "\(Fragment.self) at \(key)", variables: variables, body)
    }

    /// Reads `Data` from the record at `key`, lets `body` change it, checks the result against its
    /// selections and writes it back, if the data read is still what the cache holds: else
    /// (another write came in between) it reads and runs `body` again, a few times at most. Typed
    /// updates run one at a time, so only other writes (a server's answer) can come between.
    /// Watchers are told once. Optimistic layers are neither read nor written: they leave on
    /// their own.
    private func update<Data: MutableSelectionSet>(
        _: Data.Type, at key: String, named name: String, variables: JSONObject, _ body: @Sendable (inout Data) -> Void
    ) async throws(APIError) -> Data {
        guard let store else { throw .invalidRequest("this client has no cache") }
        try pipeline.configuration.refuseIfCacheReadOnly("Updating \(name) in the cache")
        let reading = CacheSelection(Data.self, at: key, variables: variables)
        return try await updates.run { () async throws(APIError) -> Data in
            for _ in 0..<8 {
                guard let object = await store.read(reading, layered: false).data else { throw .cacheMiss(name) }
                var data = Data(_dataDict: DataDict(_data: object))
                body(&data)
                let checked = try cacheWriter.check(local: data.__data._data, as: Data.self, at: key, named: name, variables: variables)
                if await cacheWriter.write(checked, ifStill: object, at: reading) { return data }
            }
            throw .invalidRequest("the cached data of \(name) changed under every one of 8 attempts to update it")
        }
    }

    func updateRecord(_ key: String, _ update: @escaping @Sendable (inout JSONObject) -> Void) async throws(APIError) {
        guard store != nil else { throw .invalidRequest("this client has no cache") }
        try pipeline.configuration.refuseIfCacheReadOnly("Updating the record \(key)")
        await cacheWriter.update(key, update)
    }

    func removeRecord(_ key: String) async throws(APIError) {
        guard store != nil else { throw .invalidRequest("this client has no cache") }
        try pipeline.configuration.refuseIfCacheReadOnly("Removing the record \(key)")
        await cacheWriter.remove(key)
    }

    func clear() async throws(APIError) {
        try pipeline.configuration.refuseIfCacheReadOnly("Clearing the cache")
        await cacheWriter.removeAll()
    }

    func watch<Fragment: APICore.Fragment>(_ fragment: Fragment.Type, key: String, variables: JSONObject) -> APIStream<Result<Fragment, APIError>> {
        pipeline.watch(fragment, key: key, variables: variables)
    }

    /// Cached data, mapped, marked as the cache's. The cache reader checked every field it read
    /// against the same selections, so the data is not validated again.
    static func cachedResponse<Operation: GraphQLOperation, Value>(
        _ request: GraphQLRequest<Operation, Value>, read: CacheRead, data: JSONObject, start: ContinuousClock.Instant, offline: Bool = false
    ) -> Result<Response<Value>, APIError> {
        Result { () throws(APIError) -> Response<Value> in
            let value = try request.value(of: Operation.Data(_dataDict: DataDict(_data: data)))
            return Response(value: value, metadata: ResponseMetadata(
                source: .cache, statusCode: nil, headers: [:], duration: ContinuousClock.now - start,
                operationName: Operation.operationName, isStale: read.stale, isOfflineFallback: offline, isOptimistic: read.optimistic,
                cacheMisses: read.misses))
        }
    }

    // MARK: Maintenance

    func collectGarbage(maxStaleness: Duration) async throws(APIError) -> CacheCollection {
        guard store != nil else { throw .invalidRequest("this client has no cache") }
        try pipeline.configuration.refuseIfCacheReadOnly("Collecting the cache's garbage")
        let collection = await cacheWriter.collectGarbage(maxStaleness: maxStaleness)
        pipeline.configuration.logger.info("cache garbage collection: \(collection)")
        return collection
    }

    func summary() async throws(APIError) -> CacheSummary {
        guard let store else { throw .invalidRequest("this client has no cache") }
        return await store.summary()
    }

    func inspect(_ key: String) async throws(APIError) -> CacheRecordDetails? {
        guard let store else { throw .invalidRequest("this client has no cache") }
        return await store.inspect(key)
    }

    func keys(matching pattern: String, limit: Int) async throws(APIError) -> [String] {
        guard let store else { throw .invalidRequest("this client has no cache") }
        return await store.keys(matching: pattern, limit: limit)
    }

    func persisted() async {
        await store?.persisted()
    }
}
