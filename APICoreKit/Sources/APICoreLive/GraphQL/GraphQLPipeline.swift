@_spi(Engine) @_spi(Tools) @_spi(Generated) import APICore
import APICoreSupport
import CoreMetrics
import Foundation
import Tracing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The GraphQL pipeline, top-down: the policy, the operation stage and the exchange below it, the
/// check and write, the caller's value. `LiveAPIClient` composes it with the parts beside it
/// (subscriptions, the offline queue, cache access); nothing below calls back up.
///
/// One `fetch(.networkOnly)` with a cache crosses these control-flow files, in this order: each
/// holds an async function or closure the call runs (`scripts/trace.sh --control` finds the same;
/// scripts/tests/control-flow-tests.sh compares). What they call synchronously (JSON, the tape,
/// values, records, the store behind the writer) are leaves a reader need not open.
///
///  1. APICore/KitAPI/APIClient.swift: `client.fetch(query)`, the kit's call, its policy given.
///  2. APICoreLive/LiveAPIClient.swift: the composer hands the call to the pipeline.
///  3. APICoreLive/GraphQL/GraphQLPipeline.swift (here): the policy (`plan`, the one place each
///     is spelled out; `watch` goes on after it, in Watching.swift), then `askAndStore`.
///  4. APICoreLive/Middlewares/Spans.swift: the operation's span; later, each attempt's and the
///     cache write's.
///  5. APICoreLive/GraphQL/OperationStage.swift: `answer(to:)`: the route (HTTP or the socket),
///     automatic persisted queries, incremental delivery asked for, and `read`: the exchanged body
///     as data, or an incremental answer's first part and the parts still to come.
///  6. APICoreLive/GraphQL/QueryDeduplication.swift: identical queries in flight share one answer.
///  7. APICoreLive/GraphQL/Exchange.swift: the one way to the server for every operation (queries,
///     mutations, queued mutations replayed, subscriptions over streamed HTTP); persisted-only
///     mode is decided there. Its innermost step classifies the answer, so that middleware sees
///     `APIError`s; the payload travels with the response.
///  8. APICoreLive/Middlewares/Middleware.swift: `MiddlewareChain`, one step after another.
///  9. APICoreLive/Offline/Reachability.swift: the outermost step: what the network answered.
/// 10. APICoreLive/Middlewares/Observability.swift: metrics; after the app's middlewares, retries
///     and authentication, logging.
/// 11. APICoreLive/Middlewares/RetryMiddleware.swift: retries, as the error's recovery allows.
/// 12. APICoreLive/HTTP/Redirects.swift: redirects, each hop checked.
/// 13. APICoreLive/HTTP/HTTPTransport.swift: the transport reads the whole answer within its
///     bound (over URLSession, HTTP/URLSessionTransport.swift and HTTP/Deadline.swift besides).
/// 14. APICoreLive/Cache/CacheWriter.swift: the data, checked against the operation's selections
///     once with its records built in the same walk (`SelectionValidator`), written by the one
///     writer, whose watchers are told; then here again, `respond`: the checked data mapped by the
///     request's `map`, with the exchange's metadata. An incremental answer's later parts are read
///     as values (`ServerResults`, IncrementalDelivery.swift), each merged, checked and written.
///
/// The cache's data is checked by the reader that rebuilds it from records (`CacheReader`); both
/// walks go through `SelectionVisitor.walk`.
final class GraphQLPipeline: Sendable {
    let configuration: APIClientConfiguration
    /// Where an operation goes on its way to the server.
    let stage: OperationStage
    /// The one way into the cache (data is checked by it without a cache too).
    let writer: CacheWriter
    let spans: Spans
    let metrics: any MetricsFactory
    /// Work that goes on after a call answered (the server half of `.cacheAndNetwork`), by id:
    /// cancelled when the pipeline goes away, its failures logged.
    private let background = Locked<(next: UInt64, tasks: [UInt64: Task<Void, Never>])>((0, [:]))

    init(configuration: APIClientConfiguration, stage: OperationStage, writer: CacheWriter, spans: Spans, metrics: any MetricsFactory) {
        self.configuration = configuration
        self.stage = stage
        self.writer = writer
        self.spans = spans
        self.metrics = metrics
    }

    deinit {
        for task in background.withLock({ $0.tasks.values }) { task.cancel() }
    }

    /// The normalized cache, when the configuration has one.
    var store: NormalizedStore? { writer.store }

    /// How many background refreshes run now.
    var backgroundTaskCount: Int { background.withLock { $0.tasks.count } }

    /// Runs `work` after the caller has its answer, tracked so that it is cancelled when the
    /// pipeline goes away; a failure is logged, since nobody waits for it.
    private func refreshInBackground(_ work: @escaping @Sendable () async throws(APIError) -> Void) {
        let logger = configuration.logger
        background.withLock { state in
            state.next += 1
            let id = state.next
            state.tasks[id] = Task { [background] in
                do throws(APIError) {
                    try await work()
                } catch {
                    logger.debug("background refresh failed: \(error)")
                }
                _ = background.withLock { $0.tasks.removeValue(forKey: id) }
            }
        }
    }

    // MARK: 1. Policy

    func fetch<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy) async throws(APIError)
        -> Response<Value>
    {
        try await spans.tracedOperation(Query.self, cachePolicy: cachePolicy) { () async throws(APIError) in
            switch try await plan(request, cachePolicy) {
            case .cached(let cached):
                return try cached.get()
            case .cachedThenServer(let cached):
                // Answer now; the server's answer still updates the cache (and its watchers).
                refreshInBackground { () async throws(APIError) in _ = try await self.fetchAndStore(request) }
                return try cached.get()
            case .server(let step):
                var results = try await serverResults(request, step)
                return try await results.last()
            }
        }
    }

    func responses<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy)
        -> APIStream<Result<Response<Value>, APIError>>
    {
        APIStream { continuation in
            let task = Task {
                // Once the server's results are yielded as they come, what ends them is not yielded again.
                var yieldedServerResults = false
                let outcome = await Result.of { () async throws(APIError) in
                    try await self.spans.tracedOperation(Query.self, cachePolicy: cachePolicy) { () async throws(APIError) in
                        var step = ServerStep()
                        switch try await self.plan(request, cachePolicy) {
                        case .cached(let cached): return try cached.get()
                        case .cachedThenServer(let cached): continuation.yield(cached)
                        case .server(let planned): step = planned
                        }
                        var results = try await self.serverResults(request, step)
                        yieldedServerResults = true
                        continuation.yield(.success(results.first))
                        while let next = await results.next() { continuation.yield(next) }
                        return try results.outcome()
                    }
                }
                if !yieldedServerResults { continuation.yield(outcome) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// What a cache policy does, written once for `fetch` and `responses`.
    enum Plan<Value: Sendable> {
        /// The cache answers; the server is not asked.
        case cached(Result<Response<Value>, APIError>)
        /// The cache answers first, then the server's answer updates the cache (`.cacheAndNetwork`).
        case cachedThenServer(Result<Response<Value>, APIError>)
        /// The server answers.
        case server(ServerStep)
    }

    /// How the server is asked.
    struct ServerStep {
        /// Whether the answer is written to the cache.
        var storing = true
        /// Whether the cached data answers, marked offline, when the server cannot be reached.
        var fallsBackOffline = false
    }

    private func plan<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, _ policy: CachePolicy) async throws(APIError)
        -> Plan<Value>
    {
        switch policy {
        case .noCache:
            return .server(ServerStep(storing: false))
        case .networkOnly:
            return .server(ServerStep())
        case .cacheOnly:
            guard let cached = await readFromCache(request, allowExpired: true, partial: request.allowsPartialCacheData) else {
                throw .cacheMiss(Query.operationName)
            }
            return .cached(cached)
        case .cacheElseNetwork:
            if let cached = await readFromCache(request, allowExpired: false) { return .cached(cached) }
            return .server(ServerStep(fallsBackOffline: true))
        case .cacheAndNetwork:
            if let cached = await readFromCache(request, allowExpired: true, partial: request.allowsPartialCacheData) { return .cachedThenServer(cached) }
            return .server(ServerStep(fallsBackOffline: true))
        }
    }

    func perform<Mutation: GraphQLMutation, Value>(_ request: GraphQLRequest<Mutation, Value>, optimisticResponse: Mutation.Data?)
        async throws(APIError) -> Response<Value>
    {
        try configuration.refuseIfCacheReadOnly("The mutation \(Mutation.operationName)")
        return try await spans.tracedOperation(Mutation.self, cachePolicy: nil) { () async throws(APIError) in
            try await send(request, over: try await layOptimistic(optimisticResponse, of: request)?.id)
        }
    }

    /// Lays a mutation's optimistic response over the cache, checked against its selections first;
    /// answers the layer and its records (none without a response or a cache).
    func layOptimistic<Mutation: GraphQLMutation, Value>(_ data: Mutation.Data?, of request: GraphQLRequest<Mutation, Value>)
        async throws(APIError) -> (id: UInt64, records: [String: JSONObject])?
    {
        guard let data, store != nil else { return nil }
        let checked = try writer.check(
            local: data.__data._data, as: Mutation.Data.self, at: CacheNaming.rootKey(for: .mutation),
            named: "the optimistic response of \(Mutation.operationName)", variables: request.operation.coercedVariables)
        guard let id = await writer.lay(checked) else { return nil }
        return (id, checked.records)
    }

    /// Sends a mutation over its optimistic layer: the answer replaces the layer in the same step
    /// of the store; a failure takes it away, unless `keepsLayer` says it stays (for the queue).
    func send<Mutation: GraphQLMutation, Value>(
        _ request: GraphQLRequest<Mutation, Value>, over layer: UInt64?, keepingLayerOn keepsLayer: (APIError) -> Bool = { _ in false }
    ) async throws(APIError) -> Response<Value> {
        guard let layer, store != nil else { return try await fetchAndStore(request) }
        do {
            let response = try await fetchAndStore(request, replacingLayer: layer)
            // Gone already when the answer was written; not when the server said not to store it.
            await writer.removeLayer(layer)
            return response
        } catch {
            if !keepsLayer(error) { await writer.removeLayer(layer) }
            throw error
        }
    }

    /// The server's results for a request, as `step` says: the answer written to the cache (unless
    /// not `storing`), and when the server cannot be reached and `step` falls back, the cached
    /// data (expired or not), marked as an offline fallback.
    func serverResults<Operation: GraphQLOperation, Value>(_ request: GraphQLRequest<Operation, Value>, _ step: ServerStep) async throws(APIError)
        -> ServerResults<Operation, Value>
    {
        do {
            return try await askAndStore(request, storing: step.storing)
        } catch {
            guard step.fallsBackOffline, error.isConnectivityFailure, let store else { throw error }
            let start = ContinuousClock.now
            let outcome = await store.read(Operation.self, variables: request.operation.coercedVariables, requestMaxAge: request.cacheMaxAge)
            guard let data = outcome.data else { throw error }
            return ServerResults(first: try CacheAccess.cachedResponse(request, read: outcome, data: data, start: start, offline: true).get())
        }
    }

    /// The server's last result for a request, written to the cache (see `askAndStore`).
    func fetchAndStore<Operation: GraphQLOperation, Value>(
        _ request: GraphQLRequest<Operation, Value>, replacingLayer layer: UInt64? = nil
    ) async throws(APIError) -> Response<Value> {
        var results = try await askAndStore(request, replacingLayer: layer)
        return try await results.last()
    }

    /// Asks the server, writes the answer to the cache (unless `storing` is off), answers its
    /// results. With errors, the fields that came with a value are written all the same (unless
    /// the configuration says not to), and the error is thrown. An answer delivered incrementally
    /// gives its first result here and the others as its parts arrive, each written to the cache
    /// as it is read. `replacingLayer` is an optimistic layer that the answer's first write takes away.
    private func askAndStore<Operation: GraphQLOperation, Value>(
        _ request: GraphQLRequest<Operation, Value>, storing: Bool = true, replacingLayer layer: UInt64? = nil
    ) async throws(APIError) -> ServerResults<Operation, Value> {
        let start = ContinuousClock.now
        let answer: OperationStage.ServerAnswer
        do {
            answer = try await stage.answer(to: request)
        } catch {
            if storing, case .graphQL(let failure) = error, let partial = failure.partialData, configuration.cache?.writesPartialData == true {
                await storePartial(partial, errors: failure.errors, for: request)
            }
            throw error
        }
        let storing = storing && !answer.cachePolicy.noStore
        let checked = try writer.check(
            answer.data, of: request, errors: answer.caughtErrors, policy: answer.cachePolicy, recording: storing, response: answer.response)
        let response = try respond(request, validated: checked.data, answer: answer, since: start)
        if storing {
            try await spans.traced("cache write", attributes: { $0["apicore.records"] = checked.recordCount }) { _ in
                await writer.write(checked, removingLayer: layer)
            }
        }
        guard let incremental = answer.incremental else { return ServerResults(first: response) }
        return ServerResults(first: response, later: try IncrementalResults(
            pipeline: self, request: request, answer: answer, incremental: incremental, first: response, validated: checked.data._data,
            storing: storing, since: start))
    }

    /// The cached data for a request, mapped; `nil` on a miss, or on expired data unless allowed.
    func readFromCache<Operation: GraphQLOperation, Value>(_ request: GraphQLRequest<Operation, Value>, allowExpired: Bool, partial: Bool = false)
        async -> Result<Response<Value>, APIError>?
    {
        guard let store else { return nil }
        let start = ContinuousClock.now
        let outcome = await store.read(
            Operation.self, variables: request.operation.coercedVariables, requestMaxAge: request.cacheMaxAge, partial: partial)
        let hit = outcome.data != nil && outcome.misses.isEmpty && (allowExpired || !outcome.stale)
        Counter(label: hit ? "apicore_cache_hits_total" : "apicore_cache_misses_total", dimensions: [("operation", Operation.operationName)], factory: metrics)
            .increment()
        // A partial read answers with what it found (its misses in the metadata).
        guard let data = outcome.data, hit || (partial && (allowExpired || !outcome.stale)) else { return nil }
        return CacheAccess.cachedResponse(request, read: outcome, data: data, start: start)
    }

    /// The server's data, validated already, mapped, with the exchange's metadata.
    func respond<Operation: GraphQLOperation, Value>(
        _ request: GraphQLRequest<Operation, Value>, validated: DataDict, answer: OperationStage.ServerAnswer, since start: ContinuousClock.Instant
    ) throws(APIError) -> Response<Value> {
        let value = try request.value(of: Operation.Data(_dataDict: validated))
        var metadata = Exchange.metadata(
            for: answer.response, operationName: Operation.operationName, since: start, extensions: answer.extensions,
            caughtErrors: answer.caughtErrors)
        if answer.overWebSocket { metadata.statusCode = nil }
        return Response(value: value, metadata: metadata)
    }

    /// Writes the partial data of a response with errors, when it has the shape the operation
    /// selects (a spec-compliant server nulls the nearest nullable parent of a failed field); the
    /// fields the errors name are left as they were.
    private func storePartial<Operation: GraphQLOperation, Value>(
        _ data: JSONObject, errors: [GraphQLError], for request: GraphQLRequest<Operation, Value>
    ) async {
        do throws(APIError) {
            await writer.write(try writer.check(.tree(data), of: request, errors: errors, response: nil))
        } catch {
            configuration.logger.debug("\(Operation.operationName): partial data not cached, it does not fit the selection: \(error)")
        }
    }
}

/// What the server's answer to one request gives: its first result, and for incremental delivery
/// the results still to come, read by `next()` as the parts arrive.
struct ServerResults<Operation: GraphQLOperation, Value: Sendable> {
    /// The first result (the only one of a whole answer).
    let first: Response<Value>
    /// The parts after the first, for incremental delivery.
    var later: IncrementalResults<Operation, Value>?

    /// The result of the next part, or what ended the parts early; `nil` after the last.
    mutating func next() async -> Result<Response<Value>, APIError>? {
        await later?.next()
    }

    /// Once every result is read: the last one, or the error that ended them, or one naming every
    /// error when a part had errors no `@catch` field catches.
    func outcome() throws(APIError) -> Response<Value> {
        try later?.outcome() ?? first
    }

    /// Reads every result and answers the outcome.
    mutating func last() async throws(APIError) -> Response<Value> {
        while await next() != nil {}
        return try outcome()
    }
}
