@_spi(Generated) import APICore
import Foundation

/// Watchers for `LiveAPIClient`: the results of a cache policy, then the cache's data again
/// whenever a record it was read from changes. When a change leaves the data incomplete, the query
/// is fetched again from the server (``CacheConfiguration/refetchesIncompleteWatches``): once per
/// loss of the data, so a server whose answer does not complete it is not asked again and again.
extension LiveAPIClient {
    func watch<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy)
        -> APIStream<Result<Response<Value>, APIError>>
    {
        APIStream { continuation in
            let watcher = Locked<(id: UInt64?, cancelled: Bool)>((nil, false))
            let refetch = Locked<Task<Void, Never>?>(nil)
            let task = Task {
                for await result in self.responses(request, cachePolicy: cachePolicy) {
                    continuation.yield(result)
                }
                guard let store = self.store, !Task.isCancelled else { return }
                // What was last yielded: a change of data, or of whether it is optimistic, yields again.
                let last = Locked<(data: JSONObject?, optimistic: Bool)>((nil, false))
                let variables = request.operation.variablesJSON
                let refresh: NormalizedStore.Refresh = { store in
                    let outcome = store.read(Query.self, variables: variables, requestMaxAge: nil)
                    let previous = last.withLock { value in
                        defer { value = (outcome.data, outcome.optimistic) }
                        return value
                    }
                    guard outcome.data != previous.data || outcome.optimistic != previous.optimistic else {
                        return outcome.dependencies
                    }
                    if let data = outcome.data {
                        continuation.yield(Self.cachedResponse(request, read: outcome, data: data, start: .now))
                    } else if previous.data != nil, self.configuration.cache?.refetchesIncompleteWatches == true {
                        // Complete until this change: the server is asked once; its answer, written
                        // to the cache, reaches this watcher as any other write does.
                        refetch.withLock { running in
                            guard running == nil else { return }
                            running = Task { await self.refetch(request, variables: variables, into: continuation, clearing: refetch) }
                        }
                    } else {
                        continuation.yield(.failure(.cacheMiss(Query.operationName)))
                    }
                    return outcome.dependencies
                }
                // Read once to learn what the data depends on (the root fields it reads, even those
                // not there yet), and register in the same step, so that no write falls between the two.
                let id = await store.transaction { @Sendable store in
                    let initial = store.read(Query.self, variables: variables, requestMaxAge: nil)
                    last.withLock { $0 = (initial.data, initial.optimistic) }
                    return store.addWatcher(dependencies: initial.dependencies, refresh: refresh)
                }
                let cancelled = watcher.withLock { state -> Bool in
                    state.id = id
                    return state.cancelled
                }
                if cancelled { await store.removeWatcher(id) }
            }
            continuation.onTermination = { _ in
                task.cancel()
                refetch.withLock { $0?.cancel() }
                let id = watcher.withLock { state -> UInt64? in
                    state.cancelled = true
                    return state.id
                }
                if let id, let store = self.store { Task { await store.removeWatcher(id) } }
            }
        }
    }

    /// Fetches a watched query again after a change left its cached data incomplete. A failure is
    /// yielded; an answer that still leaves the data incomplete yields the cache miss.
    private func refetch<Query: GraphQLQuery, Value>(
        _ request: GraphQLRequest<Query, Value>, variables: JSONObject,
        into continuation: AsyncStream<Result<Response<Value>, APIError>>.Continuation, clearing running: Locked<Task<Void, Never>?>
    ) async {
        defer { running.withLock { $0 = nil } }
        configuration.logger.debug("\(Query.operationName): a cache change left the watched data incomplete; fetching it again")
        do throws(APIError) {
            _ = try await fetchAndStore(request)
        } catch {
            if !Task.isCancelled { continuation.yield(.failure(error)) }
            return
        }
        if let store, await store.read(Query.self, variables: variables, requestMaxAge: nil).data == nil, !Task.isCancelled {
            continuation.yield(.failure(.cacheMiss(Query.operationName)))
        }
    }
}
