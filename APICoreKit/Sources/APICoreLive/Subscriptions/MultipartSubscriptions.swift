@_spi(Generated) import APICore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Subscriptions over HTTP multipart, the protocol of Apollo Router (`subscriptionSpec=1.0`): one
/// POST per subscription through the app's middleware chain; the answer is `multipart/mixed`, each
/// part a JSON object: `{}` is a heartbeat, `{"payload": {"data": …, "errors": […]}}` an event, and
/// `{"payload": null, "errors": […]}` an error that ends the subscription. The closing boundary
/// completes it. A plain GraphQL result as a part is read as an event too, and a server that
/// cannot stream answers once, as JSON: its errors end the subscription, its data is one event.
///
/// A connection that drops, or stays silent for twice `keepAlive`, is reopened as the
/// configuration's `reconnect` policy says, and the subscription sent again (states say so);
/// anything else the server says ends it with that error.
extension LiveAPIClient {
    func subscribeOverHTTP<Subscription: GraphQLSubscription, Value>(
        _ request: GraphQLRequest<Subscription, Value>, settings: SubscriptionConfiguration
    ) -> APISubscription<Value> {
        APISubscription { continuation in
            let task = Task {
                do throws(APIError) {
                    try await self.runOverHTTP(request, settings: settings, continuation: continuation)
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: Task.isCancelled ? .cancelled : error)
                }
            }
            continuation.onTermination { task.cancel() }
        }
    }

    /// Connects, and reconnects after drops, until the server completes the subscription, fails
    /// it, or the policy gives up.
    private func runOverHTTP<Subscription: GraphQLSubscription, Value>(
        _ request: GraphQLRequest<Subscription, Value>, settings: SubscriptionConfiguration, continuation: APISubscription<Value>.Continuation
    ) async throws(APIError) {
        var attempts = ReconnectAttempts()
        continuation.setState(.connecting)
        while true {
            var wasActive = false
            let error: APIError
            do throws(APIError) {
                try await receiveOverHTTP(request, settings: settings, continuation: continuation, active: { wasActive = true })
                return
            } catch let caught {
                error = caught
            }
            guard error.recovery == .retry, !Task.isCancelled, let policy = settings.reconnect else { throw error }
            if wasActive { attempts.connected() }
            guard let delay = attempts.failed(under: policy) else {
                configuration.logger.warning("\(Subscription.operationName): gave up reconnecting after \(attempts.failures) attempts")
                throw error
            }
            configuration.logger.info(
                "\(Subscription.operationName): subscription stream lost (\(error)); reconnecting in \(delay), attempt \(attempts.failures)")
            continuation.setState(.reconnecting(attempt: attempts.failures, delay: delay, reason: error.description))
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw .cancelled
            }
            continuation.setState(.connecting)
        }
    }

    /// One request and the events of its answer, each written to the cache before it is yielded.
    /// Returns when the server completes the subscription; throws what ended it otherwise.
    private func receiveOverHTTP<Subscription: GraphQLSubscription, Value>(
        _ request: GraphQLRequest<Subscription, Value>, settings: SubscriptionConfiguration, continuation: APISubscription<Value>.Continuation,
        active: () -> Void
    ) async throws(APIError) {
        let name = Subscription.operationName
        var urlRequest = try GraphQLHTTP.makeRequest(
            url: settings.url, operation: request.operation, variables: request.operation.variablesJSON, useGET: false,
            accept: GraphQLHTTP.acceptMultipartSubscription)
        applyHeaders(settings.headers.merging(request.headers) { _, request in request }, to: &urlRequest)
        for (header, value) in settings.headers where value.isEmpty { urlRequest.setValue(nil, forHTTPHeaderField: header) }
        let context = RequestContext(kind: .graphQL(.subscription), operationName: name, isIdempotent: false)
        let record = ExchangeRecord(reading: .openEnded)
        let response = try await runChain(urlRequest, context: context, timeout: settings.ackTimeout, record: record)
        guard let streamed = record.parts(for: response) else {
            // Answered once, as JSON.
            let answer = try await readAnswer(response, record: record, operationName: name)
            try await deliver(["data": .object(answer.data)], of: request, to: continuation)
            return
        }
        active()
        continuation.setState(.active)
        let payloads = IncrementalParts.payloads(
            of: streamed.chunks, boundary: streamed.boundary, operationName: name, heartbeats: true, maxPartSize: settings.maxMessageSize)
        let (parts, stop) = Self.watchingSilence(payloads, limit: settings.keepAlive.map { $0 * 2 }, url: settings.url)
        defer { stop() }  // however this ends, the exchange ends with it
        for await next in parts {
            let part = try next.get()
            if part.isEmpty { continue }  // a heartbeat
            guard let payload = part["payload"] else {
                try await deliver(part, of: request, to: continuation)  // a plain result
                continue
            }
            guard case .object(let result) = payload else {
                // The server ends the subscription, with errors that say why.
                let errors = (part["errors"]?.arrayValue ?? []).map(GraphQLError.init(json:))
                guard !errors.isEmpty else {
                    throw .invalidResponse(InvalidResponse(
                        kind: .noData, statusCode: response.statusCode, request: name, bodyExcerpt: JSONSerializer.string(.object(part))))
                }
                throw .graphQL(GraphQLFailure(errors: errors, partialData: nil, statusCode: response.statusCode, operationName: name))
            }
            try await deliver(result, of: request, to: continuation)
        }
        if Task.isCancelled { throw .cancelled }
    }

    /// One event: mapped, its data written to the cache (watchers told), then yielded.
    private func deliver<Subscription: GraphQLSubscription, Value>(
        _ result: JSONObject, of request: GraphQLRequest<Subscription, Value>, to continuation: APISubscription<Value>.Continuation
    ) async throws(APIError) {
        let (value, data) = try readEvent(result, of: request)
        await store(data, for: request.operation)
        continuation.yield(value)
    }

    /// `payloads`, failing with a timeout when nothing (heartbeats included) arrives for `limit`,
    /// and a function that stops them (and the exchange behind them) when the reader leaves early.
    private static func watchingSilence(_ payloads: APIStream<Result<JSONObject, APIError>>, limit: Duration?, url: URL)
        -> (APIStream<Result<JSONObject, APIError>>, stop: @Sendable () -> Void)
    {
        var stop: (@Sendable () -> Void)?
        let watched = APIStream<Result<JSONObject, APIError>> { continuation in
            stop = { continuation.finish() }
            let lastHeard = Locked(ContinuousClock.now)
            let reader = Task {
                for await payload in payloads {
                    lastHeard.withLock { $0 = .now }
                    continuation.yield(payload)
                }
                continuation.finish()
            }
            let watchdog = limit.map { limit in
                Task {
                    while !Task.isCancelled {
                        let deadline = lastHeard.withLock { $0 } + limit
                        if deadline > .now {
                            try? await Task.sleep(until: deadline)
                            continue
                        }
                        continuation.yield(.failure(.transport(TransportFailure(
                            kind: .timedOut, url: url, underlying: "nothing from the server, not even a heartbeat, for \(limit)"))))
                        continuation.finish()
                        return
                    }
                }
            }
            continuation.onTermination = { _ in
                reader.cancel()
                watchdog?.cancel()
            }
        }
        // `APIStream.init` runs its closure at once.
        return (watched, stop!)
    }
}
