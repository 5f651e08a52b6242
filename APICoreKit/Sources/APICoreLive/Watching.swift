@_spi(Generated) import APICore
import Foundation

/// Watchers for `LiveAPIClient`: the results of a cache policy, then the cache's data again
/// whenever a record it was read from changes.
extension LiveAPIClient {
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
}
