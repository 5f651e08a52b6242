@_spi(Generated) import APICore
import CoreMetrics
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The engine's `APIClient`: builds HTTP requests, runs them through the middleware chain, and
/// turns the answers into values or `APIError`s.
final class LiveAPIClient: APIClient {
    let configuration: APIClientConfiguration
    let transport: any HTTPTransport
    /// The normalized cache, when the configuration has one.
    let store: NormalizedStore?
    /// Metrics outermost (one count per logical request), the app's middlewares, retries,
    /// authentication (so that every retry carries the freshest token), logging innermost (one
    /// line per real exchange).
    let middlewares: [any Middleware]
    let metrics: any MetricsFactory
    let inFlight = InFlightQueries()
    /// Whether the server still takes persisted-query hashes (it said `PersistedQueryNotSupported`).
    let persistedQueriesSupported = Locked(true)
    /// The subscriptions' shared socket, when the configuration has subscriptions.
    let subscriptions: SubscriptionConnection?

    init(configuration: APIClientConfiguration, transport: any HTTPTransport) {
        self.configuration = configuration
        self.transport = transport
        store = configuration.cache.map { cache in
            NormalizedStore(persistent: cache.storage.persistent, maxAgeByType: cache.maxAge, logger: configuration.logger)
        }
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
    }

    // MARK: REST

    func send<Value>(_ request: RESTRequest<Value>) async throws(APIError) -> Response<Value> {
        let start = ContinuousClock.now
        let urlRequest = try makeURLRequest(request)
        let context = RequestContext(kind: .rest, operationName: request.summary, isIdempotent: request.isIdempotent)
        let response = try await runChain(urlRequest, context: context, timeout: request.timeout) { response throws(APIError) in
            try Self.checkRESTStatus(response)
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
        guard var components = URLComponents(string: base + path) else {
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
        if let body = request.body {
            do {
                urlRequest.httpBody = try configuration.makeJSONEncoder().encode(body)
            } catch {
                throw .invalidRequest("the body of \(request.summary) could not be encoded as JSON: \(error)")
            }
            urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
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

    // MARK: GraphQL

    func perform<Mutation: GraphQLMutation, Value>(_ request: GraphQLRequest<Mutation, Value>) async throws(APIError)
        -> Response<Value>
    {
        try await fetchAndStore(request)
    }

    /// Sends an operation to the server and maps its answer, keeping the validated data for the cache.
    func executeOnServer<Operation: GraphQLOperation, Value>(_ request: GraphQLRequest<Operation, Value>) async throws(APIError)
        -> ServerResult<Value>
    {
        let start = ContinuousClock.now
        let variables = request.operation.variablesJSON
        let isQuery = Operation.operationType == .query
        let context = RequestContext(
            kind: .graphQL(Operation.operationType), operationName: Operation.operationName, isIdempotent: request.isIdempotent)
        let send: @Sendable (GraphQLHTTP.Document, Bool) async -> InFlightQueries.Shared = { [self] document, useGET in
            do throws(APIError) {
                var urlRequest = try GraphQLHTTP.makeRequest(
                    url: configuration.graphQLURL, operation: request.operation, variables: variables, useGET: useGET, document: document)
                applyHeaders(request.headers, to: &urlRequest)
                let response = try await runChain(urlRequest, context: context, timeout: request.timeout) { response throws(APIError) in
                    try GraphQLHTTP.readResponse(&response, operationName: Operation.operationName)
                }
                return .success((response, try GraphQLHTTP.data(of: response, operationName: Operation.operationName)))
            } catch {
                return .failure(error)
            }
        }
        let plainGET = isQuery && configuration.queryMethod == .get
        let usesPersistedQueries = configuration.persistedQueries != nil && request.operation.__variables.files.isEmpty
            && persistedQueriesSupported.withLock { $0 }
        let exchange: @Sendable () async -> InFlightQueries.Shared = { [self] in
            guard usesPersistedQueries, let options = configuration.persistedQueries else { return await send(.full, plainGET) }
            let hash = Operation.operationIdentifier ?? SHA256.hexDigest(Operation.document)
            let hashed = await send(.hashOnly(hash), isQuery && options.useGETForHashedQueries)
            guard case .failure(let error) = hashed else { return hashed }
            if case .graphQL(let failure) = error, failure.errors.contains(where: Self.isPersistedQueryNotFound) {
                return await send(.hashAndDocument(hash), false)
            }
            guard let reason = Self.persistedQueriesUnsupported(by: error) else { return hashed }
            if persistedQueriesSupported.withLock({ let was = $0; $0 = false; return was }) {
                configuration.logger.notice(
                    "persisted queries: \(configuration.graphQLURL.absoluteString) \(reason); sending whole documents from now on")
            }
            return await send(.full, plainGET)
        }
        let dedupKey = "\(Operation.operationName)\n\(JSONSerializer.string(.object(variables)))\n"
            + request.headers.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        let shared: InFlightQueries.Shared
        if Operation.operationType == .query && configuration.deduplicatesQueries {
            if Task.isCancelled { throw .cancelled }
            shared = await inFlight.run(key: dedupKey + Operation.document, start: exchange)
        } else {
            shared = await exchange()
        }
        let (response, dataObject) = try shared.get()
        let value = try request.value(from: dataObject, statusCode: response.statusCode, body: response.body)
        return ServerResult(
            response: Response(value: value, metadata: metadata(for: response, operationName: Operation.operationName, since: start)),
            data: dataObject)
    }

    static func isPersistedQueryNotFound(_ error: GraphQLError) -> Bool {
        error.message == "PersistedQueryNotFound" || error.code == "PERSISTED_QUERY_NOT_FOUND"
    }

    /// Why the answer to a hash-only request says the server does not do persisted queries, or
    /// `nil` when it says something else (an error of the operation, an outage, credentials):
    /// - `PersistedQueryNotSupported` (message or code), as APQ servers say when it is off;
    /// - an error without data about the request having no query, as servers that never heard of
    ///   APQ say ("No GraphQL query found in the request", "The query must be a string.", "Must
    ///   provide query string.", "… must contain a non-empty `query` …"), with any status;
    /// - HTTP 400, 404, 405, 415 or 422 whose body is not a GraphQL response, or a body that is not
    ///   JSON at all (an HTML page answering a GET).
    static func persistedQueriesUnsupported(by error: APIError) -> String? {
        switch error {
        case .graphQL(let failure):
            if failure.errors.contains(where: { $0.message == "PersistedQueryNotSupported" || $0.code == "PERSISTED_QUERY_NOT_SUPPORTED" }) {
                return "answered PersistedQueryNotSupported"
            }
            guard failure.partialData == nil, let missing = failure.errors.first(where: { isMissingQuery($0.message) }) else { return nil }
            return "does not know persisted queries (it answered a hash-only request with \"\(missing.message.prefix(100))\")"
        case .httpStatus(let failure) where [400, 404, 405, 415, 422].contains(failure.statusCode):
            return "does not know persisted queries (it answered a hash-only request with HTTP \(failure.statusCode))"
        case .invalidResponse(let failure):
            switch failure.kind {
            case .notJSON, .notGraphQLResponse: break
            case .wrongShape, .noData: return nil
            }
            return "does not know persisted queries (it answered a hash-only request with a body that is not JSON"
                + (failure.statusCode.map { ", HTTP \($0)" } ?? "") + ")"
        default:
            return nil
        }
    }

    /// A request-level error that says the request carried no query.
    static func isMissingQuery(_ message: String) -> Bool {
        let text = message.lowercased()
        guard text.contains("query") else { return false }
        return ["no graphql query", "must be a string", "must provide", "non-empty", "missing", "no query", "not provided", "is required"]
            .contains { text.contains($0) }
    }

    // MARK: Chain

    /// Runs the middleware chain around the transport. `check` runs innermost, on the raw
    /// response, so that middleware sees status and GraphQL errors as `APIError`s.
    func runChain(
        _ request: URLRequest,
        context: RequestContext,
        timeout: Duration?,
        check: @escaping @Sendable (inout TransportResponse) throws(APIError) -> Void
    ) async throws(APIError) -> TransportResponse {
        let transport = self.transport
        let timeout = timeout ?? configuration.timeout
        let middlewares = self.middlewares
        let terminal: MiddlewareNext = { request throws(APIError) in
            var response = try await transport.send(request, timeout: timeout)
            try check(&response)
            return response
        }
        return try await Self.call(middlewares[...], request: request, context: context, terminal: terminal)
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

    func metadata(for response: TransportResponse, operationName: String, since start: ContinuousClock.Instant) -> ResponseMetadata {
        ResponseMetadata(
            source: .server, statusCode: response.statusCode, headers: response.headers,
            duration: ContinuousClock.now - start, operationName: operationName)
    }
}
