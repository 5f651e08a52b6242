@_spi(Engine) @_spi(Tools) @_spi(Generated) import APICore
import APICoreSupport
import Foundation
import Tracing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Subscriptions: one loop for every channel (SubscriptionChannel.swift); each event is validated,
/// written to the cache and mapped, in the order the server sent them.
struct Subscribing: Sendable {
    let configuration: APIClientConfiguration
    /// The way to the server (the shared socket, streamed HTTP through the chain).
    let exchange: Exchange
    let writer: CacheWriter
    let spans: Spans

    static func makeSubscriptionConnection(_ configuration: APIClientConfiguration, refresher: TokenRefresher?) -> SubscriptionConnection? {
        guard let subscriptions = configuration.subscriptions, case .webSocket(let transport) = subscriptions.channel else { return nil }
        let authentication = configuration.authentication
        let awareness = configuration.clientAwareness?.headers ?? [:]
        let headers = awareness.merging(configuration.defaultHeaders) { $1 }.merging(subscriptions.headers) { $1 }
        let configuredTracer = configuration.tracer
        // The trace context of the operation that opens the socket, as the tracer propagates it.
        let traceContext: @Sendable () -> [String: String] = { Spans.withTraceContext([:], using: DictionaryInjector(), tracer: configuredTracer) }
        var reauthenticate: (@Sendable () async throws(APIError) -> Void)?
        if let refresher {
            reauthenticate = { () async throws(APIError) in try await refresher.refreshCurrent() }
        }
        return SubscriptionConnection(
            configuration: subscriptions, transport: transport,
            upgradeHeaders: {
                let headers = headers.merging(traceContext()) { $1 }
                guard case .cookies(let storage)? = authentication, let cookieURL = Self.httpURL(for: subscriptions.url) else { return headers }
                let cookies = HTTPCookie.requestHeaderFields(with: storage.cookies(for: cookieURL) ?? [])
                return headers.merging(cookies) { $1 }
            },
            connectionPayload: {
                // The app's payload, else the bearer token; the client's name and version besides.
                var payload: JSONObject?
                if let provider = subscriptions.connectionPayload {
                    payload = await provider()
                } else if case .bearer(let bearer)? = authentication, let token = await bearer.store.token() {
                    payload = ["Authorization": .string("Bearer \(token.accessToken)")]
                }
                let additions = awareness.merging(traceContext()) { $1 }
                guard !additions.isEmpty else { return payload }
                return (payload ?? [:]).merging(additions.mapValues { .string($0) }) { own, _ in own }
            },
            reauthenticate: reauthenticate,
            logger: configuration.logger)
    }

    /// `ws://` as `http://`, `wss://` as `https://`: where cookies for the socket are kept.
    static func httpURL(for url: URL) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        components.scheme = components.scheme == "wss" ? "https" : "http"
        return components.url
    }

    /// The channel the configuration names: the shared WebSocket, or a streamed HTTP request per
    /// subscription.
    func subscriptionChannel(_ settings: SubscriptionConfiguration) -> any SubscriptionChannel {
        // `makeSubscriptionConnection` made the socket when the configuration names one.
        if let socket = exchange.socket { return SocketSubscriptionChannel(connection: socket) }
        if case .serverSentEvents = settings.channel { return EventStreamSubscriptionChannel(exchange: exchange, settings: settings) }
        return MultipartSubscriptionChannel(exchange: exchange, settings: settings)
    }

    /// The subscription loop, the same for every channel: opens the operation, reads each event,
    /// writes its data to the cache (watchers told) before yielding its value, in the order the
    /// server sent them, passes states on, and when the connection drops, opens it again as the
    /// configuration's `reconnect` policy says.
    func subscribe<Subscription: GraphQLSubscription, Value>(_ request: GraphQLRequest<Subscription, Value>) -> APISubscription<Value> {
        guard let settings = configuration.subscriptions else {
            return .failed(.invalidRequest("\(Subscription.operationName): this client has no subscription configuration (APIClientConfiguration.subscriptions)"))
        }
        let channel = subscriptionChannel(settings)
        let operation = exchange.asSent(OutgoingOperation(request))
        return APISubscription { continuation in
            let task = Task {
                do throws(APIError) {
                    try await spans.traced(
                        "subscription \(Subscription.operationName)", kind: .client,
                        attributes: { $0["graphql.operation.name"] = Subscription.operationName; $0["graphql.operation.type"] = "subscription" }
                    ) { _ throws(APIError) in
                        try await receive(request, operation, over: channel, reconnect: settings.reconnect, into: continuation)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: Task.isCancelled ? .cancelled : error)
                }
            }
            continuation.onTermination { task.cancel() }
        }
    }

    /// Opens the operation, and opens it again after each drop, until the server completes it,
    /// fails it, or the policy gives up.
    private func receive<Subscription: GraphQLSubscription, Value>(
        _ request: GraphQLRequest<Subscription, Value>, _ operation: OutgoingOperation, over channel: any SubscriptionChannel,
        reconnect policy: RetryPolicy?, into continuation: APISubscription<Value>.Continuation
    ) async throws(APIError) {
        var attempts = ReconnectAttempts()
        // Asked once: the events' spans come from the tracer the subscription started with.
        let tracer = spans.tracer
        while true {
            continuation.setState(.connecting)
            var lost: APIError?
            let events = channel.open(operation)
            defer { events.stop() }
            reading: while let batch = await events.next() {
                // Events that arrived together are read in order and written in one step; each is
                // yielded after the write. What ends a batch early comes after those before it.
                var read = EventBatch<Value, Subscription.Data>()
                for event in batch {
                    if case .payload(let payload) = event {
                        attempts.delivered()
                        do throws(APIError) {
                            try await read.append(spans.traced("subscription event \(operation.name)", kind: .consumer, tracer: tracer) { _ throws(APIError) in
                                try readEvent(payload, of: request)
                            })
                            continue
                        } catch {
                            try await deliver(read, into: continuation)
                            throw error
                        }
                    }
                    try await deliver(read, into: continuation)
                    read = EventBatch()
                    switch event {
                    case .connected:
                        attempts.connected()
                        continuation.setState(.active)
                    case .state(let state):
                        continuation.setState(state)
                    case .payload:
                        break
                    case .error(let error):
                        throw error
                    case .complete:
                        return
                    case .dropped(let error):
                        lost = error
                        break reading
                    }
                }
                try await deliver(read, into: continuation)
            }
            if Task.isCancelled { throw .cancelled }
            let error = lost ?? .transport(TransportFailure(
                kind: .connectionLost, url: configuration.subscriptions?.url, underlying: "the subscription's stream ended without completing"))
            guard let policy, policy.retries(error) else { throw error }
            guard let delay = attempts.failed(error, under: policy) else {
                configuration.logger.warning("\(operation.name): gave up reconnecting after \(attempts.failures) attempts")
                throw error
            }
            configuration.logger.info("\(operation.name): subscription stream lost (\(error)); reconnecting in \(delay), attempt \(attempts.failures)")
            continuation.setState(.reconnecting(attempt: attempts.failures, delay: delay, reason: error.description))
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw .cancelled
            }
        }
    }

    /// Events read and checked, waiting for their one write.
    struct EventBatch<Value, Data: SelectionSet> {
        var values: [Value] = []
        var checked: [CacheWriter.Checked<Data>] = []

        mutating func append(_ event: (Value, CacheWriter.Checked<Data>)) {
            values.append(event.0)
            checked.append(event.1)
        }
    }

    /// Writes a batch of events to the cache in one step (one span), in order, then yields their
    /// values in one step.
    private func deliver<Value, Data>(_ batch: EventBatch<Value, Data>, into continuation: APISubscription<Value>.Continuation) async throws(APIError) {
        guard !batch.values.isEmpty else { return }
        if writer.store != nil {
            try await spans.traced("cache write", attributes: { $0["apicore.records"] = batch.checked.reduce(0) { $0 + $1.recordCount } }) { _ in
                await writer.write(batch.checked)
            }
        }
        continuation.yield(contentsOf: batch.values)
    }

    /// One `next` payload as a value and its data checked for the cache, read as every other
    /// result is (`payload(of:)`): errors that `@catch` fields catch are in their places. Data
    /// with errors no field catches is delivered all the same when it has the selection set's
    /// shape (the errors are logged, and the fields they name are not cached); otherwise the
    /// errors are thrown.
    func readEvent<Subscription: GraphQLSubscription, Value>(_ result: ReadObject, of request: GraphQLRequest<Subscription, Value>)
        throws(APIError) -> (Value, CacheWriter.Checked<Subscription.Data>)
    {
        let checked: CacheWriter.Checked<Subscription.Data>
        do throws(APIError) {
            let payload = try Exchange.payload(
                of: result, statusCode: nil, operationName: Subscription.operationName, catching: Subscription.Data.__selections)
            // Records kept on the tape: events written together make the last one's tree only.
            checked = try writer.check(payload.data, of: request, errors: payload.caughtErrors, keepingOnTape: true, response: nil)
        } catch {
            guard case .graphQL(let failure) = error, let partial = failure.partialData,
                let partialChecked = try? writer.check(.tree(partial), of: request, errors: failure.errors, response: nil)
            else { throw error }
            configuration.logger.warning("\(Subscription.operationName): event delivered with field errors: \(failure)")
            checked = partialChecked
        }
        return (try request.value(of: Subscription.Data(_dataDict: checked.data)), checked)
    }
}
