@_spi(Tools) import enum APICore.SHA256
import APICoreServerSupport
import Foundation
import GraphQL
import HTTPTypes
import Hummingbird
import NIOCore

/// Whether a GraphQL request carried the current bearer token.
struct AuthContext: Sendable {
    var authorized: Bool
}

/// A REST item, as `/items` stores and returns it.
struct JSONItem: Codable, Sendable {
    var id: String
    var name: String
    var price: Double
    var tags: [String]
}

struct ItemInput: Codable, Sendable {
    var name: String?
    var price: Double?
    var tags: [String]?
}

enum Routes {
    static func register(on router: Router<BasicRequestContext>, state: Locked<TestServer.State>, schema: GraphQLSchema) {
        router.middlewares.add(Recorder(state: state))

        for (path, format) in [("/graphql", IncrementalFormat.current), ("/graphql-2022", .v2022)] {
            router.post(RouterPath(path)) { request, _ in
                var request = request
                let body = try await request.collectBody(upTo: 16 << 20)
                let accept = request.headers[.accept] ?? ""
                let parsed = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))
                if let batch = parsed as? [Any] {
                    return try await answerBatch(batch, request: request, state: state, schema: schema)
                }
                guard let json = parsed as? [String: Any] else {
                    return plain(400, "expected a JSON body")
                }
                let extensions = json["extensions"] as? [String: Any]
                let query: String
                switch persistedQuery(query: json["query"] as? String, extensions: extensions, state: state) {
                case .success(let resolved): query = resolved
                case .failure(let error): return error.response
                }
                let variables = json["variables"].flatMap { try? JSONSerialization.data(withJSONObject: $0) }
                // A subscription over HTTP with a stale bearer token is refused before it streams, as
                // a gateway that checks tokens would.
                if let header = request.headers[.authorization], header != "Bearer \(state.withLock { $0.accessToken })",
                    GraphQLHTTPResponder.operation(in: query, named: json["operationName"] as? String)?.1.operation == .subscription
                {
                    return plain(401, "missing or stale token")
                }
                let incremental = IncrementalDelivery.Options(
                    format: format, cutAfter: state.withLock { $0.cutIncrementalAfter }, partDelay: state.withLock { $0.incrementalPartDelay },
                    onClientGone: { state.withLock { $0.abandonedIncrementalAnswers += 1 } })
                let subscriptions = state.withLock { current in
                    StreamedSubscriptions.Options(
                        heartbeat: current.subscriptionHeartbeat, failAfter: current.failSubscriptionStreamsAfter,
                        cutAfter: current.cutSubscriptionStreamsAfter,
                        onClientGone: { state.withLock { $0.abandonedSubscriptionStreams += 1 } },
                        onHeartbeat: { state.withLock { $0.subscriptionHeartbeatsSent += 1 } })
                }
                return try await GraphQLHTTPResponder.execute(
                    schema: schema, query: query, operationName: json["operationName"] as? String, variablesJSON: variables,
                    accept: accept, context: authContext(request, state), incremental: incremental, subscriptions: subscriptions)
            }
        }

        router.get("/graphql") { request, _ in
            let parameters = request.uri.queryParameters
            let extensions = parameters.get("extensions").flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            let query: String
            switch persistedQuery(query: parameters.get("query"), extensions: extensions, state: state) {
            case .success(let resolved): query = resolved
            case .failure(let error): return error.response
            }
            let variables = parameters.get("variables").map { Data($0.utf8) }
            let accept = request.headers[.accept] ?? ""
            guard let maxAge = state.withLock({ $0.getAnswerMaxAge }), !accept.contains("multipart/mixed") else {
                return try await GraphQLHTTPResponder.execute(
                    schema: schema, query: query, operationName: parameters.get("operationName"), variablesJSON: variables,
                    accept: accept, context: authContext(request, state))
            }
            // As a CDN-fronted server answers GETs: cacheable for maxAge, with an ETag that a
            // conditional request (If-None-Match) is answered 304 against.
            let answer = try await GraphQLHTTPResponder.single(
                schema: schema, query: query, operationName: parameters.get("operationName"), variablesJSON: variables, accept: accept,
                context: authContext(request, state))
            let etag = "\"\(SHA256.hexDigest(String(decoding: answer.body, as: UTF8.self)).prefix(16))\""
            var response: Response
            if request.headers[.ifNoneMatch] == etag {
                state.withLock { $0.notModifiedCount += 1 }
                response = Response(status: .notModified)
            } else {
                response = Responses.body(answer.status, answer.body, contentType: answer.contentType)
            }
            response.headers[.cacheControl] = "public, max-age=\(maxAge)"
            response.headers[.eTag] = etag
            return response
        }

        // Bearer tokens: log in, refresh (counted; can be made to fail), and a protected resource.
        router.post("/auth/login") { _, _ in
            let tokens = state.withLock { state -> [String: String] in
                state.tokenGeneration += 1
                state.accessToken = "access-\(state.tokenGeneration)"
                state.refreshToken = "refresh-\(state.tokenGeneration)"
                return ["accessToken": state.accessToken, "refreshToken": state.refreshToken]
            }
            return try json(200, tokens)
        }
        router.post("/auth/refresh") { request, context in
            let body = try await request.decode(as: [String: String].self, context: context)
            // Slow enough that concurrent requests pile up behind one refresh.
            try await Task.sleep(for: .milliseconds(100))
            let tokens = state.withLock { state -> [String: String]? in
                guard !state.refreshFails, body["refreshToken"] == state.refreshToken else { return nil }
                state.refreshCount += 1
                state.tokenGeneration += 1
                state.accessToken = "access-\(state.tokenGeneration)"
                state.refreshToken = "refresh-\(state.tokenGeneration)"
                return ["accessToken": state.accessToken, "refreshToken": state.refreshToken]
            }
            guard let tokens else { return plain(401, "refresh token rejected") }
            return try json(200, tokens)
        }
        router.get("/me") { request, _ in
            guard authContext(request, state).authorized else {
                var response = plain(401, "missing or stale token")
                response.headers[.wwwAuthenticate] = "Bearer"
                return response
            }
            return try json(200, ["name": "Ada"])
        }

        // GraphQL multipart uploads: records each file by the variable path the map gives it and
        // answers `upload { path filename size }`.
        router.post("/upload") { request, _ in
            var request = request
            let body = Data(try await request.collectBody(upTo: 64 << 20).readableBytesView)
            guard let contentType = request.headers[.contentType], contentType.hasPrefix("multipart/form-data"),
                let parts = Multipart.parse(body, contentType: contentType),
                let operations = parts.first(where: { $0.name == "operations" }),
                let mapPart = parts.first(where: { $0.name == "map" }),
                let map = try? JSONSerialization.jsonObject(with: mapPart.body) as? [String: [String]]
            else { return plain(400, "not a GraphQL multipart request") }
            var answer: [[String: any Sendable]] = []
            var files: [String: Data] = [:]
            for (key, paths) in map.sorted(by: { $0.key < $1.key }) {
                guard let file = parts.first(where: { $0.name == key }) else { return plain(400, "map names part \(key), which is missing") }
                for path in paths {
                    files[path] = file.body
                    answer.append(["__typename": "UploadedFile", "path": path, "filename": file.filename ?? "", "size": file.body.count])
                }
            }
            state.withLock {
                $0.uploads = files
                $0.uploadOperations = operations.body
            }
            let payload = try JSONSerialization.data(withJSONObject: ["data": ["upload": answer]], options: [.sortedKeys])
            var response = Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: payload)))
            response.headers[.contentType] = "application/json"
            return response
        }

        // A cookie session.
        router.post("/session/login") { _, _ in
            let cookie = state.withLock { $0.sessionCookie }
            var response = try json(200, ["ok": true])
            response.headers[.setCookie] = "session=\(cookie); Path=/; HttpOnly"
            return response
        }
        router.get("/session/me") { request, _ in
            let cookie = state.withLock { $0.sessionCookie }
            guard request.headers[.cookie]?.contains("session=\(cookie)") == true else { return plain(401, "no session") }
            return try json(200, ["name": "Ada"])
        }

        router.get("/items") { request, _ in
            let items = state.withLock { Array($0.items.values) }.sorted { $0.id < $1.id }
            let tag = request.uri.queryParameters.get("tag")
            let limit = request.uri.queryParameters.get("limit").flatMap(Int.init) ?? Int.max
            return try json(200, items.filter { tag == nil || $0.tags.contains(tag!) }.prefix(limit).map { $0 })
        }

        router.get("/items/:id") { _, context in
            let id = context.parameters.get("id") ?? ""
            guard let item = state.withLock({ $0.items[id] }) else { return plain(404, "no item \(id)") }
            return try json(200, item)
        }

        router.post("/items") { request, context in
            let input = try await request.decode(as: ItemInput.self, context: context)
            guard let name = input.name, let price = input.price else { return plain(422, "name and price are required") }
            let item = state.withLock { state -> JSONItem in
                let item = JSONItem(id: String(state.nextItemID), name: name, price: price, tags: input.tags ?? [])
                state.nextItemID += 1
                state.items[item.id] = item
                return item
            }
            return try json(201, item)
        }

        router.put("/items/:id") { request, context in
            let id = context.parameters.get("id") ?? ""
            let input = try await request.decode(as: ItemInput.self, context: context)
            guard let name = input.name, let price = input.price else { return plain(422, "name and price are required") }
            let item = JSONItem(id: id, name: name, price: price, tags: input.tags ?? [])
            state.withLock { $0.items[id] = item }
            return try json(200, item)
        }

        router.patch("/items/:id") { request, context in
            let id = context.parameters.get("id") ?? ""
            let input = try await request.decode(as: ItemInput.self, context: context)
            let updated = state.withLock { state -> JSONItem? in
                guard var item = state.items[id] else { return nil }
                if let name = input.name { item.name = name }
                if let price = input.price { item.price = price }
                if let tags = input.tags { item.tags = tags }
                state.items[id] = item
                return item
            }
            guard let updated else { return plain(404, "no item \(id)") }
            return try json(200, updated)
        }

        router.delete("/items/:id") { _, context in
            let id = context.parameters.get("id") ?? ""
            let removed = state.withLock { $0.items.removeValue(forKey: id) }
            return removed == nil ? plain(404, "no item \(id)") : Response(status: .noContent)
        }

        router.on("/flood", method: .get, use: { request, _ in Flood.answer(request, state: state) })
        router.on("/flood", method: .post, use: { request, _ in Flood.answer(request, state: state) })

        router.get("/echo") { request, _ in
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            var query: [String: String] = [:]
            for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
            return try json(200, ["headers": headers, "query": query])
        }
    }

    /// A request refused before execution: its status, body and content type.
    struct ErrorResponse: Error {
        var status: Int
        var body: Data
        var contentType: String

        var response: Response { Responses.body(status, body, contentType: contentType) }

        static func plain(_ status: Int, _ text: String) -> ErrorResponse {
            ErrorResponse(status: status, body: Data(text.utf8), contentType: "text/plain; charset=utf-8")
        }
    }

    /// The document for a request: as sent, or remembered by its persisted-query hash.
    static func persistedQuery(query: String?, extensions: [String: Any]?, state: Locked<TestServer.State>) -> Result<String, ErrorResponse> {
        if let ignorance = state.withLock({ $0.persistedQueriesUnknown }) {
            // A server that never heard of persisted queries: extensions are ignored, no query is an error.
            guard let query else {
                return .failure(ErrorResponse(status: ignorance.status, body: ignorance.body, contentType: ignorance.contentType))
            }
            return .success(query)
        }
        func graphQLError(_ message: String, _ code: String) -> ErrorResponse {
            let body = #"{"errors":[{"message":"\#(message)","extensions":{"code":"\#(code)"}}]}"#
            return ErrorResponse(status: 200, body: Data(body.utf8), contentType: "application/json")
        }
        let persistedID = (extensions?["persistedQuery"] as? [String: Any])?["sha256Hash"] as? String
        if let safelist = state.withLock({ $0.safelist }) {
            guard let id = persistedID else {
                return .failure(graphQLError("This endpoint requires persisted query ids", "PERSISTED_QUERY_ID_REQUIRED"))
            }
            guard let document = safelist[id] else {
                return .failure(graphQLError("Persisted query '\(id)' not found in the persisted query list", "PERSISTED_QUERY_NOT_IN_LIST"))
            }
            return .success(document)
        }
        guard let hash = persistedID else {
            guard let query else { return .failure(.plain(400, "expected a 'query'")) }
            return .success(query)
        }
        return state.withLock { state -> Result<String, ErrorResponse> in
            guard state.persistedQueriesSupported else {
                return .failure(graphQLError("PersistedQueryNotSupported", "PERSISTED_QUERY_NOT_SUPPORTED"))
            }
            if let query {
                guard SHA256.hexDigest(query) == hash else { return .failure(.plain(400, "provided sha does not match query")) }
                state.persistedQueries[hash] = query
                return .success(query)
            }
            guard let known = state.persistedQueries[hash] else {
                return .failure(graphQLError("PersistedQueryNotFound", "PERSISTED_QUERY_NOT_FOUND"))
            }
            return .success(known)
        }
    }

    /// A batch of operations (a JSON array), as Apollo Server answers one: an array of results in
    /// order, or, with batching off, 400 and "Operation batching disabled.".
    static func answerBatch(_ batch: [Any], request: Request, state: Locked<TestServer.State>, schema: GraphQLSchema) async throws -> Response {
        guard state.withLock({ $0.acceptsBatches }) else {
            let body = #"{"errors":[{"message":"Operation batching disabled.","extensions":{"code":"BAD_REQUEST"}}]}"#
            return Responses.body(400, Data(body.utf8), contentType: "application/json")
        }
        state.withLock { $0.batchSizes.append(batch.count) }
        // Executed side by side, as Apollo Server does; answered in order.
        let accept = request.headers[.accept] ?? ""
        let context = authContext(request, state)
        let requests = batch.map { ($0 as? [String: Any]).map(BatchedRequest.init) }
        let answers = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
            for (index, element) in requests.enumerated() {
                group.addTask {
                    guard let element else { return (index, Data(#"{"errors":[{"message":"a batch holds GraphQL requests, which are objects"}]}"#.utf8)) }
                    switch persistedQuery(query: element.query, extensions: element.extensions?.value, state: state) {
                    case .success(let query):
                        return (index, try await GraphQLHTTPResponder.single(
                            schema: schema, query: query, operationName: element.operationName, variablesJSON: element.variables, accept: accept,
                            context: context).body)
                    case .failure(let refused):
                        return (index, refused.body)
                    }
                }
            }
            var answers = [Data](repeating: Data(), count: requests.count)
            for try await (index, body) in group { answers[index] = body }
            return answers
        }
        let results = answers.map { body in
            (try? JSONSerialization.jsonObject(with: body)) ?? ["errors": [["message": String(decoding: body, as: UTF8.self)]]]
        }
        return Responses.body(200, try JSONSerialization.data(withJSONObject: results), contentType: "application/json")
    }

    /// One request of a batch, in parts that cross into a child task.
    struct BatchedRequest: Sendable {
        var query: String?
        var operationName: String?
        var variables: Data?
        var extensions: UncheckedJSON?

        init(_ json: [String: Any]) {
            query = json["query"] as? String
            operationName = json["operationName"] as? String
            variables = json["variables"].flatMap { try? JSONSerialization.data(withJSONObject: $0) }
            extensions = (json["extensions"] as? [String: Any]).map(UncheckedJSON.init)
        }
    }

    /// A parsed JSON object, which JSONSerialization makes of immutable values only.
    struct UncheckedJSON: @unchecked Sendable {
        var value: [String: Any]
    }

    static func authContext(_ request: Request, _ state: Locked<TestServer.State>) -> AuthContext {
        let header = request.headers[.authorization]
        return AuthContext(authorized: header == "Bearer \(state.withLock { $0.accessToken })")
    }

    static func json(_ status: Int, _ value: some Encodable) throws -> Response { try Responses.json(status, value) }

    static func plain(_ status: Int, _ text: String) -> Response { Responses.plain(status, text) }
}

/// Records every request, then answers canned paths itself.
/// With CSRF prevention on (the default), refuses GraphQL requests that Apollo Server would.
struct Recorder: RouterMiddleware {
    typealias Context = BasicRequestContext
    let state: Locked<TestServer.State>
    /// The endpoints that take GraphQL requests over HTTP.
    static let graphQLPaths: Set<String> = ["/graphql", "/graphql-2022", "/upload"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 16 << 20)
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
        let recorded = TestServer.RecordedRequest(
            method: request.method.rawValue, path: request.uri.path, query: query, headers: headers, body: Data(body.readableBytesView),
            receivedAt: .now)
        let (canned, refused, latency) = state.withLock { state -> (TestServer.Canned?, Bool, Duration) in
            state.requests.append(recorded)
            let latency = Recorder.graphQLPaths.contains(request.uri.path) ? state.graphQLLatency : .zero
            if state.enforcesCSRFPrevention, Recorder.graphQLPaths.contains(request.uri.path), request.headers[.upgrade] == nil,
                CSRFRule.refuses(request.headers)
            {
                return (nil, true, latency)
            }
            guard var queue = state.canned[request.uri.path], let first = queue.first else { return (nil, false, latency) }
            if queue.count > 1 {
                queue.removeFirst()
                state.canned[request.uri.path] = queue
            }
            return (first, false, latency)
        }
        if latency > .zero { try await Task.sleep(for: latency) }
        if refused {
            let body = try JSONSerialization.data(withJSONObject: ["errors": [["message": CSRFRule.message, "extensions": ["code": "BAD_REQUEST"]]]])
            return Responses.body(400, body, contentType: "application/json")
        }
        if let canned {
            if canned.delay > .zero { try await Task.sleep(for: canned.delay) }
            await canned.gate?.wait()
            var response = Response(status: .init(code: canned.status), body: .init(byteBuffer: ByteBuffer(bytes: canned.body)))
            response.headers[.contentType] = canned.contentType
            for (name, value) in canned.headers {
                if let name = HTTPField.Name(name) { response.headers[name] = value }
            }
            return response
        }
        return try await next(request, context)
    }
}
