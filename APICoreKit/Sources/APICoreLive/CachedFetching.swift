@_spi(Generated) import APICore
import CoreMetrics
import Foundation

/// Cache policies, watchers and cache access for `LiveAPIClient`.
extension LiveAPIClient {
    /// The data of a response, as the cache can store it.
    struct ServerResult<Value: Sendable>: Sendable {
        var response: Response<Value>
        var data: JSONObject
    }

    func fetch<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy) async throws(APIError)
        -> Response<Value>
    {
        switch cachePolicy {
        case .noCache:
            return try await executeOnServer(request).response
        case .networkOnly:
            return try await fetchAndStore(request)
        case .cacheOnly:
            if let cached = await readFromCache(request, allowExpired: true) { return try cached.get() }
            throw .cacheMiss(Query.operationName)
        case .cacheElseNetwork:
            if let cached = await readFromCache(request, allowExpired: false) { return try cached.get() }
            return try await fetchOrFallBack(request)
        case .cacheAndNetwork:
            if let cached = await readFromCache(request, allowExpired: true) {
                // Answer now; the server's answer still updates the cache (and its watchers).
                Task { _ = try? await self.fetchAndStore(request) }
                return try cached.get()
            }
            return try await fetchOrFallBack(request)
        }
    }

    func responses<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy)
        -> APIStream<Result<Response<Value>, APIError>>
    {
        APIStream { continuation in
            let task = Task {
                if cachePolicy == .cacheAndNetwork {
                    if let cached = await self.readFromCache(request, allowExpired: true) { continuation.yield(cached) }
                    do throws(APIError) {
                        continuation.yield(.success(try await self.fetchAndStore(request)))
                    } catch {
                        continuation.yield(.failure(error))
                    }
                } else {
                    do throws(APIError) {
                        continuation.yield(.success(try await self.fetch(request, cachePolicy: cachePolicy)))
                    } catch {
                        continuation.yield(.failure(error))
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func watch<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy)
        -> APIStream<Result<Response<Value>, APIError>>
    {
        APIStream { continuation in
            let watcher = Locked<(id: UInt64?, cancelled: Bool)>((nil, false))
            let task = Task {
                for await result in self.responses(request, cachePolicy: cachePolicy) {
                    continuation.yield(result)
                }
                guard let store = self.store, !Task.isCancelled else { return }
                let last = Locked<JSONObject?>(nil)
                let rootKey = CacheNaming.rootKey(for: Query.operationType)
                let variables = request.operation.variablesJSON
                // Read once to learn what the data depends on (the root record, when nothing is there yet).
                let initial = await store.read(Query.self, variables: variables, requestMaxAge: nil)
                last.withLock { $0 = initial.data }
                let refresh: NormalizedStore.Refresh = { store in
                    let outcome = store.read(Query.self, variables: variables, requestMaxAge: nil)
                    let previous = last.withLock { value -> JSONObject? in
                        defer { value = outcome.data }
                        return value
                    }
                    guard outcome.data != previous else { return outcome.dependencies.union([rootKey]) }
                    if let data = outcome.data {
                        continuation.yield(Self.cachedResponse(request, data: data, stale: outcome.stale, start: .now))
                    } else {
                        continuation.yield(.failure(.cacheMiss(Query.operationName)))
                    }
                    return outcome.dependencies.union([rootKey])
                }
                let id = await store.addWatcher(dependencies: initial.dependencies.union([rootKey]), refresh: refresh)
                let cancelled = watcher.withLock { state -> Bool in
                    state.id = id
                    return state.cancelled
                }
                if cancelled { await store.removeWatcher(id) }
            }
            continuation.onTermination = { _ in
                task.cancel()
                let id = watcher.withLock { state -> UInt64? in
                    state.cancelled = true
                    return state.id
                }
                if let id, let store = self.store { Task { await store.removeWatcher(id) } }
            }
        }
    }

    // MARK: Steps

    /// The cached data for a request, mapped; `nil` on a miss, or on expired data unless allowed.
    func readFromCache<Operation: GraphQLOperation, Value>(_ request: GraphQLRequest<Operation, Value>, allowExpired: Bool) async
        -> Result<Response<Value>, APIError>?
    {
        guard let store else { return nil }
        let start = ContinuousClock.now
        let outcome = await store.read(Operation.self, variables: request.operation.variablesJSON, requestMaxAge: request.cacheMaxAge)
        let hit = outcome.data != nil && (allowExpired || !outcome.stale)
        Counter(label: hit ? "apicore_cache_hits_total" : "apicore_cache_misses_total", dimensions: [("operation", Operation.operationName)], factory: metrics)
            .increment()
        guard let data = outcome.data, hit else { return nil }
        return Self.cachedResponse(request, data: data, stale: outcome.stale, start: start)
    }

    static func cachedResponse<Operation: GraphQLOperation, Value>(
        _ request: GraphQLRequest<Operation, Value>, data: JSONObject, stale: Bool, start: ContinuousClock.Instant, offline: Bool = false
    ) -> Result<Response<Value>, APIError> {
        Result { () throws(APIError) -> Response<Value> in
            let value = try request.value(from: data, statusCode: nil, body: Data())
            return Response(value: value, metadata: ResponseMetadata(
                source: .cache, statusCode: nil, headers: [:], duration: ContinuousClock.now - start,
                operationName: Operation.operationName, isStale: stale, isOfflineFallback: offline))
        }
    }

    /// Asks the server, writes the answer to the cache, answers it.
    /// With errors, the fields that came with a value are written all the same (unless the
    /// configuration says not to), and the error is thrown.
    func fetchAndStore<Operation: GraphQLOperation, Value>(_ request: GraphQLRequest<Operation, Value>) async throws(APIError) -> Response<Value> {
        let result: ServerResult<Value>
        do {
            result = try await executeOnServer(request)
        } catch {
            if case .graphQL(let failure) = error, let partial = failure.partialData, configuration.cache?.writesPartialData == true {
                await storePartial(partial, errors: failure.errors, for: request.operation)
            }
            throw error
        }
        await store(result.data, for: request.operation)
        return result.response
    }

    /// Writes the partial data of a response with errors, when it has the shape the operation
    /// selects (a spec-compliant server nulls the nearest nullable parent of a failed field); the
    /// fields the errors name are left as they were.
    private func storePartial<Operation: GraphQLOperation>(_ data: JSONObject, errors: [GraphQLError], for operation: Operation) async {
        let variables = operation.variablesJSON
        do {
            _ = try Operation.Data(validating: data, variables: variables)
        } catch {
            configuration.logger.debug("\(Operation.operationName): partial data not cached, it does not fit the selection: \(error)")
            return
        }
        await store(data, as: Operation.Data.self, root: Operation.operationType, variables: variables, errors: errors)
    }

    /// `fetchAndStore`, but when the server cannot be reached, the cached data (expired or not),
    /// marked as an offline fallback.
    func fetchOrFallBack<Operation: GraphQLOperation, Value>(_ request: GraphQLRequest<Operation, Value>) async throws(APIError)
        -> Response<Value>
    {
        do {
            return try await fetchAndStore(request)
        } catch {
            guard case .transport(let failure) = error, failure.isConnectivity, let store else { throw error }
            let start = ContinuousClock.now
            let outcome = await store.read(Operation.self, variables: request.operation.variablesJSON, requestMaxAge: request.cacheMaxAge)
            guard let data = outcome.data else { throw error }
            return try Self.cachedResponse(request, data: data, stale: outcome.stale, start: start, offline: true).get()
        }
    }

    /// Normalizes validated data into the cache under the operation's root record.
    func store<Operation: GraphQLOperation>(_ data: JSONObject, for operation: Operation) async {
        await store(data, as: Operation.Data.self, root: Operation.operationType, variables: operation.variablesJSON)
    }

    private func store<Data: RootSelectionSet>(
        _ data: JSONObject, as: Data.Type, root: GraphQLOperationType, variables: JSONObject, errors: [GraphQLError] = []
    ) async {
        guard let store, let cache = configuration.cache else { return }
        var normalizer = Normalizer(variables: variables, keyFunctions: cache.keys, errors: errors)
        normalizer.normalize(data, selections: Data.__selections, parent: Data.__parentType, key: CacheNaming.rootKey(for: root))
        await store.merge(normalizer.records)
    }

    // MARK: Cache access

    func readQuery<Query: GraphQLQuery>(_ query: Query) async throws(APIError) -> Query.Data? {
        guard let store else { return nil }
        let outcome = await store.read(Query.self, variables: query.variablesJSON, requestMaxAge: nil)
        return outcome.data.map { Query.Data(_dataDict: DataDict(_data: $0)) }
    }

    func writeQuery<Query: GraphQLQuery>(_ query: Query, data: Query.Data) async throws(APIError) {
        try await write(data, root: Query.operationType, name: Query.operationName, variables: query.variablesJSON)
    }

    func updateCache<Mutation: LocalCacheMutation>(_ mutation: Mutation, _ body: (inout Mutation.Data) -> Void) async throws(APIError)
        -> Mutation.Data
    {
        guard let store else { throw .invalidRequest("this client has no cache") }
        let root = CacheNaming.rootKey(for: Mutation.operationType)
        let read = await store.read(
            key: root, selections: Mutation.Data.__selections, parent: Mutation.Data.__parentType, variables: mutation.variablesJSON,
            requestMaxAge: nil)
        guard let object = read.data else { throw .cacheMiss(Mutation.operationName) }
        var data = Mutation.Data(_dataDict: DataDict(_data: object))
        body(&data)
        try await write(data, root: Mutation.operationType, name: Mutation.operationName, variables: mutation.variablesJSON)
        return data
    }

    /// Checks data built or changed on the client against its selections, then normalizes it
    /// into the cache under its operation's root record.
    private func write<Data: RootSelectionSet>(
        _ data: Data, root: GraphQLOperationType, name: String, variables: JSONObject
    ) async throws(APIError) {
        guard store != nil else { throw .invalidRequest("this client has no cache to write to") }
        do throws(GraphQLDecodingError) {
            _ = try Data(validating: data.__data._data, variables: variables)
        } catch {
            throw .invalidRequest("the data written for \(name) does not match its selections: \(error)")
        }
        await store(data.__data._data, as: Data.self, root: root, variables: variables)
    }

    func updateRecord(_ key: String, _ update: @escaping @Sendable (inout JSONObject) -> Void) async throws(APIError) {
        guard let store else { throw .invalidRequest("this client has no cache") }
        await store.update(key, update)
    }

    func removeRecord(_ key: String) async throws(APIError) {
        guard let store else { throw .invalidRequest("this client has no cache") }
        await store.remove(key)
    }

    func clearCache() async throws(APIError) {
        await store?.removeAll()
    }
}
