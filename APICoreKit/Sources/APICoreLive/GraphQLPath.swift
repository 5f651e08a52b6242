@_spi(Tools) @_spi(Generated) import APICore
import CoreMetrics
import Foundation
import Tracing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The path of a GraphQL query or mutation through the engine, top-down, one stage per section:
//
// 1. Policy: `fetch`, `responses`, `perform` decide whether the cache answers, the server,
//    or both, and in which order (`watch`, which goes on after them, is in Watching.swift).
// 2. Operation: `answer(to:)` applies persisted queries and their fallback, shares one
//    request among identical queries in flight, and asks for incremental delivery when the
//    operation has `@defer`.
// 3. Exchange: `exchange` sends one HTTP request through the app's middleware chain (see
//    `runChain` in LiveAPIClient.swift); its innermost step, `graphQLExchange`, classifies the
//    transport's answer so that middleware sees `APIError`s, and the parse travels with the
//    response (`TransportResponse.read`); a middleware that replaces the body drops it.
// 4. Response: `readAnswer` takes that parse (or parses a body a middleware replaced), once,
//    into the answer's data; an incremental answer's parts are read as they stream in.
// 5. Cache: `CacheWriter` writes the records into the store, whose watchers are told; with
//    incremental delivery, once per part, the increments merged into the data so far.
//
// Data is checked against the operation's selections once: the server's by `check`, whose walk
// (`SelectionValidator`) builds the records for stage 5 in the same pass; the cache's by the
// reader that rebuilds it from records (`CacheReader`). Both walk the selections with
// `SelectionVisitor.walk`. Stage 1 maps the checked data to the caller's value.
extension LiveAPIClient {
    /// What the server answered to one operation: the HTTP response and the data it carried, and
    /// for incremental delivery, the first payload and the parts still to come.
    struct ServerAnswer: Sendable {
        var response: TransportResponse
        var data: JSONObject
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

    /// Each result one server answer gives, as it is written to the cache: one for a whole
    /// answer, the first and then one per increment for incremental delivery.
    typealias Deliver<Value: Sendable> = (Result<Response<Value>, APIError>) -> Void

    // MARK: 1. Policy

    func fetch<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy) async throws(APIError)
        -> Response<Value>
    {
        try await tracedOperation(Query.self, cachePolicy: cachePolicy) { () async throws(APIError) in
            try await fetch(request, cachePolicy: cachePolicy, deliver: nil)
        }
    }

    /// `fetch`, with each result of the server's answer also given to `deliver` as it arrives.
    private func fetch<Query: GraphQLQuery, Value>(
        _ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy, deliver: Deliver<Value>?
    ) async throws(APIError) -> Response<Value> {
        switch cachePolicy {
        case .noCache:
            return try await fetchAndStore(request, storing: false, deliver: deliver)
        case .networkOnly:
            return try await fetchAndStore(request, deliver: deliver)
        case .cacheOnly:
            if let cached = await readFromCache(request, allowExpired: true, partial: request.allowsPartialCacheData) { return try cached.get() }
            throw .cacheMiss(Query.operationName)
        case .cacheElseNetwork:
            if let cached = await readFromCache(request, allowExpired: false) { return try cached.get() }
            return try await fetchOrFallBack(request, deliver: deliver)
        case .cacheAndNetwork:
            if let cached = await readFromCache(request, allowExpired: true, partial: request.allowsPartialCacheData) {
                // Answer now; the server's answer still updates the cache (and its watchers).
                refreshInBackground { () async throws(APIError) in _ = try await self.fetchAndStore(request) }
                return try cached.get()
            }
            return try await fetchOrFallBack(request, deliver: deliver)
        }
    }

    func responses<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy)
        -> APIStream<Result<Response<Value>, APIError>>
    {
        APIStream { continuation in
            let task = Task {
                var delivered = false
                let deliver: Deliver<Value> = { result in
                    delivered = true
                    continuation.yield(result)
                }
                let result = await Self.result { () async throws(APIError) in
                    try await self.tracedOperation(Query.self, cachePolicy: cachePolicy) { () async throws(APIError) in
                        if cachePolicy == .cacheAndNetwork {
                            if let cached = await self.readFromCache(request, allowExpired: true, partial: request.allowsPartialCacheData) {
                                continuation.yield(cached)
                            }
                            return try await self.fetchAndStore(request, deliver: deliver)
                        }
                        return try await self.fetch(request, cachePolicy: cachePolicy, deliver: deliver)
                    }
                }
                // The server's results were delivered as they came; a cache hit or a failure
                // before any result was not.
                if !delivered { continuation.yield(result) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func perform<Mutation: GraphQLMutation, Value>(_ request: GraphQLRequest<Mutation, Value>, optimisticResponse: Mutation.Data?)
        async throws(APIError) -> Response<Value>
    {
        try await tracedOperation(Mutation.self, cachePolicy: nil) { () async throws(APIError) in
            try await send(request, over: try await layOptimistic(optimisticResponse, of: request)?.id)
        }
    }

    /// Lays a mutation's optimistic response over the cache, checked against its selections first;
    /// answers the layer and its records (none without a response or a cache).
    func layOptimistic<Mutation: GraphQLMutation, Value>(_ data: Mutation.Data?, of request: GraphQLRequest<Mutation, Value>)
        async throws(APIError) -> (id: UInt64, records: [String: JSONObject])?
    {
        guard let data, store != nil else { return nil }
        let checked = try cacheWriter.check(
            local: data.__data._data, as: Mutation.Data.self, at: CacheNaming.rootKey(for: .mutation),
            named: "the optimistic response of \(Mutation.operationName)", variables: request.operation.variablesJSON)
        guard let id = await cacheWriter.lay(checked) else { return nil }
        return (id, checked.records)
    }

    /// Sends a mutation over its optimistic layer: the answer replaces the layer in the same step
    /// of the store; a failure takes it away, unless `keepsLayer` says it stays (for the queue).
    func send<Mutation: GraphQLMutation, Value>(
        _ request: GraphQLRequest<Mutation, Value>, over layer: UInt64?, keepingLayerOn keepsLayer: (APIError) -> Bool = { _ in false }
    ) async throws(APIError) -> Response<Value> {
        guard let layer, let store else { return try await fetchAndStore(request) }
        do {
            let response = try await fetchAndStore(request, replacingLayer: layer)
            // Gone already when the answer was written; not when the server said not to store it.
            await store.removeLayer(layer)
            return response
        } catch {
            if !keepsLayer(error) { await store.removeLayer(layer) }
            throw error
        }
    }

    /// Asks the server, writes the answer to the cache (unless `storing` is off), answers it.
    /// With errors, the fields that came with a value are written all the same (unless the
    /// configuration says not to), and the error is thrown. An answer delivered incrementally is
    /// written and given to `deliver` once per part; the result is the last one, and its error,
    /// if a part had errors, names all of them. `replacingLayer` is an optimistic layer that the
    /// answer's first write takes away.
    func fetchAndStore<Operation: GraphQLOperation, Value>(
        _ request: GraphQLRequest<Operation, Value>, storing: Bool = true, replacingLayer layer: UInt64? = nil, deliver: Deliver<Value>? = nil
    ) async throws(APIError) -> Response<Value> {
        let start = ContinuousClock.now
        let answer: ServerAnswer
        do {
            answer = try await self.answer(to: request)
        } catch {
            if storing, case .graphQL(let failure) = error, let partial = failure.partialData, configuration.cache?.writesPartialData == true {
                await storePartial(partial, errors: failure.errors, for: request)
            }
            throw error
        }
        let storing = storing && !answer.cachePolicy.noStore
        let checked = try check(
            answer.data, of: request, errors: answer.caughtErrors, policy: answer.cachePolicy, recording: storing, response: answer.response)
        let response = try respond(request, validated: checked.data, answer: answer, since: start)
        if storing {
            try await traced("cache write", attributes: { $0["apicore.records"] = checked.records.count }) { _ in
                await cacheWriter.write(checked, removingLayer: layer)
            }
        }
        guard let incremental = answer.incremental else {
            deliver?(.success(response))
            return response
        }
        return try await readIncrements(
            incremental, of: request, first: response, validated: checked.data, answer: answer, storing: storing, since: start, deliver: deliver)
    }

    /// The parts after the first of an incremental answer: each merged into the data so far,
    /// written to the cache and delivered. A labelled fragment whose fields are new to its object
    /// is validated and written on its own, so that a part costs what it brings; anything else
    /// (an unlabelled fragment, fields that overlap what was there) reads the whole data again.
    private func readIncrements<Operation: GraphQLOperation, Value>(
        _ incremental: Incremental, of request: GraphQLRequest<Operation, Value>, first: Response<Value>, validated: JSONObject,
        answer: ServerAnswer, storing: Bool, since start: ContinuousClock.Instant, deliver: Deliver<Value>?
    ) async throws(APIError) -> Response<Value> {
        let variables = request.operation.variablesJSON
        var result = try IncrementalResult(initial: incremental.initial)
        // Whether every error so far is caught: the first part's are (else it was thrown).
        var errorsCaught = true
        var validated = validated
        var latest = first
        deliver?(.success(first))
        do throws(APIError) {
            for await payload in incremental.later where result.hasNext {
                let span = tracer.startSpan("incremental part", context: InstrumentationContext.current ?? .topLevel)
                defer { span.end() }
                let update = try result.apply(try payload.get())
                if span.isRecording { span.attributes["apicore.streamed_items"] = update.streamedItems }
                // Every error so far (the first part's included), when `@catch` fields catch them
                // all: the data so far with each in its place.
                let caught = result.errors.isEmpty
                    ? nil : ErrorCatching.catching(result.errors, in: result.data, selections: Operation.Data.__selections)
                if !result.errors.isEmpty { errorsCaught = caught != nil }
                var records: ResponseRecords?
                if let applied = applyPiecewise(
                    update, result: result, to: validated, of: Operation.self, variables: variables, policy: answer.cachePolicy, records: &records)
                {
                    validated = applied
                    if storing, let records { await cacheWriter.write(records: records.records, expires: records.expires) }
                } else {
                    let checked = try check(
                        caught ?? result.data, of: request, errors: caught == nil ? update.errors : result.errors, policy: answer.cachePolicy,
                        recording: storing, response: answer.response)
                    validated = checked.data
                    if storing { await cacheWriter.write(checked) }
                }
                latest = try respond(request, validated: validated, answer: answer, since: start)
                if caught != nil { latest.metadata.caughtErrors = result.errors }
                deliver?(update.errors.isEmpty || caught != nil ? .success(latest) : .failure(.graphQL(GraphQLFailure(
                    errors: update.errors, partialData: result.data, statusCode: answer.response.statusCode, operationName: Operation.operationName))))
            }
            if Task.isCancelled { throw .cancelled }
            if result.hasNext {
                throw .transport(TransportFailure(
                    kind: .connectionLost, url: answer.response.url,
                    underlying: "the incremental response ended before its last part (hasNext was still true)"))
            }
        } catch {
            deliver?(.failure(error))
            throw error
        }
        guard errorsCaught else {
            throw .graphQL(GraphQLFailure(
                errors: result.errors, partialData: result.data, statusCode: answer.response.statusCode, operationName: Operation.operationName))
        }
        return latest
    }

    /// `validated` with the fragments `update` fulfilled validated in place, their records built
    /// in the same walk (in `records`, with a cache, their fields' expiry by the server's
    /// `policy`); `nil` when a fragment cannot be applied on its own.
    private func applyPiecewise<Operation: GraphQLOperation>(
        _ update: IncrementalResult.Update, result: IncrementalResult, to validated: JSONObject, of: Operation.Type, variables: JSONObject,
        policy: ServerCachePolicy, records: inout ResponseRecords?
    ) -> JSONObject? {
        // A part with errors: the whole data is read again, with the errors' paths left out of the
        // cache; so is a part with streamed list items, which the lists' selections check.
        guard update.errors.isEmpty, update.streamedItems == 0 else { return nil }
        // A part that completes nothing (data for a fragment still pending): nothing changes yet.
        if update.fulfilled.isEmpty { return validated }
        var validated = validated
        var validator = SelectionValidator(variables: variables, records: cacheWriter.records(variables: variables, policy: policy))
        let rootKey = CacheNaming.rootKey(for: Operation.operationType)
        for fragment in update.fulfilled {
            guard let label = fragment.label,
                let target = SelectionPath(
                    fragment.path, in: validated, selections: Operation.Data.__selections, parent: Operation.Data.__parentType, variables: variables),
                let deferred = target.deferred(labelled: label, variables: variables),
                case .object(let arrived)? = result.data.value(at: fragment.path)
            else { return nil }
            var keys: [String] = []
            SelectionValidator.collectKeys(of: deferred.selections, into: &keys)
            var object = target.object
            for key in keys where object[key] == nil {
                object[key] = arrived[key]
            }
            // A field the object had already may hold more now: the whole data is read again.
            if keys.contains(where: { target.object[$0] != nil && $0 != "__typename" }) { return nil }
            // The record the fragment's fields go into, named as the object with them is.
            var place: ResponseRecords.Place?
            if let builder = validator.records {
                var filled = validated
                guard filled.replaceObject(at: fragment.path.components[...], with: object) else { return nil }
                place = builder.recordKey(of: target, in: filled, rootKey: rootKey).map { builder.place(key: $0, at: fragment.path) }
            }
            do {
                guard try validator.validateArrived(
                    &object, deferral: deferred.deferral, selections: deferred.selections, in: deferred.parent, recordingAt: place)
                else { continue }
            } catch {
                return nil
            }
            guard validated.replaceObject(at: fragment.path.components[...], with: object) else { return nil }
        }
        records = validator.records
        return validated
    }

    /// `fetchAndStore`, but when the server cannot be reached, the cached data (expired or not),
    /// marked as an offline fallback.
    func fetchOrFallBack<Operation: GraphQLOperation, Value>(_ request: GraphQLRequest<Operation, Value>, deliver: Deliver<Value>? = nil)
        async throws(APIError) -> Response<Value>
    {
        do {
            return try await fetchAndStore(request, deliver: deliver)
        } catch {
            guard Self.isConnectivityFailure(error), let store else { throw error }
            let start = ContinuousClock.now
            let outcome = await store.read(Operation.self, variables: request.operation.variablesJSON, requestMaxAge: request.cacheMaxAge)
            guard let data = outcome.data else { throw error }
            return try Self.cachedResponse(request, read: outcome, data: data, start: start, offline: true).get()
        }
    }

    /// The cached data for a request, mapped; `nil` on a miss, or on expired data unless allowed.
    func readFromCache<Operation: GraphQLOperation, Value>(_ request: GraphQLRequest<Operation, Value>, allowExpired: Bool, partial: Bool = false)
        async -> Result<Response<Value>, APIError>?
    {
        guard let store else { return nil }
        let start = ContinuousClock.now
        let outcome = await store.read(
            Operation.self, variables: request.operation.variablesJSON, requestMaxAge: request.cacheMaxAge, partial: partial)
        let hit = outcome.data != nil && outcome.misses.isEmpty && (allowExpired || !outcome.stale)
        Counter(label: hit ? "apicore_cache_hits_total" : "apicore_cache_misses_total", dimensions: [("operation", Operation.operationName)], factory: metrics)
            .increment()
        // A partial read answers with what it found (its misses in the metadata).
        guard let data = outcome.data, hit || (partial && (allowExpired || !outcome.stale)) else { return nil }
        return Self.cachedResponse(request, read: outcome, data: data, start: start)
    }

    /// The server's data, validated already, mapped, with the exchange's metadata.
    func respond<Operation: GraphQLOperation, Value>(
        _ request: GraphQLRequest<Operation, Value>, validated: JSONObject, answer: ServerAnswer, since start: ContinuousClock.Instant
    ) throws(APIError) -> Response<Value> {
        let value = try request.value(of: Operation.Data(_dataDict: DataDict(_data: validated)))
        var metadata = metadata(
            for: answer.response, operationName: Operation.operationName, since: start, extensions: answer.extensions,
            caughtErrors: answer.caughtErrors)
        if answer.overWebSocket { metadata.statusCode = nil }
        return Response(value: value, metadata: metadata)
    }

    /// Cached data, mapped, marked as the cache's. The cache reader checked every field it read
    /// against the same selections, so the data is not validated again.
    static func cachedResponse<Operation: GraphQLOperation, Value>(
        _ request: GraphQLRequest<Operation, Value>, read: CacheRead, data: JSONObject, start: ContinuousClock.Instant, offline: Bool = false
    ) -> Result<Response<Value>, APIError> {
        Result { () throws(APIError) -> Response<Value> in
            let value = try request.value(of: Operation.Data(_dataDict: DataDict(_data: data)))
            return Response(value: value, metadata: ResponseMetadata(
                source: .cache, statusCode: nil, headers: [:], duration: ContinuousClock.now - start,
                operationName: Operation.operationName, isStale: read.stale, isOfflineFallback: offline, isOptimistic: read.optimistic,
                cacheMisses: read.misses))
        }
    }

    /// What `body` returns or throws, as a value.
    static func result<T>(_ body: () async throws(APIError) -> T) async -> Result<T, APIError> {
        do throws(APIError) {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    // MARK: 2. Operation

    /// The server's answer to an operation: over the WebSocket when it goes there, else over HTTP
    /// with persisted queries when configured (falling back to whole documents for a server that
    /// does not know them), shared with an identical query already in flight when de-duplication
    /// is on.
    func answer<Operation: GraphQLOperation, Value>(to request: GraphQLRequest<Operation, Value>) async throws(APIError) -> ServerAnswer {
        let socket = try webSocket(for: request)
        let send: @Sendable () async -> Result<ServerAnswer, APIError> = { [self] in
            await Self.result { () async throws(APIError) in
                if let socket { return try await exchange(request, over: socket) }
                return try await sendWithPersistedQueries(request)
            }
        }
        // An incremental answer is read as it streams, by one reader: not shared.
        guard Operation.operationType == .query && configuration.deduplicatesQueries && !GraphQLHTTP.isIncremental(Operation.document) else {
            return try await send().get()
        }
        if Task.isCancelled { throw .cancelled }
        let key = "\(Operation.operationName)\n\(JSONSerializer.string(.object(request.operation.variablesJSON)))\n"
            + request.headers.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
            + "\n" + Operation.document
        return try await inFlight.run(key: key, name: Operation.operationName, start: send).get()
    }

    /// One operation as persisted queries say: the hash alone, then the hash and the document when
    /// the server does not know the hash yet; the whole document for good when the server does
    /// not do persisted queries at all.
    private func sendWithPersistedQueries<Operation: GraphQLOperation, Value>(_ request: GraphQLRequest<Operation, Value>) async throws(APIError)
        -> ServerAnswer
    {
        let isQuery = Operation.operationType == .query
        let plainGET = isQuery && configuration.queryMethod == .get
        if let options = configuration.persistedQueries, options.mode == .persistedOnly {
            let id = Self.documentID(of: Operation.self)
            do {
                return try await exchange(request, document: .hashOnly(id), useGET: isQuery && options.useGETForHashedQueries)
            } catch {
                throw Self.persistedOnlyFailure(error, operationName: Operation.operationName, id: id)
            }
        }
        guard let options = configuration.persistedQueries, request.operation.__variables.files.isEmpty,
            persistedQueriesSupported.withLock({ $0 })
        else {
            return try await exchange(request, document: .full, useGET: plainGET)
        }
        let hash = Self.documentID(of: Operation.self)
        do {
            return try await exchange(request, document: .hashOnly(hash), useGET: isQuery && options.useGETForHashedQueries)
        } catch {
            if case .graphQL(let failure) = error, failure.errors.contains(where: Self.isPersistedQueryNotFound) {
                return try await exchange(request, document: .hashAndDocument(hash), useGET: false)
            }
            guard let reason = Self.persistedQueriesUnsupported(by: error) else { throw error }
            if persistedQueriesSupported.withLock({ let was = $0; $0 = false; return was }) {
                configuration.logger.notice(
                    "persisted queries: \(configuration.graphQLURL.absoluteString) \(reason); sending whole documents from now on")
            }
            return try await exchange(request, document: .full, useGET: plainGET)
        }
    }

    static func isPersistedQueryNotFound(_ error: GraphQLError) -> Bool {
        error.message == "PersistedQueryNotFound" || error.code == "PERSISTED_QUERY_NOT_FOUND"
    }

    /// What a failure of an operation sent by id alone means: an id the server does not know (APQ's
    /// `PersistedQueryNotFound`, Apollo Router's `PERSISTED_QUERY_NOT_IN_LIST`) or a server without
    /// persisted queries is an invalid request that names the operation and the id; anything else
    /// is the operation's own failure.
    static func persistedOnlyFailure(_ error: APIError, operationName: String, id: String) -> APIError {
        if case .graphQL(let failure) = error,
            failure.errors.contains(where: { isPersistedQueryNotFound($0) || $0.code == "PERSISTED_QUERY_NOT_IN_LIST" })
        {
            return .invalidRequest(
                "\(operationName): the server does not know the persisted operation id \(id) (persisted-only mode sends ids, never "
                    + "documents: add the generated operation manifest to the server's safelist)")
        }
        if let reason = persistedQueriesUnsupported(by: error) {
            return .invalidRequest(
                "\(operationName): the server \(reason) and persisted-only mode "
                    + "never sends documents (PersistedQueries.persistedOnly)")
        }
        return error
    }

    /// Why the answer to a request that carried an id and no document says the server does not do persisted queries, or
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
            return "does not know persisted queries (it answered a request without a document with \"\(missing.message.prefix(100))\")"
        case .httpStatus(let failure) where [400, 404, 405, 415, 422].contains(failure.statusCode):
            return "does not know persisted queries (it answered a request without a document with HTTP \(failure.statusCode))"
        case .invalidResponse(let failure):
            switch failure.kind {
            case .notJSON, .notGraphQLResponse: break
            case .wrongShape, .noData, .notBatchAnswer: return nil
            }
            return "does not know persisted queries (it answered a request without a document with a body that is not JSON"
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

    /// The subscription socket, when the request goes over it (``GraphQLRequest/usesWebSocket``,
    /// else ``SubscriptionConfiguration/carriesQueriesAndMutations``); operations with `@defer` or
    /// `@stream` and uploads stay on HTTP.
    private func webSocket<Operation: GraphQLOperation, Value>(for request: GraphQLRequest<Operation, Value>) throws(APIError)
        -> SubscriptionConnection?
    {
        guard request.usesWebSocket ?? configuration.subscriptions?.carriesQueriesAndMutations ?? false,
            !GraphQLHTTP.isIncremental(Operation.document), request.operation.__variables.files.isEmpty
        else { return nil }
        guard let subscriptions else {
            throw .invalidRequest(
                "\(Operation.operationName): the request asks for the WebSocket (usesWebSocket), but this client's subscriptions "
                    + "do not use one (APIClientConfiguration.subscriptions)")
        }
        return subscriptions
    }

    // MARK: 3. Exchange

    /// One operation over the subscription socket: a `subscribe` whose one result is the answer
    /// (the server's `complete` may follow), within the request's timeout. No HTTP middleware runs:
    /// the socket authenticated when it opened.
    private func exchange<Operation: GraphQLOperation, Value>(_ request: GraphQLRequest<Operation, Value>, over socket: SubscriptionConnection)
        async throws(APIError) -> ServerAnswer
    {
        let id = Self.documentID(of: Operation.self)
        let persistedOnly = configuration.persistedQueries?.mode == .persistedOnly
        let operation = SubscriptionOperation(
            name: Operation.operationName, document: Operation.document, variables: request.operation.variablesJSON, headers: request.headers,
            documentID: id, values: request.values, persistedID: persistedOnly ? id : nil)
        let url = configuration.subscriptions?.url
        let timeout = request.timeout ?? configuration.timeout
        let outcome = await withTaskGroup(of: Result<JSONObject, APIError>?.self) { group in
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
        do throws(APIError) {
            let payload = try outcome.get()
            let (data, caught) = try Self.data(
                of: payload, statusCode: nil, operationName: Operation.operationName, catching: Operation.Data.__selections)
            let extensions = payload["extensions"]?.objectValue
            return ServerAnswer(
                response: TransportResponse(statusCode: 200, headers: [:], body: Data(), url: url), data: data,
                cachePolicy: ServerCachePolicy(headers: [:], extensions: extensions), extensions: extensions, caughtErrors: caught,
                overWebSocket: true)
        } catch {
            throw persistedOnly ? Self.persistedOnlyFailure(error, operationName: Operation.operationName, id: id) : error
        }
    }

    /// The first result the channel gives for `operation`; leaving the stream then unsubscribes
    /// (a `complete` to the server, unless it completed first).
    private static func firstResult(of operation: SubscriptionOperation, over channel: any SubscriptionChannel, url: URL?) async
        -> Result<JSONObject, APIError>
    {
        for await event in channel.open(operation) {
            switch event {
            case .connected, .state: continue
            case .payload(let payload): return .success(payload)
            case .error(let error), .dropped(let error): return .failure(error)
            case .complete:
                return .failure(.invalidResponse(InvalidResponse(
                    kind: .noData, statusCode: nil, request: operation.name, bodyExcerpt: "the server completed the operation without a result")))
            }
        }
        if Task.isCancelled { return .failure(.cancelled) }
        return .failure(.transport(TransportFailure(kind: .connectionLost, url: url, underlying: "the WebSocket ended before the operation's result")))
    }

    /// An operation's document id: the generator's persisted-query id, else the SHA-256 of its
    /// document, worked out once per operation type.
    static func documentID<Operation: GraphQLOperation>(of _: Operation.Type) -> String {
        if let known = documentIDs.withLock({ $0[Operation.document] }) { return known }
        let id = Operation.operationIdentifier ?? SHA256.hexDigest(Operation.document)
        documentIDs.withLock { $0[Operation.document] = id }
        return id
    }

    /// The id of a document as text (a queued mutation's, stored without its type): the id its
    /// operation type gave, once worked out, else its SHA-256.
    static func documentID(ofText document: String) -> String {
        documentIDs.withLock { $0[document] } ?? SHA256.hexDigest(document)
    }

    /// Ids by document text.
    private static let documentIDs = Locked<[String: String]>([:])

    /// One HTTP request for the operation through the middleware chain, and its answer read.
    private func exchange<Operation: GraphQLOperation, Value>(
        _ request: GraphQLRequest<Operation, Value>, document: GraphQLHTTP.Document, useGET: Bool
    ) async throws(APIError) -> ServerAnswer {
        let incremental = GraphQLHTTP.isIncremental(Operation.document)
        var urlRequest = try GraphQLHTTP.makeRequest(
            url: configuration.graphQLURL, operation: request.operation, variables: request.operation.variablesJSON, useGET: useGET,
            document: document, accept: incremental ? GraphQLHTTP.acceptIncremental : GraphQLHTTP.accept, conventions: .init(configuration))
        applyHeaders(request.headers, to: &urlRequest)
        let context = RequestContext(
            kind: .graphQL(Operation.operationType), operationName: Operation.operationName, isIdempotent: request.isIdempotent,
            documentID: Self.documentID(of: Operation.self), values: request.values)
        let exchange = graphQLExchange(
            reading: incremental ? .streamed : .whole, timeout: request.timeout, operationName: Operation.operationName,
            catching: Operation.Data.__selections, batching: request.allowsBatching)
        let response = try await runChain(urlRequest, context: context, exchange: exchange)
        return try await readAnswer(response, operationName: Operation.operationName, catching: Operation.Data.__selections)
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

    /// The innermost step of the chain for a GraphQL request: the answer is parsed and classified
    /// (a status, GraphQL errors and a body that is not a GraphQL response become `APIError`s),
    /// and the parse travels with the response. An answer that streams (`multipart/mixed`)
    /// reaches middleware as its head, carrying its chunks. Errors that fields of `catching` (the
    /// operation's selections, `@catch`) catch are not failures. With `batching`, a whole answer's
    /// request goes through the client's batcher, if it has one.
    func graphQLExchange(
        reading: Reading, timeout: Duration?, operationName: String, catching selections: [Selection] = [], batching: Bool = false
    ) -> MiddlewareNext {
        let transport = self.transport
        let batcher = batching ? self.batcher : nil
        let timeout = timeout ?? configuration.timeout
        return { [self] request throws(APIError) in
            var response: TransportResponse
            if reading == .whole, let batcher {
                // The batch carries the trace context, once.
                response = try await batcher.send(request, timeout: timeout, operationName: operationName)
            } else if reading == .whole {
                response = try await transport.send(self.withTraceContext(request), timeout: timeout)
            } else {
                let streamed = try await transport.stream(self.withTraceContext(request), timeout: timeout, openEnded: reading == .openEnded)
                response = streamed.head
                if (200..<300).contains(response.statusCode), GraphQLHTTP.streams(response) {
                    response.read = .stream(streamed.chunks)
                    return response
                }
                response.body = try await LiveAPIClient.collect(streamed.chunks)
            }
            response.read = .json(try GraphQLHTTP.classify(response, operationName: operationName, catching: selections))
            return response
        }
    }

    // MARK: 4. Response

    /// The data of the response the chain returned: from the parse it carries, or, when a
    /// middleware replaced the body, from the new body, checked as the innermost step would have.
    /// An incremental answer's first part is read here, the rest by the policy stage.
    func readAnswer(_ response: TransportResponse, operationName: String, catching selections: [Selection] = []) async throws(APIError)
        -> ServerAnswer
    {
        if case .stream(let chunks)? = response.read, let boundary = GraphQLHTTP.multipartBoundary(of: response) {
            let payloads = IncrementalParts.payloads(of: chunks, boundary: boundary, operationName: operationName)
            var iterator = payloads.makeAsyncIterator()
            guard let first = try await iterator.next()?.get() else {
                throw .transport(TransportFailure(kind: .connectionLost, url: response.url, underlying: "the incremental response ended before its first part"))
            }
            let (data, caught) = try Self.data(of: first, statusCode: response.statusCode, operationName: operationName, catching: selections)
            return ServerAnswer(
                response: response, data: data, incremental: Incremental(initial: first, later: payloads),
                cachePolicy: ServerCachePolicy(headers: response.headers, extensions: first["extensions"]?.objectValue), caughtErrors: caught)
        }
        let body: JSONValue
        if case .json(let parsed)? = response.read {
            body = parsed
        } else {
            body = try GraphQLHTTP.classify(response, operationName: operationName, catching: selections)
        }
        guard let data = body["data"]?.objectValue else {
            throw .invalidResponse(InvalidResponse(
                kind: .noData, statusCode: response.statusCode, request: operationName, bodyExcerpt: HTTPFailure.excerpt(of: response.body)))
        }
        let extensions = body["extensions"]?.objectValue
        return ServerAnswer(
            response: response, data: data, cachePolicy: ServerCachePolicy(headers: response.headers, extensions: extensions),
            extensions: extensions, caughtErrors: (body[GraphQLHTTP.caughtErrorsKey]?.arrayValue ?? []).map(GraphQLError.init(json:)))
    }

    /// The data of one GraphQL payload that is not a whole HTTP body (an incremental answer's
    /// first part, a WebSocket `next`), and the errors its `@catch` fields caught; its errors
    /// otherwise, or no data, are thrown.
    static func data(of payload: JSONObject, statusCode: Int?, operationName: String, catching selections: [Selection]) throws(APIError)
        -> (data: JSONObject, caught: [GraphQLError])
    {
        switch try GraphQLResponseReading.read(.object(payload), statusCode: statusCode, operationName: operationName, catching: selections) {
        case .data(let whole?): return (whole, [])
        case .caught(let partial, let errors): return (partial, errors)
        case .data(nil), .notGraphQL:
            throw .invalidResponse(InvalidResponse(
                kind: .noData, statusCode: statusCode, request: operationName, bodyExcerpt: JSONSerializer.string(.object(payload))))
        }
    }

    // MARK: 5. Cache

    /// A server's data checked against the operation's selections, with its records built in the
    /// same walk (unless not `recording`): `errors` are those of partial data, `policy` what the
    /// server said of caching it.
    func check<Operation: GraphQLOperation, Value>(
        _ data: JSONObject, of request: GraphQLRequest<Operation, Value>, errors: [GraphQLError] = [], policy: ServerCachePolicy = .none,
        recording: Bool = true, response: TransportResponse?
    ) throws(APIError) -> CacheWriter.Checked<Operation.Data> {
        do throws(GraphQLDecodingError) {
            return try cacheWriter.check(
                data, as: Operation.Data.self, at: CacheNaming.rootKey(for: Operation.operationType), variables: request.operation.variablesJSON,
                errors: errors, policy: policy, mergingPages: true, recording: recording)
        } catch {
            throw .invalidResponse(InvalidResponse(
                kind: .wrongShape(error.prefixed(by: .field("data"))), statusCode: response?.statusCode, request: Operation.operationName,
                bodyExcerpt: HTTPFailure.excerpt(of: response?.body ?? Data())))
        }
    }

    /// Writes the partial data of a response with errors, when it has the shape the operation
    /// selects (a spec-compliant server nulls the nearest nullable parent of a failed field); the
    /// fields the errors name are left as they were.
    private func storePartial<Operation: GraphQLOperation, Value>(
        _ data: JSONObject, errors: [GraphQLError], for request: GraphQLRequest<Operation, Value>
    ) async {
        do throws(APIError) {
            await cacheWriter.write(try check(data, of: request, errors: errors, response: nil))
        } catch {
            configuration.logger.debug("\(Operation.operationName): partial data not cached, it does not fit the selection: \(error)")
        }
    }
}
