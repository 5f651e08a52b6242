@_spi(Engine) @_spi(Generated) import APICore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A channel whose every subscription is one POST through the client's middleware chain (auth
/// refresh, retries, logging included) with an answer that streams: what differs between such
/// channels is the `Accept` header, the media type that streams, and how the body is read.
protocol StreamingHTTPChannel: SubscriptionChannel {
    /// The exchange whose chain sends the request.
    var exchange: Exchange { get }
    /// The subscription configuration (URL, headers, timeouts).
    var settings: SubscriptionConfiguration { get }
    /// The `Accept` header: this channel's streaming media type first, one JSON answer after it.
    static var accept: String { get }
    /// Whether the answer's head says it streams in this channel's format.
    static func streams(_ head: TransportResponse) -> Bool
    /// Reads the events of the body, telling `emit` each, until the server ends the operation
    /// (`complete` or `error`); throws what stopped the stream otherwise.
    func read(_ chunks: APIStream<Result<Data, APIError>>, of head: TransportResponse, operation: OutgoingOperation,
              emit: (ChannelEvent) -> Void) async throws(APIError)
}

extension StreamingHTTPChannel {
    func open(_ operation: OutgoingOperation) -> EventQueue<ChannelEvent> {
        let events = EventQueue<ChannelEvent>()
        let task = Task {
            do throws(APIError) {
                try await exchange(operation) { events.yield($0) }
            } catch {
                events.yield(.dropped(Task.isCancelled ? .cancelled : error))
            }
            events.finish()
        }
        events.onStop { task.cancel() }
        return events
    }

    /// One request through the exchange and the events of its answer. A server that
    /// cannot stream answers once, as JSON: its data is one event, its errors end the subscription.
    private func exchange(_ operation: OutgoingOperation, emit: (ChannelEvent) -> Void) async throws(APIError) {
        var operation = operation
        operation.headers = settings.headers.merging(operation.headers) { _, request in request }
        operation.timeout = settings.ackTimeout
        // A header the configuration sets empty is one this request goes without.
        let route = Exchange.HTTPRoute(
            url: settings.url, accept: Self.accept, reading: .openEnded, withoutHeaders: settings.headers.filter { $0.value.isEmpty }.map(\.key))
        let exchanged: Exchange.Exchanged
        do throws(APIError) {
            exchanged = try await exchange.exchange(operation, over: .http(route))
        } catch {
            // The server's word on the operation (its errors, a refusal) ends it; the rest is a drop.
            if case .graphQL = error { return emit(.error(error)) }
            throw error
        }
        switch exchanged.body {
        case .payload(let payload):
            emit(.payload(.tree(["data": .object(payload.data.tree)])))
            return emit(.complete)
        case .streaming(let chunks):
            guard Self.streams(exchanged.response) else {
                throw .invalidResponse(InvalidResponse(
                    kind: .notGraphQLResponse, statusCode: exchanged.response.statusCode, request: operation.name,
                    bodyExcerpt: "a \(exchanged.response.mediaType ?? "streamed") answer, which this subscription channel does not read"))
            }
            emit(.connected)
            let (watched, stop) = Self.watchingSilence(chunks, limit: settings.keepAlive.map { $0 * 2 }, url: settings.url)
            defer { stop() }  // however this ends, the exchange ends with it
            try await read(watched, of: exchanged.response, operation: operation, emit: emit)
            if Task.isCancelled { throw .cancelled }
        }
    }

    /// `chunks`, failing with a timeout when nothing (heartbeats included) arrives for `limit`,
    /// and a function that stops them (and the exchange behind them) when the reader leaves early.
    static func watchingSilence(_ chunks: APIStream<Result<Data, APIError>>, limit: Duration?, url: URL)
        -> (APIStream<Result<Data, APIError>>, stop: @Sendable () -> Void)
    {
        // Nothing to watch: the chunks as they are (the exchange ends when they are let go).
        guard let limit else { return (chunks, {}) }
        var stop: (@Sendable () -> Void)?
        let watched = APIStream<Result<Data, APIError>> { continuation in
            stop = { continuation.finish() }
            let lastHeard = Locked(ContinuousClock.now)
            let reader = Task {
                for await chunk in chunks {
                    lastHeard.withLock { $0 = .now }
                    continuation.yield(chunk)
                }
                continuation.finish()
            }
            let watchdog = Task {
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
            continuation.onTermination = { _ in
                reader.cancel()
                watchdog.cancel()
            }
        }
        // `APIStream.init` runs its closure at once.
        return (watched, stop!)
    }
}
