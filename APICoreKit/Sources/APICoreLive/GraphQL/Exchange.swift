@_spi(Engine) @_spi(Tools) @_spi(Generated) import APICore
import APICoreSupport
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The exchange: one call sent and its answer read as far as its kind allows. Every way to the
/// server enters here: a GraphQL operation through `exchange(_:over:)` (queries and mutations over
/// HTTP or the subscription socket, queued mutations replayed, subscriptions over streamed HTTP),
/// a REST request through `send(_:)` (RESTExchange.swift). HTTP goes through the middleware chain
/// to the transport; nothing here calls back into the client.
struct Exchange: Sendable {
    let configuration: APIClientConfiguration
    let transport: any HTTPTransport
    /// The chain every HTTP request goes through.
    let chain: MiddlewareChain
    /// Gathers operations into batches, when the configuration batches.
    let batcher: HTTPBatcher?
    /// The subscriptions' shared socket, when the configuration has one.
    let socket: SubscriptionConnection?
    let spans: Spans

    /// Where an operation goes.
    enum Route: Sendable {
        /// An HTTP request through the app's middleware chain.
        case http(HTTPRoute)
        /// The subscription socket, as one `subscribe` whose first result is the answer. No HTTP
        /// middleware runs: the socket authenticated when it opened.
        case socket(SubscriptionConnection)
    }

    /// Where an HTTP request goes and how its answer is read.
    struct HTTPRoute: Sendable {
        /// The endpoint.
        var url: URL
        /// The `Accept` header.
        var accept = GraphQLHTTP.accept
        /// How the innermost step reads the answer.
        var reading = Reading.whole
        /// Headers the client would add that this request goes without.
        var withoutHeaders: [String] = []
    }

    /// How the innermost step reads a GraphQL answer.
    enum Reading: Sendable {
        /// Whole.
        case whole
        /// As it streams, within the request's timeout (incremental delivery).
        case streamed
        /// As it streams, for as long as the server keeps it open (a subscription): the timeout
        /// covers only its head.
        case openEnded
    }

    /// What one exchange answered.
    struct Exchanged: Sendable {
        /// The response; over the socket, status 200 without headers.
        var response: TransportResponse
        /// Its body, read.
        var body: Body
        /// Whether it came over the socket, which has no HTTP status.
        var overSocket = false

        /// A body read whole as a GraphQL result, or one that streams (`multipart/mixed`,
        /// `text/event-stream`), its chunks as they arrive.
        enum Body: Sendable {
            case payload(GraphQLPayload)
            case streaming(APIStream<Result<Data, APIError>>)
        }
    }

    /// The GraphQL endpoint, with the `Accept` header and reading an operation's document asks for.
    func graphQLRoute(for operation: OutgoingOperation) -> HTTPRoute {
        operation.isIncremental
            ? HTTPRoute(url: configuration.graphQLURL, accept: GraphQLHTTP.acceptIncremental, reading: .streamed)
            : HTTPRoute(url: configuration.graphQLURL)
    }

    /// The configuration's default headers where the request has none of that name, then `headers`.
    func applyHeaders(_ headers: [String: String], to request: inout URLRequest) {
        for (name, value) in configuration.defaultHeaders where request.value(forHTTPHeaderField: name) == nil {
            request.setValue(value, forHTTPHeaderField: name)
        }
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
    }

    /// What the server's answer says of itself, for the caller's `Response`.
    static func metadata(
        for response: TransportResponse, operationName: String, since start: ContinuousClock.Instant, extensions: JSONObject? = nil,
        caughtErrors: [GraphQLError] = []
    ) -> ResponseMetadata {
        ResponseMetadata(
            source: .server, statusCode: response.statusCode, headers: response.headers,
            duration: ContinuousClock.now - start, operationName: operationName, extensions: extensions, caughtErrors: caughtErrors)
    }

    /// Sends `operation` over `route`. In persisted-only mode it goes by its id alone, whatever
    /// the route, and a server that does not know the id is a clear invalid request.
    func exchange(_ operation: OutgoingOperation, over route: Route) async throws(APIError) -> Exchanged {
        guard configuration.persistedQueries?.mode == .persistedOnly else { return try await send(operation, over: route) }
        do {
            return try await send(asSent(operation), over: route)
        } catch {
            throw PersistedQueryAnswers.persistedOnlyFailure(error, operationName: operation.name, id: operation.documentID)
        }
    }

    /// `operation` as this client sends it: in persisted-only mode by its id alone (as a GET for a
    /// query when configured), else as given.
    func asSent(_ operation: OutgoingOperation) -> OutgoingOperation {
        guard let options = configuration.persistedQueries, options.mode == .persistedOnly else { return operation }
        var sent = operation
        sent.sending = .hashOnly(operation.documentID)
        sent.useGET = operation.type == .query && options.useGETForHashedQueries
        return sent
    }

    private func send(_ operation: OutgoingOperation, over route: Route) async throws(APIError) -> Exchanged {
        switch route {
        case .http(let http): return try await send(operation, over: http)
        case .socket(let socket): return try await send(operation, over: socket)
        }
    }

    /// One HTTP request through the middleware chain; a body a middleware replaced is read as the
    /// innermost step would have.
    private func send(_ operation: OutgoingOperation, over route: HTTPRoute) async throws(APIError) -> Exchanged {
        var request = try GraphQLHTTP.makeRequest(
            url: route.url, operationName: operation.name, document: operation.document, variables: operation.variables, files: operation.files,
            useGET: operation.useGET, sending: operation.sending, accept: route.accept, conventions: .init(configuration))
        applyHeaders(operation.headers, to: &request)
        for header in route.withoutHeaders { request.setValue(nil, forHTTPHeaderField: header) }
        let context = RequestContext(
            kind: .graphQL(operation.type), operationName: operation.name, isIdempotent: operation.isIdempotent,
            documentID: operation.documentID, values: operation.values)
        let innermost = graphQLExchange(
            reading: route.reading, timeout: operation.timeout, operationName: operation.name, catching: operation.catching,
            batching: operation.allowsBatching)
        let response = try await chain.run(request, context: context, exchange: innermost)
        switch response.read {
        case .stream(let chunks)?: return Exchanged(response: response, body: .streaming(chunks))
        case .payload(let payload)?: return Exchanged(response: response, body: .payload(payload))
        case nil:
            let payload = try GraphQLHTTP.classify(response, operationName: operation.name, catching: operation.catching)
            return Exchanged(response: response, body: .payload(payload))
        }
    }

    /// The innermost step of the chain for a GraphQL request: the answer is parsed and classified
    /// (a status, GraphQL errors and a body that is not a GraphQL response become `APIError`s),
    /// and the payload travels with the response. An answer that streams (`multipart/mixed`,
    /// `text/event-stream`) reaches middleware as its head, carrying its chunks. Errors that
    /// fields of `catching` (the operation's selections, `@catch`) catch are not failures. With
    /// `batching`, a whole answer's request goes through the client's batcher, if it has one.
    private func graphQLExchange(reading: Reading, timeout: Duration?, operationName: String, catching selections: [Selection], batching: Bool)
        -> MiddlewareNext
    {
        let batcher = batching ? self.batcher : nil
        let timeout = timeout ?? configuration.timeout
        return { [self] request throws(APIError) in
            var response: TransportResponse
            if reading == .whole, let batcher {
                // The batch carries the trace context, once.
                response = try await batcher.send(request, timeout: timeout, operationName: operationName)
            } else if reading == .whole {
                response = try await transport.whole(spans.withTraceContext(request), timeout: timeout, limit: configuration.maxResponseSize)
            } else {
                let streamed = try await transport.streamed(spans.withTraceContext(request), timeout: timeout, openEnded: reading == .openEnded)
                response = streamed.head
                if (200..<300).contains(response.statusCode), GraphQLHTTP.streams(response) {
                    response.read = .stream(streamed.chunks)
                    return response
                }
                response.body = try await ResponseBody.chunks(streamed.chunks).collect(limit: configuration.maxResponseSize)
            }
            response.read = .payload(try GraphQLHTTP.classify(response, operationName: operationName, catching: selections))
            return response
        }
    }

    /// One operation over the subscription socket: a `subscribe` whose first result is the answer
    /// (the server's `complete` may follow), within the request's timeout.
    private func send(_ operation: OutgoingOperation, over socket: SubscriptionConnection) async throws(APIError) -> Exchanged {
        let url = configuration.subscriptions?.url
        let timeout = operation.timeout ?? configuration.timeout
        let outcome = await withTaskGroup(of: Result<ReadObject, APIError>?.self) { group in
            group.addTask { await Self.firstResult(of: operation, over: SocketSubscriptionChannel(connection: socket), url: url) }
            group.addTask {
                do {
                    try await Task.sleep(for: timeout)
                } catch {
                    return nil
                }
                return .failure(.transport(TransportFailure(kind: .timedOut, url: url, underlying: URLSessionTransport.timedOutText)))
            }
            defer { group.cancelAll() }
            for await result in group {
                if let result { return result }
            }
            return .failure(.cancelled)
        }
        let payload = try Self.payload(of: try outcome.get(), statusCode: nil, operationName: operation.name, catching: operation.catching)
        return Exchanged(response: TransportResponse(statusCode: 200, headers: [:], body: Data(), url: url), body: .payload(payload), overSocket: true)
    }

    /// The first result the channel gives for `operation`; leaving the stream then unsubscribes
    /// (a `complete` to the server, unless it completed first).
    private static func firstResult(of operation: OutgoingOperation, over channel: any SubscriptionChannel, url: URL?) async
        -> Result<ReadObject, APIError>
    {
        let events = channel.open(operation)
        defer { events.stop() }
        while let batch = await events.next() {
            for event in batch {
                switch event {
                case .connected, .state: continue
                case .payload(let payload): return .success(payload)
                case .error(let error), .dropped(let error): return .failure(error)
                case .complete:
                    return .failure(.invalidResponse(InvalidResponse(
                        kind: .noData, statusCode: nil, request: operation.name, bodyExcerpt: "the server completed the operation without a result")))
                }
            }
        }
        if Task.isCancelled { return .failure(.cancelled) }
        return .failure(.transport(TransportFailure(kind: .connectionLost, url: url, underlying: "the WebSocket ended before the operation's result")))
    }

    /// One GraphQL result that is not a whole HTTP body (an incremental answer's first part, a
    /// WebSocket `next`, a subscription event): its data with the errors its `@catch` fields
    /// caught; its errors otherwise, or no data, are thrown.
    static func payload(of result: ReadObject, statusCode: Int?, operationName: String, catching selections: [Selection]) throws(APIError)
        -> GraphQLPayload
    {
        let extensions = result["extensions"]?.objectValue
        switch try GraphQLResponseReading.read(result, statusCode: statusCode, operationName: operationName, catching: selections) {
        case .data(let whole?): return GraphQLPayload(data: whole, extensions: extensions)
        case .caught(let partial, let errors): return GraphQLPayload(data: .tree(partial), caughtErrors: errors, extensions: extensions)
        case .data(nil), .notGraphQL:
            throw .invalidResponse(InvalidResponse(
                kind: .noData, statusCode: statusCode, request: operationName, bodyExcerpt: JSONSerializer.string(.object(result.tree))))
        }
    }
}
