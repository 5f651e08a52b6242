@_spi(Engine) @_spi(Generated) import APICore
import APICoreSupport
import Foundation

/// Watchers, the pipeline going on after its answer: of a query, the results of a cache policy, then the cache's data
/// again whenever a record it was read from changes; of a fragment, its record's data now and
/// after each change. When a change leaves a query's data incomplete, the query is fetched again
/// from the server (``CacheConfiguration/refetchesIncompleteWatches``): once per loss of the data,
/// so a server whose answer does not complete it is not asked again and again.
extension GraphQLPipeline {
    func watch<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy)
        -> APIStream<Result<Response<Value>, APIError>>
    {
        let refetch = Locked<Task<Void, Never>?>(nil)
        let variables = request.operation.coercedVariables
        return watchStore(
            CacheSelection(Query.Data.self, at: CacheNaming.rootKey(for: .query), variables: variables), label: "query \(Query.operationName)",
            first: { continuation in
                for await result in self.responses(request, cachePolicy: cachePolicy) { continuation.yield(result) }
            },
            changed: { read, previous, continuation in
                if let data = read.data {
                    continuation.yield(CacheAccess.cachedResponse(request, read: read, data: data, start: .now))
                } else if previous != nil, self.configuration.cache?.refetchesIncompleteWatches == true {
                    // Complete until this change: the server is asked once; its answer, written to
                    // the cache, reaches this watcher as any other write does.
                    refetch.withLock { running in
                        guard running == nil else { return }
                        running = Task { await self.refetch(request, variables: variables, into: continuation, clearing: refetch) }
                    }
                } else {
                    continuation.yield(.failure(.cacheMiss(Query.operationName)))
                }
            },
            onStop: { refetch.withLock { $0?.cancel() } })
    }

    func watch<Fragment: APICore.Fragment>(_ fragment: Fragment.Type, key: String, variables: JSONObject) -> APIStream<Result<Fragment, APIError>> {
        guard store != nil else {
            return APIStream { continuation in
                continuation.yield(.failure(.invalidRequest("this client has no cache to watch \(Fragment.self) in")))
                continuation.finish()
            }
        }
        let selection = CacheSelection(Fragment.self, at: key, variables: variables)
        let result: @Sendable (CacheRead) -> Result<Fragment, APIError> = { read in
            read.data.map { .success(Fragment(_dataDict: DataDict(_data: $0))) } ?? .failure(.cacheMiss("\(Fragment.self) at \(key)"))
        }
        return watchStore(
            selection, label: "fragment \(Fragment.self) at \(key)", yieldsFirstRead: true, first: { _ in },
            changed: { read, _, continuation in continuation.yield(result(read)) })
    }

    /// A watch of the store's data for `selection`: what `first` yields, then a read of the store
    /// registered as a watcher in the same step (so no write falls between the two), handed to
    /// `changed` with `yieldsFirstRead`, and again whenever a record read changes and the data or
    /// whether it is optimistic differs from the read before (given as `previous`). With a client
    /// without a cache, nothing comes after `first`. Stopping the stream removes the watcher and
    /// runs `onStop`. `label` says what is watched, for ``CacheMaintenance/inspect(_:)``.
    private func watchStore<Element: Sendable>(
        _ selection: CacheSelection, label: String, yieldsFirstRead: Bool = false,
        first: @escaping @Sendable (AsyncStream<Element>.Continuation) async -> Void,
        changed: @escaping @Sendable (_ read: CacheRead, _ previous: JSONObject?, AsyncStream<Element>.Continuation) -> Void,
        onStop: @escaping @Sendable () -> Void = {}
    ) -> APIStream<Element> {
        APIStream { continuation in
            let watcher = Locked<(id: UInt64?, cancelled: Bool)>((nil, false))
            let task = Task {
                await first(continuation)
                guard let store = self.store, !Task.isCancelled else { return }
                // What was last read: a change of data, or of whether it is optimistic, is handed on.
                let last = Locked<(data: JSONObject?, optimistic: Bool)>((nil, false))
                let refresh: NormalizedStore.Refresh = { store in
                    let read = store.read(selection)
                    let previous = last.withLock { value in
                        defer { value = (read.data, read.optimistic) }
                        return value
                    }
                    if read.data != previous.data || read.optimistic != previous.optimistic { changed(read, previous.data, continuation) }
                    return read.dependencies
                }
                let initial: @Sendable (CacheRead) -> Void = { read in
                    last.withLock { $0 = (read.data, read.optimistic) }
                    if yieldsFirstRead { changed(read, nil, continuation) }
                }
                let id = await store.addWatcher(of: selection, label: label, refresh: refresh, initial: initial)
                let cancelled = watcher.withLock { state -> Bool in
                    state.id = id
                    return state.cancelled
                }
                if cancelled { await store.removeWatcher(id) }
            }
            continuation.onTermination = { _ in
                task.cancel()
                onStop()
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
