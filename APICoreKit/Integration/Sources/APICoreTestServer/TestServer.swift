import Foundation
import Synchronization
import GraphQL
import Hummingbird
import APICoreServerSupport
import HummingbirdWebSocket
import Logging
import NIOCore

/// A real HTTP server on 127.0.0.1 for the engine's tests and benchmarks.
///
/// It serves a StarWars GraphQL schema at `/graphql` (POST and GET, executed by GraphQLSwift), a
/// small REST API under `/items`, and whatever the test registers with ``respond(_:status:contentType:body:delay:)``.
/// Every request is recorded. Start it with ``start()``; stop it with ``stop()``.
public final class TestServer: Sendable {
    /// A request as the server received it.
    public struct RecordedRequest: Sendable {
        /// The method, upper case.
        public var method: String
        /// The path without the query.
        public var path: String
        /// The query parameters, percent-decoded.
        public var query: [String: String]
        /// The headers, names lowercased.
        public var headers: [String: String]
        /// The body.
        public var body: Data
        /// When it arrived.
        public var receivedAt: ContinuousClock.Instant
    }

    /// A response the test decides in advance.
    public struct Canned: Sendable {
        /// The status code.
        public var status: Int
        /// The `Content-Type`.
        public var contentType: String
        /// The body.
        public var body: Data
        /// How long to wait before answering.
        public var delay: Duration
        /// Extra headers.
        public var headers: [String: String]
        /// When set, the answer waits until the test opens it.
        public var gate: Gate?

        /// A canned response.
        public init(
            status: Int, contentType: String = "application/json", body: String, delay: Duration = .zero, headers: [String: String] = [:],
            gate: Gate? = nil
        ) {
            self.status = status
            self.contentType = contentType
            self.body = Data(body.utf8)
            self.delay = delay
            self.headers = headers
            self.gate = gate
        }
    }

    /// Holds canned answers back until the test opens it: requests in flight, on an event and not
    /// a timer.
    public final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

        /// A closed gate.
        public init() {}

        /// Lets every answer waiting, and every later one, through.
        public func open() {
            let waiting = state.withLock { state in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }

        /// Waits until the gate is open.
        func wait() async {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state in
                    if !state.open { state.waiting.append(continuation) }
                    return state.open
                }
                if open { continuation.resume() }
            }
        }
    }

    struct State: Sendable {
        var requests: [RecordedRequest] = []
        var canned: [String: [Canned]] = [:]
        var items: [String: JSONItem] = [:]
        var nextItemID = 1
        var reviews: [[String: any Sendable]] = []
        var renamed: [String: String] = [:]
        var accessToken = "access-1"
        var refreshToken = "refresh-1"
        var tokenGeneration = 1
        var refreshCount = 0
        var refreshFails = false
        var sessionCookie = "session-\(UUID().uuidString)"
        var uploads: [String: Data] = [:]
        var persistedQueries: [String: String] = [:]
        var persistedQueriesSupported = true
        var persistedQueriesUnknown: Canned?
        var uploadOperations: Data?
        var cutIncrementalAfter: Int?
        var incrementalPartDelay: Duration?
        var abandonedIncrementalAnswers = 0
        /// Bytes written by `/flood` answers, and how many of them ended because the client left.
        var floodBytes = 0
        var floodsAbandoned = 0
        /// The most one `/flood` answer wrote.
        var floodLargest = 0
        var subscriptionHeartbeat: Duration? = .seconds(5)
        var cutSubscriptionStreamsAfter: Int?
        var failSubscriptionStreamsAfter: Int?
        var subscriptionHeartbeatsSent = 0
        var abandonedSubscriptionStreams = 0
        var enforcesCSRFPrevention = true
        var safelist: [String: String]?
        var acceptsBatches = true
        var batchSizes: [Int] = []
        var graphQLLatency: Duration = .zero
        var getAnswerMaxAge: Int?
        var notModifiedCount = 0
        /// Connections accepted (TCP, whatever the protocol on them).
        var connections = 0
    }

    /// The port it listens on.
    public let port: Int
    /// The certificate it presents, when it speaks TLS.
    public let security: Security?
    /// `http://127.0.0.1:<port>/`, or `https://` when it speaks TLS.
    public var baseURL: URL { URL(string: "\(security == nil ? "http" : "https")://127.0.0.1:\(port)/")! }
    /// The GraphQL endpoint.
    public var graphQLURL: URL { baseURL.appendingPathComponent("graphql") }
    /// The GraphQL endpoint that writes `@defer` answers in the 2022 format
    /// (`incremental: [{data, path, label}]`); ``graphQLURL`` writes the current one
    /// (`pending` / `incremental` / `completed`).
    public var graphQL2022URL: URL { baseURL.appendingPathComponent("graphql-2022") }
    /// The GraphQL WebSocket endpoint, `ws://127.0.0.1:<port>/graphql` (`wss://` over TLS),
    /// speaking `graphql-transport-ws` and `graphql-ws`.
    public var webSocketURL: URL { URL(string: "\(security == nil ? "ws" : "wss")://127.0.0.1:\(port)/graphql")! }

    let state: Locked<State>
    let events: EventHub
    /// The WebSocket endpoint, with its switches and records.
    public let webSocket: GraphQLWebSocketServer
    private let task: Task<Void, any Error>

    private init(
        port: Int, security: Security?, state: Locked<State>, events: EventHub, webSocket: GraphQLWebSocketServer, task: Task<Void, any Error>
    ) {
        self.port = port
        self.security = security
        self.state = state
        self.events = events
        self.webSocket = webSocket
        self.task = task
    }

    /// Starts a server on a free loopback port (or on `port`, to stand in for one that stopped)
    /// and returns once it accepts connections; with `security`, it speaks TLS (and HTTP/2 when
    /// that asks for it).
    public static func start(port requested: Int = 0, security: Security? = nil) async throws -> TestServer {
        let state = Locked(State())
        let events = EventHub()
        let schema = try StarWarsSchema.make(state: state, events: events)
        let router = Router()
        Routes.register(on: router, state: state, schema: schema)
        let webSocket = GraphQLWebSocketServer(
            schema: schema,
            authorize: { payload in payload.strings["Authorization"] == "Bearer \(state.withLock { $0.accessToken })" },
            persistedDocument: { id in state.withLock { $0.safelist?[id] ?? $0.persistedQueries[id] } })
        let (portStream, portContinuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router,
            server: try server(webSocket: webSocket, security: security, state: state),
            configuration: .init(address: .hostname("127.0.0.1", port: requested), serverName: "APICoreTestServer"),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: Logger(label: "APICoreTestServer", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        let task = Task { try await app.run() }
        var port = 0
        for await value in portStream { port = value }
        guard port > 0 else {
            task.cancel()
            throw TestServerError.couldNotStart
        }
        return TestServer(port: port, security: security, state: state, events: events, webSocket: webSocket, task: task)
    }

    /// Runs `body` with a fresh server and stops the server after, whether `body` throws or not.
    public static func with<T>(security: Security? = nil, _ body: (TestServer) async throws -> T) async throws -> T {
        let server = try await start(security: security)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Stops the server and waits until it has closed its socket.
    public func stop() async {
        task.cancel()
        _ = await task.result
    }

    /// Answers `path` (with or without a leading `/`) with this status, content type and body,
    /// after `delay`, for every method.
    public func respond(_ path: String, status: Int, contentType: String = "application/json", body: String, delay: Duration = .zero) {
        respond(path, with: [Canned(status: status, contentType: contentType, body: body, delay: delay)])
    }

    /// Answers `path` with these responses in turn; the last one keeps answering.
    public func respond(_ path: String, with responses: [Canned]) {
        let key = path.hasPrefix("/") ? path : "/" + path
        state.withLock { $0.canned[key] = responses }
    }

    /// The bearer tokens the server accepts now (what `POST /auth/login` answers).
    public var currentTokens: (access: String, refresh: String) { state.withLock { ($0.accessToken, $0.refreshToken) } }

    /// Makes the current access token stale: requests carrying it get 401 (or `UNAUTHENTICATED`)
    /// until the client refreshes.
    public func expireAccessToken() {
        state.withLock { state in
            state.tokenGeneration += 1
            state.accessToken = "access-\(state.tokenGeneration)-unissued"
        }
    }

    /// How many times `POST /auth/refresh` issued a token.
    public var refreshCount: Int { state.withLock { $0.refreshCount } }

    /// Makes `POST /auth/refresh` answer 401.
    public func failRefreshes() { state.withLock { $0.refreshFails = true } }

    /// The files `/upload` received, by variable path (`variables.files.0`).
    public var uploadedFiles: [String: Data] { state.withLock { $0.uploads } }

    /// The `operations` part `/upload` received.
    public var uploadOperations: Data? { state.withLock { $0.uploadOperations } }

    /// Makes `@defer` answers stop after `parts` parts, without their closing boundary, as a
    /// server that dies mid-answer would; `nil` answers whole.
    public func cutIncrementalAnswers(after parts: Int?) { state.withLock { $0.cutIncrementalAfter = parts } }

    /// Makes `@defer` answers wait `delay` before each part after the first (slow deferred work).
    public func delayIncrementalParts(by delay: Duration?) { state.withLock { $0.incrementalPartDelay = delay } }

    /// How many `@defer` answers the client stopped reading before their end.
    public var abandonedIncrementalAnswers: Int { state.withLock { $0.abandonedIncrementalAnswers } }

    /// How many bytes `/flood` answers wrote, the most one of them wrote, and how many of them the
    /// client left before their end.
    public var flood: (bytes: Int, largest: Int, abandoned: Int) { state.withLock { ($0.floodBytes, $0.floodLargest, $0.floodsAbandoned) } }

    /// The time between heartbeats of multipart subscription streams (5 s by default, as Apollo
    /// Router); `nil` sends none.
    public func setSubscriptionHeartbeat(_ interval: Duration?) { state.withLock { $0.subscriptionHeartbeat = interval } }

    /// Makes multipart subscription streams stop after `events` events, without their closing
    /// boundary, as a server that dies mid-stream would; `nil` lets them run.
    public func cutSubscriptionStreams(after events: Int?) { state.withLock { $0.cutSubscriptionStreamsAfter = events } }

    /// Makes multipart subscription streams end after `events` events with a `payload: null`
    /// error part; `nil` lets them run.
    public func failSubscriptionStreams(after events: Int?) { state.withLock { $0.failSubscriptionStreamsAfter = events } }

    /// How many heartbeats multipart subscription streams have sent.
    public var subscriptionHeartbeatsSent: Int { state.withLock { $0.subscriptionHeartbeatsSent } }

    /// How many multipart subscription streams the client closed before their end.
    public var abandonedSubscriptionStreams: Int { state.withLock { $0.abandonedSubscriptionStreams } }

    /// Whether GraphQL requests that Apollo Server's CSRF prevention refuses get its 400 (on by
    /// default, as in Apollo Server and Apollo Router): a `GET` or a multipart or form `POST`
    /// without a non-empty `X-Apollo-Operation-Name` or `Apollo-Require-Preflight`.
    public func enforceCSRFPrevention(_ on: Bool) { state.withLock { $0.enforcesCSRFPrevention = on } }

    /// Makes the server answer `PersistedQueryNotSupported` to hashed queries.
    public func refusePersistedQueries() { state.withLock { $0.persistedQueriesSupported = false } }

    /// Makes the server one that never heard of persisted queries: it ignores the extension and
    /// answers a request without a query with `answer` (what such servers say, in their words).
    public func ignorePersistedQueries(answering answer: Canned) { state.withLock { $0.persistedQueriesUnknown = answer } }

    /// Makes the server one locked to a persisted query list (Apollo Router's safelist with
    /// `require_id`): it runs operations given by an id of `operations` (id → document), answers an
    /// unknown id with `PERSISTED_QUERY_NOT_IN_LIST` and a document with `PERSISTED_QUERY_ID_REQUIRED`.
    public func lockToSafelist(_ operations: [String: String]) { state.withLock { $0.safelist = operations } }

    /// Refuses batches (a JSON array `POST`) as Apollo Server does with batching off: 400,
    /// "Operation batching disabled.". Batches are answered by default.
    public func refuseBatches() { state.withLock { $0.acceptsBatches = false } }

    /// The number of operations in each batch (a JSON array `POST`) answered, in order.
    public var batchSizes: [Int] { state.withLock { $0.batchSizes } }

    /// Makes answers to `GET` queries cacheable, as a server behind a CDN does: `Cache-Control:
    /// public, max-age=<maxAge>` and an `ETag`; a request whose `If-None-Match` matches is answered
    /// `304 Not Modified`.
    public func cacheGETAnswers(maxAge: Int) { state.withLock { $0.getAnswerMaxAge = maxAge } }

    /// How many `304 Not Modified` answers the server gave.
    public var notModifiedCount: Int { state.withLock { $0.notModifiedCount } }

    /// Delays every answer of the GraphQL endpoints by `latency` (a slow network, for benchmarks).
    public func addLatency(_ latency: Duration) { state.withLock { $0.graphQLLatency = latency } }

    /// The documents the server has remembered by hash.
    public var persistedQueryCount: Int { state.withLock { $0.persistedQueries.count } }

    /// Every request received so far.
    public var requests: [RecordedRequest] { state.withLock { $0.requests } }

    /// The requests received for `path`.
    public func requests(to path: String) -> [RecordedRequest] {
        let key = path.hasPrefix("/") ? path : "/" + path
        return requests.filter { $0.path == key }
    }
}

extension TestServer {
    /// Makes the WebSocket endpoint misbehave (for connections opened from now on).
    public func setWebSocketBehavior(_ behavior: WebSocketBehavior) { webSocket.setBehavior(behavior) }

    /// Closes every open WebSocket with this code and reason.
    public func closeWebSockets(code: Int = 1001, reason: String = "server restarting") { webSocket.closeAll(code: code, reason: reason) }

    /// The number of WebSocket connections opened so far.
    public var webSocketConnectionCount: Int { webSocket.connectionCount }

    /// The number of WebSocket connections open now.
    public var openWebSocketCount: Int { webSocket.openCount }

    /// The headers of each WebSocket upgrade request, names lowercased, in order.
    public var webSocketUpgradeHeaders: [[String: String]] { webSocket.upgradeHeaders }

    /// Every message clients sent on WebSockets, in order.
    public var webSocketMessages: [WebSocketRecord] { webSocket.messages }

    /// How many subscriptions to `topic` (`reviewAdded`, `characterRenamed`) are running now.
    public func subscriberCount(_ topic: String) -> Int { events.count(topic) }
}

/// Why the test server could not start.
public enum TestServerError: Error {
    /// No port was bound.
    case couldNotStart
}
