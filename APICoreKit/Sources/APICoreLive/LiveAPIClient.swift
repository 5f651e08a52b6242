@_spi(Engine) @_spi(Generated) import APICore
import APICoreSupport
import CoreMetrics
import Foundation

/// The engine's `APIClient`, composed of parts that each own their state; a call goes one way
/// through them (GraphQLPipeline.swift's header follows one):
///
/// - the pipeline (policy, the cache's reads, checking and writing the answer, watchers), over
/// - the operation stage (de-duplication, persisted queries, incremental delivery), over
/// - the exchange (HTTP through the middleware chain to the transport, or the subscription socket);
/// - subscriptions (one loop for every channel), over the exchange;
/// - the offline queue (sent or queued, replayed when ``Reachability``, the chain's outermost
///   step, says the server answers again);
/// - cache access (`client.cache`: direct reads, writes and maintenance, through the writer).
final class LiveAPIClient: APIClient {
    let configuration: APIClientConfiguration
    let pipeline: GraphQLPipeline
    let subscriptions: Subscribing
    let offline: OfflineMutations
    let cacheAccess: CacheAccess

    init(configuration: APIClientConfiguration, transport: any HTTPTransport) {
        self.configuration = configuration
        let spans = Spans(configured: configuration.tracer)
        let metrics = configuration.metricsFactory ?? MetricsSystem.factory
        // What an earlier launch queued, with its optimistic layers laid before anything reads the cache.
        var queued: [StoredMutation] = []
        var persistentQueue = configuration.cache?.storage.queue
        if let stored = persistentQueue {
            do {
                queued = try stored.loadQueue()
            } catch {
                configuration.logger.warning(
                    "The offline queue's store could not be read and is set aside; the queue goes on in memory only.",
                    metadata: ["error": "\(error)"])
                persistentQueue = nil
            }
        }
        let store = configuration.cache.map { cache in
            // A read-only cache collects nothing: what it would remove stays for the process that writes the file.
            NormalizedStore(
                persistent: cache.storage.persistent, readOnly: cache.storage.isReadOnly,
                maxAgeByType: cache.maxAge, garbageCollection: cache.storage.isReadOnly ? nil : CacheWriter.automaticCollection(cache.garbageCollection),
                memoryLimit: cache.memoryLimit, layers: MutationQueue.optimisticLayers(of: queued), logger: configuration.logger)
        }
        let writer = CacheWriter(store: store, keys: configuration.cache?.keys ?? [:])
        let queue = MutationQueue(stored: queued, persistent: persistentQueue, cache: writer, logger: configuration.logger)
        let reachability = Reachability(queue: queue)
        let refresher = Self.tokenRefresher(configuration, transport: transport)
        let batcher = configuration.batching.map {
            HTTPBatcher(options: $0, transport: transport, maxResponseSize: configuration.maxResponseSize) {
                spans.withTraceContext($0)
            }
        }
        let exchange = Exchange(
            configuration: configuration, transport: transport,
            chain: MiddlewareChain(configuration, metrics: metrics, reachability: reachability, refresher: refresher, spans: spans), batcher: batcher,
            socket: Subscribing.makeSubscriptionConnection(configuration, refresher: refresher), spans: spans)
        let stage = OperationStage(configuration: configuration, exchange: exchange, inFlight: InFlightQueries(logger: configuration.logger))
        pipeline = GraphQLPipeline(configuration: configuration, stage: stage, writer: writer, spans: spans, metrics: metrics)
        subscriptions = Subscribing(configuration: configuration, exchange: exchange, writer: writer, spans: spans)
        offline = OfflineMutations(queue: queue, reachability: reachability, pipeline: pipeline)
        cacheAccess = CacheAccess(pipeline: pipeline)
    }

    /// With bearer authentication, what renews the token: through the same transport, without
    /// authentication, retries or cache.
    private static func tokenRefresher(_ configuration: APIClientConfiguration, transport: any HTTPTransport) -> TokenRefresher? {
        guard case .bearer(let bearer)? = configuration.authentication else { return nil }
        var plain = configuration
        plain.authentication = nil
        plain.retryPolicy = nil
        plain.cache = nil
        return TokenRefresher(authentication: bearer, client: LiveAPIClient(configuration: plain, transport: transport))
    }

    /// The normalized cache, when the configuration has one.
    var store: NormalizedStore? { pipeline.store }

    var cache: any GraphQLCache { cacheAccess }

    var offlineQueue: any OfflineMutationQueue { offline }

    func send<Value>(_ request: RESTRequest<Value>) async throws(APIError) -> Response<Value> {
        try await pipeline.stage.exchange.send(request)
    }

    func fetch<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy) async throws(APIError)
        -> Response<Value>
    {
        try await pipeline.fetch(request, cachePolicy: cachePolicy)
    }

    func responses<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy)
        -> APIStream<Result<Response<Value>, APIError>>
    {
        pipeline.responses(request, cachePolicy: cachePolicy)
    }

    func watch<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy)
        -> APIStream<Result<Response<Value>, APIError>>
    {
        pipeline.watch(request, cachePolicy: cachePolicy)
    }

    func subscribe<Subscription: GraphQLSubscription, Value>(_ request: GraphQLRequest<Subscription, Value>) -> APISubscription<Value> {
        subscriptions.subscribe(request)
    }

    func perform<Mutation: GraphQLMutation, Value>(_ request: GraphQLRequest<Mutation, Value>, optimisticResponse: Mutation.Data?)
        async throws(APIError) -> Response<Value>
    {
        try await pipeline.perform(request, optimisticResponse: optimisticResponse)
    }

    func performOrQueue<Mutation: GraphQLMutation, Value>(_ request: GraphQLRequest<Mutation, Value>, optimisticResponse: Mutation.Data?)
        async throws(APIError) -> MutationOutcome<Value>
    {
        try await offline.performOrQueue(request, optimisticResponse: optimisticResponse)
    }

    /// What the client has going on now (``EngineActivity``).
    func activity() async -> EngineActivity {
        let store = await store?.activity() ?? (watchers: 0, layers: 0)
        return EngineActivity(
            backgroundTasks: pipeline.backgroundTaskCount, queriesInFlight: await pipeline.stage.inFlight.count,
            subscriptions: await subscriptions.exchange.socket?.operationCount ?? 0, watchers: store.watchers, optimisticLayers: store.layers,
            queuedMutations: offline.queue.waiting.withLock { $0 })
    }
}
