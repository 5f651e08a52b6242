import APICore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Subscriptions for `LiveAPIClient`: each event is validated, written to the cache and mapped, in
/// the order the server sent them.
extension LiveAPIClient {
    static func makeSubscriptionConnection(_ configuration: APIClientConfiguration, refresher: TokenRefresher?) -> SubscriptionConnection? {
        guard let subscriptions = configuration.subscriptions, case .webSocket(let transport) = subscriptions.channel else { return nil }
        let authentication = configuration.authentication
        let headers = configuration.defaultHeaders.merging(subscriptions.headers) { $1 }
        var reauthenticate: (@Sendable () async throws(APIError) -> Void)?
        if let refresher {
            reauthenticate = { () async throws(APIError) in try await refresher.refreshCurrent() }
        }
        return SubscriptionConnection(
            configuration: subscriptions, transport: transport,
            upgradeHeaders: {
                guard case .cookies(let storage)? = authentication, let cookieURL = Self.httpURL(for: subscriptions.url) else { return headers }
                let cookies = HTTPCookie.requestHeaderFields(with: storage.cookies(for: cookieURL) ?? [])
                return headers.merging(cookies) { $1 }
            },
            defaultPayload: {
                guard case .bearer(let bearer)? = authentication, let token = await bearer.store.token() else { return nil }
                return ["Authorization": .string("Bearer \(token.accessToken)")]
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

    func subscribe<Subscription: GraphQLSubscription, Value>(_ request: GraphQLRequest<Subscription, Value>) -> APISubscription<Value> {
        guard let settings = configuration.subscriptions else {
            return .failed(.invalidRequest("\(Subscription.operationName): this client has no subscription configuration (APIClientConfiguration.subscriptions)"))
        }
        guard let connection = subscriptions else { return subscribeOverHTTP(request, settings: settings) }
        var payload: JSONObject = ["query": .string(Subscription.document), "operationName": .string(Subscription.operationName)]
        let variables = request.operation.variablesJSON
        if !variables.isEmpty { payload["variables"] = .object(variables) }
        let operationPayload = payload
        let writesToCache = store != nil
        return APISubscription { continuation in
            /// What one delivery means for the consumer: a value to yield (after writing its data to
            /// the cache), or nothing more to do; errors and the end finish the subscription here.
            let step: @Sendable (SubscriptionConnection.Delivery) -> (value: Value, data: JSONObject)? = { delivery in
                switch delivery {
                case .state(let state):
                    continuation.setState(state)
                case .next(let result):
                    do throws(APIError) {
                        return try self.readEvent(result, of: request)
                    } catch {
                        continuation.finish(throwing: error)
                    }
                case .failed(let error):
                    continuation.finish(throwing: error)
                case .completed:
                    continuation.finish()
                }
                return nil
            }
            let sink: SubscriptionConnection.Sink
            var worker: Task<Void, Never>?
            if writesToCache {
                // Each event's data is in the cache (and watchers told) before the consumer sees it.
                let (deliveries, deliver) = AsyncStream<SubscriptionConnection.Delivery>.makeStream()
                worker = Task {
                    for await delivery in deliveries {
                        guard let event = step(delivery) else { continue }
                        await self.store(event.data, for: request.operation)
                        continuation.yield(event.value)
                    }
                }
                sink = { deliver.yield($0) }
                continuation.onTermination { deliver.finish() }
            } else {
                sink = { delivery in if let event = step(delivery) { continuation.yield(event.value) } }
            }
            let registration = Task { await connection.subscribe(name: Subscription.operationName, payload: operationPayload, sink: sink) }
            let cancelWorker = worker.map { worker in { @Sendable in worker.cancel() } }
            continuation.onTermination {
                cancelWorker?()
                Task { await connection.unsubscribe(await registration.value) }
            }
        }
    }

    /// One `next` payload as a value and the data to cache. Data that satisfies the selection set
    /// is delivered even when field errors came with it (they are logged); otherwise the errors
    /// are thrown.
    func readEvent<Subscription: GraphQLSubscription, Value>(_ result: JSONObject, of request: GraphQLRequest<Subscription, Value>)
        throws(APIError) -> (Value, JSONObject)
    {
        let data: JSONObject
        do throws(APIError) {
            guard case .data(let object) = try GraphQLResponseReading.read(.object(result), statusCode: nil, operationName: Subscription.operationName),
                let object
            else {
                throw .invalidResponse(InvalidResponse(
                    kind: .noData, statusCode: nil, request: Subscription.operationName,
                    bodyExcerpt: String(JSONSerializer.string(.object(result)).prefix(512))))
            }
            data = object
        } catch {
            guard case .graphQL(let failure) = error, let partial = failure.partialData,
                let value = try? request.value(from: partial, statusCode: nil, body: Data())
            else { throw error }
            configuration.logger.warning("\(Subscription.operationName): event delivered with field errors: \(failure)")
            return (value, partial)
        }
        return (try request.value(from: data, statusCode: nil, body: Data()), data)
    }
}
