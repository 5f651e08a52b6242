import APICoreServerSupport
import Foundation
import GraphQL
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The dev server's HTTP endpoints.
enum DevRoutes {
    struct Credentials: Decodable {
        var email: String
        var password: String
    }

    struct Tokens: Encodable {
        var accessToken: String
        var refreshToken: String
        var expiresIn: Int
    }

    static func register(on router: Router<BasicRequestContext>, state: Locked<DevState>, schema: GraphQLSchema, webSocket: GraphQLWebSocketServer) {
        router.middlewares.add(TraceContextLog())
        router.middlewares.add(Switchboard(state: state))

        router.get("/health") { _, _ in plain(200, "ok") }

        // GraphQL over HTTP (`@defer` as `multipart/mixed`, current format, when accepted;
        // subscriptions as multipart streams, for clients that ask with `subscriptionSpec=1.0`;
        // a mutation with an `Idempotency-Key` runs once, its repeats answered the same).
        router.post("/graphql") { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 16 << 20)
            guard let json = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any],
                let query = json["query"] as? String
            else { return plain(400, "expected a JSON body with a 'query' string") }
            let variables = json["variables"].flatMap { $0 is NSNull ? nil : try? JSONSerialization.data(withJSONObject: $0) }
            if let refusal = refuseIntrospection(query, schema, state) { return refusal }
            let operationName = json["operationName"] as? String
            let accept = request.headers[.accept] ?? ""
            if let key = request.headers[idempotencyKey], isMutation(query, named: operationName) {
                var fingerprint: [String: Any] = ["query": query]
                fingerprint["operationName"] = json["operationName"]
                fingerprint["variables"] = json["variables"]
                return try await answerOnce(
                    key: key, request: try JSONSerialization.data(withJSONObject: fingerprint, options: [.sortedKeys]),
                    state: state, context: context(request, state)
                ) { context in
                    try await GraphQLHTTPResponder.single(
                        schema: schema, query: query, operationName: operationName, variablesJSON: variables, accept: accept, context: context)
                }
            }
            return try await GraphQLHTTPResponder.execute(
                schema: schema, query: query, operationName: operationName, variablesJSON: variables, accept: accept,
                context: context(request, state))
        }
        router.get("/graphql") { request, _ in
            let parameters = request.uri.queryParameters
            guard let query = parameters.get("query") else { return plain(400, "expected a 'query' parameter") }
            if let refusal = refuseIntrospection(query, schema, state) { return refusal }
            return try await GraphQLHTTPResponder.execute(
                schema: schema, query: query, operationName: parameters.get("operationName"),
                variablesJSON: parameters.get("variables").map { Data($0.utf8) }, accept: request.headers[.accept] ?? "",
                context: context(request, state))
        }

        // The schema's SDL, as a schema registry serves it.
        router.get("/schema.graphqls") { _, _ in
            var response = plain(200, DevSchema.sdl)
            response.headers[.contentType] = "application/graphql; charset=utf-8"
            return response
        }

        // Bearer tokens.
        router.post("/auth/login") { request, context in
            guard let credentials = try? await request.decode(as: Credentials.self, context: context) else {
                return plain(400, "expected {\"email\": …, \"password\": …}")
            }
            guard let user = signIn(credentials, state) else { return plain(401, "wrong email or password") }
            return try json(200, issueTokens(for: user, state))
        }
        router.post("/auth/refresh") { request, context in
            let body = try? await request.decode(as: [String: String].self, context: context)
            let user = state.withLock { state -> String? in
                guard let token = body?["refreshToken"], let user = state.refreshTokens.removeValue(forKey: token) else { return nil }
                return user
            }
            guard let user else { return plain(401, "refresh token rejected") }
            return try json(200, issueTokens(for: user, state))
        }
        router.post("/auth/logout") { request, _ in
            if let header = request.headers[.authorization] {
                let token = header.replacingOccurrences(of: "Bearer ", with: "")
                state.withLock { state in
                    if let user = state.accessTokens.removeValue(forKey: token)?.user {
                        state.refreshTokens = state.refreshTokens.filter { $0.value != user }
                    }
                }
            }
            return try json(200, ["ok": true])
        }

        // A cookie session.
        router.post("/session/login") { request, context in
            guard let credentials = try? await request.decode(as: Credentials.self, context: context) else {
                return plain(400, "expected {\"email\": …, \"password\": …}")
            }
            guard let user = signIn(credentials, state) else { return plain(401, "wrong email or password") }
            let cookie = "session-\(UUID().uuidString)"
            state.withLock { $0.sessions[cookie] = user }
            var response = try json(200, ["ok": true])
            response.headers[.setCookie] = "session=\(cookie); Path=/; HttpOnly"
            return response
        }
        router.post("/session/logout") { request, _ in
            if let cookie = sessionCookie(request) { state.withLock { _ = $0.sessions.removeValue(forKey: cookie) } }
            var response = try json(200, ["ok": true])
            response.headers[.setCookie] = "session=; Path=/; Max-Age=0"
            return response
        }

        // REST, as ProductKit uses it.
        router.get("/products/:id") { _, context in
            let id = context.parameters.get("id") ?? ""
            guard let product = state.withLock({ $0.data.product(id) }) else { return plain(404, "no product \(id)") }
            return try jsonObject(200, restProduct(product))
        }
        router.get("/products/:id/price-history") { _, context in
            let id = context.parameters.get("id") ?? ""
            guard let history = state.withLock({ $0.data.priceHistory[id] }) else { return plain(404, "no product \(id)") }
            return try jsonObject(200, history)
        }

        // Switches, for demos and tests driving a server in another process.
        router.get("/dev/switches") { _, _ in try json(200, state.withLock { $0.switches }) }
        router.post("/dev/switches") { request, context in
            guard let switches = try? await request.decode(as: DevServer.Switches.self, context: context) else {
                return plain(400, "expected {\"latencyMilliseconds\": …, \"failureRate\": …, \"dropSocketsEverySeconds\": …}")
            }
            state.withLock { $0.switches = switches }
            return try json(200, switches)
        }
        router.post("/dev/drop-sockets") { _, _ in
            webSocket.closeAll(code: 1001, reason: "dev server dropped the socket")
            return try json(200, ["ok": true])
        }
    }

    static func signIn(_ credentials: Credentials, _ state: Locked<DevState>) -> String? {
        state.withLock { state in
            guard state.data.passwords[credentials.email.lowercased()] == credentials.password else { return nil }
            return state.data.users.values.first { $0["email"] as? String == credentials.email.lowercased() }?["id"] as? String
        }
    }

    static func issueTokens(for user: String, _ state: Locked<DevState>) -> Tokens {
        let tokens = Tokens(accessToken: "access-\(UUID().uuidString)", refreshToken: "refresh-\(UUID().uuidString)",
                            expiresIn: Int(DevServer.accessTokenLifetime))
        state.withLock { state in
            state.accessTokens[tokens.accessToken] = (user, Date().addingTimeInterval(DevServer.accessTokenLifetime))
            state.refreshTokens[tokens.refreshToken] = user
        }
        return tokens
    }

    /// The user of an `Authorization: Bearer …` value, while the token is valid.
    static func user(forAuthorization header: String, _ state: Locked<DevState>) -> String? {
        guard header.hasPrefix("Bearer ") else { return nil }
        let token = String(header.dropFirst("Bearer ".count))
        return state.withLock { state in
            guard let entry = state.accessTokens[token], entry.expires > Date() else { return nil }
            return entry.user
        }
    }

    static func sessionCookie(_ request: Request) -> String? {
        (request.headers[.cookie] ?? "").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix("session=") }.map { String($0.dropFirst("session=".count)) }
    }

    /// With introspection off, a query that asks for `__schema` or `__type` gets the error a
    /// production server answers (status 400, `application/graphql-response+json`).
    static func refuseIntrospection(_ query: String, _ schema: GraphQLSchema, _ state: Locked<DevState>) -> Response? {
        guard !state.withLock({ $0.introspection }), let document = try? parse(source: query) else { return nil }
        // The rule names every introspection field; the first says it.
        guard let error = validate(schema: schema, ast: document, rules: [NoSchemaIntrospectionCustomRule]).first else { return nil }
        let body = (try? JSONSerialization.data(withJSONObject: ["errors": [["message": error.message, "extensions": ["code": "INTROSPECTION_DISABLED"]]]])) ?? Data()
        var response = Response(status: .badRequest, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        response.headers[.contentType] = "application/graphql-response+json; charset=utf-8"
        return response
    }

    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    /// Set on an answer given again for a repeated `Idempotency-Key`.
    static let idempotentReplayed = HTTPField.Name("Idempotent-Replayed")!

    /// Whether the operation a request runs is a mutation (`false` when it does not parse:
    /// execution says why).
    static func isMutation(_ query: String, named operationName: String?) -> Bool {
        GraphQLHTTPResponder.operation(in: query, named: operationName)?.1.operation == .mutation
    }

    /// A mutation sent with an `Idempotency-Key`, run once per user and key (``IdempotentReplies``):
    /// a repeat gets the first answer with `Idempotent-Replayed: true`, the key used for another
    /// request a `422`.
    static func answerOnce(
        key: String, request: Data, state: Locked<DevState>, context: DevContext,
        run: @escaping @Sendable (DevContext) async throws -> IdempotentReplies.Reply
    ) async throws -> Response {
        let scopedKey = "\(context.userID ?? "")\u{0}\(key)"
        let claim = state.withLock { $0.replies.claim(scopedKey, request: request) { try await run(context) } }
        let reply: IdempotentReplies.Reply
        switch claim {
        case .reused:
            let body = ["errors": [["message": "the Idempotency-Key '\(key)' was already used for another request", "extensions": ["code": "IDEMPOTENCY_KEY_REUSED"]]]]
            return try jsonObject(422, body)
        case .first(let task):
            do { reply = try await task.value } catch {
                state.withLock { $0.replies.forget(scopedKey) }
                throw error
            }
        case .again(let task):
            reply = try await task.value
        }
        var response = Responses.body(reply.status, reply.body, contentType: reply.contentType)
        if case .again = claim { response.headers[idempotentReplayed] = "true" }
        return response
    }

    static func context(_ request: Request, _ state: Locked<DevState>) -> DevContext {
        if let header = request.headers[.authorization] { return DevContext(userID: user(forAuthorization: header, state)) }
        if let cookie = sessionCookie(request) { return DevContext(userID: state.withLock { $0.sessions[cookie] }) }
        return DevContext(userID: nil)
    }

    /// A product in ProductKit's REST shape.
    static func restProduct(_ product: Object) -> [String: Any] {
        let category = product["category"] as? Object ?? [:]
        let price = product["price"] as? Object ?? [:]
        var rest: [String: Any] = [
            "id": product["id"] as? String ?? "", "sku": product["sku"] as? String ?? "", "name": product["name"] as? String ?? "",
            "category": ["id": category["id"] as? String ?? "", "name": category["name"] as? String ?? ""],
            "price": ["amount": price["amount"] as? String ?? "", "currency": price["currency"] as? String ?? ""],
            "tags": product["tags"] as? [String] ?? [], "updatedAt": product["updatedAt"] as? String ?? "",
        ]
        if let description = product["description"] as? String { rest["description"] = description }
        return rest
    }

    static func json(_ status: Int, _ value: some Encodable) throws -> Response { try Responses.json(status, value) }

    static func jsonObject(_ status: Int, _ value: Any) throws -> Response {
        Responses.body(status, try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), contentType: "application/json")
    }

    static func plain(_ status: Int, _ text: String) -> Response { Responses.plain(status, text) }
}

/// Latency and failures, on every endpoint but `/dev/` and `/health`.
/// Logs the W3C trace context (`traceparent`, `tracestate`) a request carries, at info, with the
/// method and path: where a client's trace (`pantry --trace`, an OpenTelemetry tracer) and the
/// server's log meet.
struct TraceContextLog: RouterMiddleware {
    func handle(_ request: Request, context: BasicRequestContext, next: (Request, BasicRequestContext) async throws -> Response) async throws
        -> Response
    {
        if let parent = request.headers[HTTPField.Name("traceparent")!] {
            var metadata: Logger.Metadata = ["traceparent": .string(parent)]
            if let state = request.headers[HTTPField.Name("tracestate")!] { metadata["tracestate"] = .string(state) }
            context.logger.info("trace context received: \(request.method) \(request.uri.path)", metadata: metadata)
        }
        return try await next(request, context)
    }
}

struct Switchboard: RouterMiddleware {
    let state: Locked<DevState>

    func handle(_ request: Request, context: BasicRequestContext, next: (Request, BasicRequestContext) async throws -> Response) async throws
        -> Response
    {
        let path = request.uri.path
        guard !path.hasPrefix("/dev/"), path != "/health" else { return try await next(request, context) }
        let switches = state.withLock { $0.switches }
        if switches.latencyMilliseconds > 0 { try await Task.sleep(for: .milliseconds(switches.latencyMilliseconds)) }
        if switches.failureRate > 0, Double.random(in: 0..<1) < switches.failureRate {
            return DevRoutes.plain(503, "the dev server failed this request on purpose (failure rate \(switches.failureRate))")
        }
        return try await next(request, context)
    }
}
