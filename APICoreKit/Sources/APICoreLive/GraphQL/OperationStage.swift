@_spi(Engine) @_spi(Tools) @_spi(Generated) import APICore
import APICoreSupport
import Foundation

/// The operation stage: what happens to an operation between the policy and the exchange. Queries
/// identical to one in flight share its answer; with persisted queries, an operation goes by its
/// hash first and its document only when the server asks; an operation with `@defer` or `@stream`
/// asks for incremental delivery, its first part read here and the rest left to the pipeline.
struct OperationStage: Sendable {
    let configuration: APIClientConfiguration
    let exchange: Exchange
    /// Queries waiting for the server that identical queries share.
    let inFlight: InFlightQueries
    /// Whether the server still takes persisted-query hashes (it said `PersistedQueryNotSupported`).
    let persistedQueriesSupported = Locked(true)

    /// What the server answered to one operation: the HTTP response and the data it carried, and
    /// for incremental delivery, the first payload and the parts still to come.
    struct ServerAnswer: Sendable {
        var response: TransportResponse
        var data: ReadObject
        var incremental: Incremental?
        /// What the server said about caching the answer.
        var cachePolicy: ServerCachePolicy
        /// The answer's `extensions`.
        var extensions: JSONObject?
        /// The errors that fields with `@catch` caught (the data holds them).
        var caughtErrors: [GraphQLError] = []
        /// Whether it came over the WebSocket, which has no HTTP status.
        var overWebSocket = false
    }

    /// An answer delivered in parts (`@defer`).
    struct Incremental: Sendable {
        /// The first payload, whole (`data`, `hasNext`, `pending`…).
        var initial: JSONObject
        /// The payloads after it, as they arrive.
        var later: APIStream<Result<JSONObject, APIError>>
    }

    /// The server's answer to an operation: over the WebSocket when it goes there, else over HTTP
    /// with persisted queries when configured, shared with an identical query already in flight
    /// when de-duplication is on.
    func answer<Operation: GraphQLOperation, Value>(to request: GraphQLRequest<Operation, Value>) async throws(APIError) -> ServerAnswer {
        let operation = OutgoingOperation(request, useGET: Operation.operationType == .query && configuration.queryMethod == .get)
        let route = try route(of: operation, usesWebSocket: request.usesWebSocket)
        let send: @Sendable () async -> Result<ServerAnswer, APIError> = { [self] in
            await Result.of { () async throws(APIError) in
                try await read(try await sendWithPersistedQueries(operation, over: route), of: operation)
            }
        }
        // An incremental answer is read as it streams, by one reader: not shared.
        guard operation.type == .query && configuration.deduplicatesQueries && !operation.isIncremental else {
            return try await send().get()
        }
        if Task.isCancelled { throw .cancelled }
        let key = "\(operation.name)\n\(JSONSerializer.string(.object(operation.variables)))\n"
            + operation.headers.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
            + "\n" + operation.document
        return try await inFlight.run(key: key, name: operation.name, start: send).get()
    }

    /// The subscription socket, when the operation goes over it (`usesWebSocket`, else
    /// ``SubscriptionConfiguration/carriesQueriesAndMutations``; operations with `@defer` or
    /// `@stream` and uploads stay on HTTP), else the GraphQL endpoint.
    private func route(of operation: OutgoingOperation, usesWebSocket: Bool?) throws(APIError) -> Exchange.Route {
        guard usesWebSocket ?? configuration.subscriptions?.carriesQueriesAndMutations ?? false, !operation.isIncremental, operation.files.isEmpty
        else { return .http(exchange.graphQLRoute(for: operation)) }
        guard let socket = exchange.socket else {
            throw .invalidRequest(
                "\(operation.name): the request asks for the WebSocket (usesWebSocket), but this client's subscriptions "
                    + "do not use one (APIClientConfiguration.subscriptions)")
        }
        return .socket(socket)
    }

    /// One operation over HTTP as automatic persisted queries say: the hash alone, then the hash
    /// and the document when the server does not know the hash yet; the whole document for good
    /// when the server does not do persisted queries at all. (Persisted-only mode is the
    /// exchange's: every request carries the id alone.)
    private func sendWithPersistedQueries(_ operation: OutgoingOperation, over route: Exchange.Route) async throws(APIError)
        -> Exchange.Exchanged
    {
        guard let options = configuration.persistedQueries, options.mode != .persistedOnly, case .http = route, operation.files.isEmpty,
            persistedQueriesSupported.withLock({ $0 })
        else {
            return try await exchange.exchange(operation, over: route)
        }
        var hashed = operation
        hashed.sending = .hashOnly(operation.documentID)
        hashed.useGET = operation.type == .query && options.useGETForHashedQueries
        do {
            return try await exchange.exchange(hashed, over: route)
        } catch {
            if case .graphQL(let failure) = error, failure.errors.contains(where: PersistedQueryAnswers.isPersistedQueryNotFound) {
                var both = operation
                both.sending = .hashAndDocument(operation.documentID)
                both.useGET = false
                return try await exchange.exchange(both, over: route)
            }
            guard let reason = PersistedQueryAnswers.persistedQueriesUnsupported(by: error) else { throw error }
            if persistedQueriesSupported.withLock({ let was = $0; $0 = false; return was }) {
                configuration.logger.notice(
                    "persisted queries: \(configuration.graphQLURL.absoluteString) \(reason); sending whole documents from now on")
            }
            return try await exchange.exchange(operation, over: route)
        }
    }

    /// The answer an exchange brought, read: its payload, or an incremental answer's first part
    /// with the parts still to come.
    func read(_ exchanged: Exchange.Exchanged, of operation: OutgoingOperation) async throws(APIError) -> ServerAnswer {
        let response = exchanged.response
        switch exchanged.body {
        case .payload(let payload):
            return ServerAnswer(
                response: response, data: payload.data, cachePolicy: ServerCachePolicy(headers: response.headers, extensions: payload.extensions),
                extensions: payload.extensions, caughtErrors: payload.caughtErrors, overWebSocket: exchanged.overSocket)
        case .streaming(let chunks):
            guard let boundary = GraphQLHTTP.multipartBoundary(of: response) else {
                throw .invalidResponse(InvalidResponse(
                    kind: .notGraphQLResponse, statusCode: response.statusCode, request: operation.name,
                    bodyExcerpt: "a \(response.mediaType ?? "streamed") answer, which only a subscription reads"))
            }
            let payloads = IncrementalParts.payloads(
                of: chunks, boundary: boundary, operationName: operation.name, maxPartSize: configuration.maxResponseSize)
            var iterator = payloads.makeAsyncIterator()
            guard let first = try await iterator.next()?.get() else {
                throw .transport(TransportFailure(kind: .connectionLost, url: response.url, underlying: "the incremental response ended before its first part"))
            }
            let payload = try Exchange.payload(of: .tree(first), statusCode: response.statusCode, operationName: operation.name, catching: operation.catching)
            return ServerAnswer(
                response: response, data: payload.data, incremental: Incremental(initial: first, later: payloads),
                cachePolicy: ServerCachePolicy(headers: response.headers, extensions: payload.extensions), caughtErrors: payload.caughtErrors)
        }
    }
}
