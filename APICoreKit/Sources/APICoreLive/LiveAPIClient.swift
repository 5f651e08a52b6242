@_spi(Engine) @_spi(Generated) import APICore
import APICoreSupport
import CoreMetrics
import Foundation
import Tracing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Network)
    import Network
#endif

/// The engine's `APIClient`: builds HTTP requests, runs them through the middleware chain, and
/// turns the answers into values or `APIError`s.
final class LiveAPIClient: APIClient {
    let configuration: APIClientConfiguration
    let transport: any HTTPTransport
    /// Gathers operations into batches, when the configuration batches.
    let batcher: HTTPBatcher?
    /// The normalized cache, when the configuration has one.
    let store: NormalizedStore?
    /// The one way into the cache (data is checked by it without a cache too).
    let cacheWriter: CacheWriter
    /// Metrics outermost (one count per logical request), the app's middlewares, retries,
    /// authentication (so that every retry carries the freshest token), logging innermost (one
    /// line per real exchange).
    let middlewares: [any Middleware]
    let metrics: any MetricsFactory
    let inFlight: InFlightQueries
    /// Whether the server still takes persisted-query hashes (it said `PersistedQueryNotSupported`).
    let persistedQueriesSupported = Locked(true)
    /// The subscriptions' shared socket, when the configuration has subscriptions.
    let subscriptions: SubscriptionConnection?
    /// Mutations that wait for the network.
    let queue: MutationQueue
    /// How to write the answer of a queued mutation, by its document, for the types registered.
    let queueables = Locked<[String: MutationQueue.Check]>([:])
    /// Typed cache updates, one at a time.
    let cacheUpdates = AsyncLock()
    /// Whether the last exchange reached the server (no connectivity failure since).
    let reachable = Locked(true)
    /// Work that goes on after a call answered (the server half of `.cacheAndNetwork`), by id:
    /// cancelled when the client goes away, its failures logged.
    private let background = Locked<(next: UInt64, tasks: [UInt64: Task<Void, Never>])>((0, [:]))
    /// How many of those run now.
    var backgroundTaskCount: Int { background.withLock { $0.tasks.count } }

    init(configuration: APIClientConfiguration, transport: any HTTPTransport) {
        self.configuration = configuration
        self.transport = transport
        let configuredTracer = configuration.tracer
        batcher = configuration.batching.map {
            HTTPBatcher(options: $0, transport: transport, maxResponseSize: configuration.maxResponseSize) { Self.withTraceContext($0, using: URLRequestInjector(), tracer: configuredTracer) }
        }
        inFlight = InFlightQueries(logger: configuration.logger)
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
            NormalizedStore(
                persistent: cache.storage.persistent, maxAgeByType: cache.maxAge, garbageCollection: cache.garbageCollection,
                memoryLimit: cache.memoryLimit, layers: MutationQueue.optimisticLayers(of: queued), logger: configuration.logger)
        }
        self.store = store
        cacheWriter = CacheWriter(store: store, keys: configuration.cache?.keys ?? [:])
        queue = MutationQueue(stored: queued, persistent: persistentQueue, cache: cacheWriter, logger: configuration.logger)
        let metrics = configuration.metricsFactory ?? MetricsSystem.factory
        var middlewares: [any Middleware] = [MetricsMiddleware(factory: metrics)] + configuration.middlewares
        if let policy = configuration.retryPolicy { middlewares.append(RetryMiddleware(policy: policy)) }
        var refresher: TokenRefresher?
        switch configuration.authentication {
        case .bearer(let bearer)?:
            // Refreshes go through the same transport without authentication, retries or cache.
            var plain = configuration
            plain.authentication = nil
            plain.retryPolicy = nil
            plain.cache = nil
            let shared = TokenRefresher(authentication: bearer, client: LiveAPIClient(configuration: plain, transport: transport))
            refresher = shared
            middlewares.append(BearerAuthMiddleware(authentication: bearer, refresher: shared))
        case .cookies(let storage)?:
            middlewares.append(CookieMiddleware(storage: storage))
        case nil:
            break
        }
        // Innermost, so each real exchange is logged with the headers actually sent (redacted).
        middlewares.append(LoggingMiddleware(logger: configuration.logger))
        self.middlewares = middlewares
        self.metrics = metrics
        subscriptions = Self.makeSubscriptionConnection(configuration, refresher: refresher)
        #if canImport(Network)
            // The platform's reachability signal: when a path comes back, waiting mutations go out.
            pathMonitor = NWPathMonitor()
            pathMonitor.pathUpdateHandler = { [weak self] path in
                guard path.status == .satisfied, let self, self.queue.waiting.withLock({ $0 > 0 }) else { return }
                self.refreshInBackground { () async throws(APIError) in await self.replay() }
            }
            pathMonitor.start(queue: DispatchQueue(label: "APICoreKit.reachability"))
        #endif
    }

    #if canImport(Network)
        /// Watches the device's network paths.
        private let pathMonitor: NWPathMonitor
    #endif

    deinit {
        #if canImport(Network)
            pathMonitor.cancel()
        #endif
        for task in background.withLock({ $0.tasks.values }) { task.cancel() }
    }

    /// Runs `work` after the caller has its answer, tracked so that the client cancels it when it
    /// goes away; a failure is logged, since nobody waits for it.
    func refreshInBackground(_ work: @escaping @Sendable () async throws(APIError) -> Void) {
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

    // MARK: REST

    func send<Value>(_ request: RESTRequest<Value>) async throws(APIError) -> Response<Value> {
        try await traced(
            request.summary, kind: .client, attributes: { $0["http.request.method"] = request.method.rawValue }
        ) { span throws(APIError) in
            let response = try await sendUntraced(request)
            Self.note(response.metadata, on: span)
            return response
        }
    }

    private func sendUntraced<Value>(_ request: RESTRequest<Value>) async throws(APIError) -> Response<Value> {
        let start = ContinuousClock.now
        let urlRequest = try makeURLRequest(request)
        let context = RequestContext(kind: .rest, operationName: request.summary, isIdempotent: request.isIdempotent, values: request.values)
        let response: TransportResponse
        do {
            response = try await runChain(urlRequest, context: context, exchange: restExchange(timeout: request.timeout))
        } catch {
            // With `acceptsAnyStatus`, the answer the chain (refresh, retry) ended with a status
            // error for is the response: the error carries it, body and all.
            switch error {
            case .httpStatus(let failure) where request.acceptsAnyStatus, .unauthorized(let failure) where request.acceptsAnyStatus:
                response = TransportResponse(statusCode: failure.statusCode, headers: failure.headers, body: failure.body, url: failure.url)
            default: throw error
            }
        }
        let value: Value
        do {
            value = try request.decode(response.body)
        } catch {
            throw APIError.decodingFailure(error, body: response.body, statusCode: response.statusCode, request: request.summary)
        }
        return Response(value: value, metadata: metadata(for: response, operationName: request.summary, since: start))
    }

    func makeURLRequest<Value>(_ request: RESTRequest<Value>) throws(APIError) -> URLRequest {
        let path = request.path.hasPrefix("/") ? String(request.path.dropFirst()) : request.path
        let base = configuration.restBaseURL.absoluteString.hasSuffix("/")
            ? configuration.restBaseURL.absoluteString : configuration.restBaseURL.absoluteString + "/"
        let isAbsolute = ["http://", "https://"].contains { request.path.lowercased().hasPrefix($0) }
        guard var components = URLComponents(string: isAbsolute ? request.path : base + path) else {
            throw .invalidRequest("the path '\(request.path)' does not make a valid URL with \(configuration.restBaseURL)")
        }
        if !request.queryItems.isEmpty {
            components.percentEncodedQuery = QueryEncoding.encode(request.queryItems.map { ($0.name, $0.value ?? "") })
        }
        guard let url = components.url else {
            throw .invalidRequest("the path '\(request.path)' does not make a valid URL with \(configuration.restBaseURL)")
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
        switch (request.body, request.rawBody) {
        case (_?, _?):
            throw .invalidRequest("\(request.summary) has both a JSON body and a raw body; give one")
        case (let body?, nil):
            do {
                urlRequest.httpBody = try configuration.makeJSONEncoder().encode(body)
            } catch {
                throw .invalidRequest("the body of \(request.summary) could not be encoded as JSON: \(error)")
            }
            urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        case (nil, let raw?):
            urlRequest.httpBody = raw.data
            urlRequest.setValue(raw.contentType, forHTTPHeaderField: "Content-Type")
        case (nil, nil):
            break
        }
        applyHeaders(request.headers, to: &urlRequest)
        return urlRequest
    }

    static func checkRESTStatus(_ response: TransportResponse) throws(APIError) {
        switch response.statusCode {
        case 200..<300: return
        case 401: throw .unauthorized(HTTPFailure(statusCode: 401, headers: response.headers, body: response.body, url: response.url))
        default:
            throw .httpStatus(HTTPFailure(statusCode: response.statusCode, headers: response.headers, body: response.body, url: response.url))
        }
    }

    // MARK: Chain

    /// Runs the middleware chain around `exchange`, its innermost step: the one real exchange
    /// with the transport, which reads the answer as the kind of call needs (`restExchange` here,
    /// `graphQLExchange` in GraphQL/Exchange.swift) so that middleware sees statuses and GraphQL errors
    /// as `APIError`s. Whatever that step read travels with the response it returns.
    func runChain(_ request: URLRequest, context: RequestContext, exchange: @escaping MiddlewareNext) async throws(APIError)
        -> TransportResponse
    {
        let terminal = tracedExchange(exchange)
        let result = await Self.result { () async throws(APIError) in
            try await Self.call(middlewares[...], request: request, context: context, terminal: terminal)
        }
        noteReachability(of: result)
        return try result.get()
    }

    /// The innermost step for REST: the answer whole, a status outside 2xx as an error that
    /// carries it.
    func restExchange(timeout: Duration?) -> MiddlewareNext {
        let transport = self.transport
        let timeout = timeout ?? configuration.timeout
        return { [self] request throws(APIError) in
            let response = try await transport.whole(withTraceContext(request), timeout: timeout, limit: configuration.maxResponseSize)
            try Self.checkRESTStatus(response)
            return response
        }
    }

    static func call(
        _ middlewares: ArraySlice<any Middleware>,
        request: URLRequest,
        context: RequestContext,
        terminal: @escaping MiddlewareNext
    ) async throws(APIError) -> TransportResponse {
        guard let first = middlewares.first else {
            if Task.isCancelled { throw .cancelled }
            return try await terminal(request)
        }
        let rest = middlewares.dropFirst()
        return try await first.intercept(request, context: context) { request throws(APIError) in
            try await call(rest, request: request, context: context, terminal: terminal)
        }
    }

    func applyHeaders(_ headers: [String: String], to request: inout URLRequest) {
        for (name, value) in configuration.defaultHeaders where request.value(forHTTPHeaderField: name) == nil {
            request.setValue(value, forHTTPHeaderField: name)
        }
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
    }

    func metadata(
        for response: TransportResponse, operationName: String, since start: ContinuousClock.Instant, extensions: JSONObject? = nil,
        caughtErrors: [GraphQLError] = []
    ) -> ResponseMetadata {
        ResponseMetadata(
            source: .server, statusCode: response.statusCode, headers: response.headers,
            duration: ContinuousClock.now - start, operationName: operationName, extensions: extensions, caughtErrors: caughtErrors)
    }
}
