import APICore
import CoreMetrics
import Foundation
import Logging
import Tracing

/// How a client reaches its server: endpoints, default headers, timeout, middleware.
public struct APIClientConfiguration: Sendable {
    /// How queries travel over HTTP.
    public enum QueryMethod: Sendable, Hashable {
        /// `POST` with a JSON body (the default).
        case post
        /// `GET` with `query`, `operationName` and `variables` in the URL, which HTTP caches and CDNs
        /// can serve. Mutations always use `POST`.
        case get
    }

    /// The base URL of REST paths.
    public var restBaseURL: URL
    /// The GraphQL endpoint.
    public var graphQLURL: URL
    /// Headers sent with every request; a request's own headers win.
    public var defaultHeaders: [String: String]
    /// The time a request may take, from sending to the end of the body, unless the request sets
    /// its own.
    public var timeout: Duration
    /// The largest answer the client reads, in bytes: a body read whole, or one part of an
    /// incremental (`@defer`, `@stream`) answer. Past it the client stops reading (the connection
    /// is closed) and the request fails with `APIError.invalidResponse` of kind `.tooLarge`, so
    /// that no server can make the app hold more. 64 MiB by default, far above any real answer;
    /// a subscription's events have their own bound (`SubscriptionConfiguration.maxMessageSize`).
    public var maxResponseSize: Int
    /// The middleware chain, outermost first.
    public var middlewares: [any Middleware]
    /// How queries travel.
    public var queryMethod: QueryMethod
    /// Encodes REST bodies.
    public var makeJSONEncoder: @Sendable () -> JSONEncoder
    /// The normalized cache, or `nil` for none.
    public var cache: CacheConfiguration?
    /// Where the client logs: each HTTP exchange at `info` (request line, operation, status,
    /// duration), headers at `debug`, bodies at `trace`; `Authorization`, `Cookie`, `Set-Cookie`
    /// and token fields are always redacted. Also what goes wrong around requests (a cache set aside).
    public var logger: Logger
    /// Where request counts, errors by kind, latencies and cache hits go; `nil` is swift-metrics'
    /// global `MetricsSystem`.
    public var metricsFactory: (any MetricsFactory)?
    /// Where spans go (swift-distributed-tracing): one per operation, with a child per HTTP attempt,
    /// cache write, incremental part and subscription event; the trace's context goes out with
    /// each request and WebSocket connection as the tracer propagates it (`traceparent` with
    /// OpenTelemetry). `nil` is the process's `InstrumentationSystem.tracer`, which does nothing
    /// until one is bootstrapped.
    public var tracer: (any Tracer)?
    /// How requests are authenticated, if at all.
    public var authentication: Authentication?
    /// When failed requests are tried again, or `nil` never.
    public var retryPolicy: RetryPolicy?
    /// Whether identical queries in flight at the same time share one network request.
    public var deduplicatesQueries: Bool
    /// Automatic persisted queries, or `nil` to always send documents.
    public var persistedQueries: PersistedQueries?
    /// Subscriptions over WebSocket, or `nil` when the app has none (subscribing then throws
    /// ``APIError/invalidRequest(_:)``).
    public var subscriptions: SubscriptionConfiguration?
    /// The headers that tell a server with CSRF prevention that a GraphQL request which is not a
    /// JSON `POST` (a `GET`, a multipart upload) did not come from a web page: Apollo Server's and
    /// Apollo Router's by default.
    public var csrfPrevention: CSRFPrevention
    /// The app's name and version, sent with every GraphQL request so that the server (GraphOS,
    /// Apollo Router) can tell its traffic apart; `nil` sends nothing.
    public var clientAwareness: ClientAwareness?
    /// HTTP batching: queries and mutations sent within a short window go as one `POST` whose
    /// body is the array of their requests; `nil` (the default) sends each on its own.
    public var batching: HTTPBatching?
    /// An HTTP cache (URLCache) for `GET` answers that the server marks cacheable (`Cache-Control`,
    /// `ETag`): queries sent as `GET` (``QueryMethod/get``, persisted queries by `GET`) and REST
    /// `GET`s are answered from it while fresh and revalidated with `If-None-Match` (a `304`) once
    /// stale; `nil` (the default) keeps none. Answers it gives still go through the engine (the
    /// normalized cache, its watchers).
    public var httpCache: HTTPCache?

    /// A configuration; the GraphQL endpoint defaults to `graphql` under the REST base URL, and
    /// the cache to one in memory.
    public init(
        restBaseURL: URL,
        graphQLURL: URL? = nil,
        defaultHeaders: [String: String] = [:],
        timeout: Duration = .seconds(30),
        middlewares: [any Middleware] = [],
        queryMethod: QueryMethod = .post,
        cache: CacheConfiguration? = CacheConfiguration(),
        logger: Logger = Logger(label: "APICoreKit"),
        metricsFactory: (any MetricsFactory)? = nil,
        tracer: (any Tracer)? = nil,
        authentication: Authentication? = nil,
        retryPolicy: RetryPolicy? = .default,
        deduplicatesQueries: Bool = true,
        persistedQueries: PersistedQueries? = nil,
        subscriptions: SubscriptionConfiguration? = nil,
        csrfPrevention: CSRFPrevention = .apollo,
        clientAwareness: ClientAwareness? = nil,
        batching: HTTPBatching? = nil,
        httpCache: HTTPCache? = nil,
        maxResponseSize: Int = 64 << 20,
        makeJSONEncoder: @escaping @Sendable () -> JSONEncoder = { JSONEncoder() }
    ) {
        self.restBaseURL = restBaseURL
        self.graphQLURL = graphQLURL ?? restBaseURL.appendingPathComponent("graphql")
        self.defaultHeaders = defaultHeaders
        self.timeout = timeout
        self.maxResponseSize = max(1, maxResponseSize)
        self.middlewares = middlewares
        self.queryMethod = queryMethod
        self.makeJSONEncoder = makeJSONEncoder
        self.cache = cache
        self.logger = logger
        self.metricsFactory = metricsFactory
        self.tracer = tracer
        self.authentication = authentication
        self.retryPolicy = retryPolicy
        self.deduplicatesQueries = deduplicatesQueries
        self.persistedQueries = persistedQueries
        self.subscriptions = subscriptions
        self.csrfPrevention = csrfPrevention
        self.clientAwareness = clientAwareness
        self.batching = batching
        self.httpCache = httpCache
    }
}

/// What a GraphQL request that a web page could have sent without a CORS preflight (a `GET`, a
/// multipart `POST`) carries to show it did not: servers with CSRF prevention refuse such a request
/// without one of their headers (Apollo Server and Apollo Router, on by default, answer 400). A JSON
/// `POST` needs none and gets none.
public struct CSRFPrevention: Sendable, Hashable {
    private enum Kind: Sendable, Hashable {
        case apollo
        case headers([String: String])
    }

    private let kind: Kind

    /// Apollo Server's and Apollo Router's rule: `X-Apollo-Operation-Name` with the operation's
    /// name, or `Apollo-Require-Preflight: true` for an operation without one.
    public static let apollo = CSRFPrevention(kind: .apollo)

    /// No headers, for a server that refuses headers it does not know.
    public static let off = CSRFPrevention(kind: .headers([:]))

    /// These headers instead (GraphQL Yoga's `x-graphql-yoga-csrf`, say).
    public static func headers(_ headers: [String: String]) -> CSRFPrevention { CSRFPrevention(kind: .headers(headers)) }

    /// The headers for a request of the operation `operationName` (empty when it has none).
    package func headers(operationName: String) -> [String: String] {
        switch kind {
        case .apollo:
            operationName.isEmpty ? ["Apollo-Require-Preflight": "true"] : ["X-Apollo-Operation-Name": operationName]
        case .headers(let headers):
            headers
        }
    }
}

/// The name and version of the app, for servers that count traffic by client (GraphOS, Apollo
/// Router): sent as `apollographql-client-name` and `apollographql-client-version` with every
/// GraphQL request, and in the WebSocket's upgrade request and `connection_init` payload.
public struct ClientAwareness: Sendable, Hashable {
    /// The app's name (`com.example.pantry-ios`, say).
    public var name: String
    /// Its version (`3.2.1 (420)`, say), or `nil`.
    public var version: String?

    /// The app `name` at `version`.
    public init(name: String, version: String? = nil) {
        self.name = name
        self.version = version
    }

    /// The headers (or `connection_init` payload entries) that carry it.
    package var headers: [String: String] {
        var headers = ["apollographql-client-name": name]
        if let version { headers["apollographql-client-version"] = version }
        return headers
    }
}

/// Persisted queries: operations sent by id (`extensions.persistedQuery`), in one of two modes.
///
/// - ``Mode/automatic`` (APQ): the id is the SHA-256 of the document; when the server answers
///   `PersistedQueryNotFound` the operation is sent again with its document, and when it answers
///   `PersistedQueryNotSupported` the client stops sending ids.
/// - ``Mode/persistedOnly``: for a server locked to a safelist (Apollo Router's persisted query
///   list, GraphOS): the id alone, never the document — the operation's generated
///   `operationIdentifier` (the generator's operation manifest), else the SHA-256 of its document.
///   An id the server does not know, or a server without persisted queries, is an
///   ``APIError/invalidRequest(_:)`` naming the operation and the id; nothing is sent again.
public struct PersistedQueries: Sendable, Hashable {
    /// How ids and documents are sent.
    public enum Mode: Sendable, Hashable {
        /// Automatic persisted queries: the id, and the document when the server asks for it.
        case automatic
        /// The id alone, for every query, mutation and subscription.
        case persistedOnly
    }

    /// How ids and documents are sent.
    public var mode: Mode
    /// Send queries by id as `GET`, which HTTP caches and CDNs can serve. Mutations, and a
    /// document sent after a miss, always use `POST`.
    public var useGETForHashedQueries: Bool

    /// Persisted queries in `mode` (automatic by default).
    public init(mode: Mode = .automatic, useGETForHashedQueries: Bool = false) {
        self.mode = mode
        self.useGETForHashedQueries = useGETForHashedQueries
    }

    /// Operations sent by id alone, for a server that accepts only its safelist.
    public static func persistedOnly(useGET: Bool = false) -> PersistedQueries {
        PersistedQueries(mode: .persistedOnly, useGETForHashedQueries: useGET)
    }
}

/// HTTP batching, as Apollo Server, Apollo Router, Hot Chocolate and Strawberry accept it: the
/// queries and mutations a client sends within ``window`` of the first (up to ``maxOperations``)
/// travel as one JSON `POST` whose body is the array of their requests, and the server answers an
/// array in the same order. Each caller still goes through the middleware chain on its own and gets
/// its own result or error; operations whose requests differ in URL, headers or timeout go in
/// different batches. A request with `allowsBatching` off, a `GET`, an upload and an operation with
/// `@defer` or `@stream` are never batched, and a batch of one is sent as a plain request.
///
/// A server that answers a batch with one object instead of an array (Apollo Server with
/// `allowBatchedHttpRequests` off answers 400) gives every caller in it an
/// ``InvalidResponse/Kind/notBatchAnswer(operations:)``.
public struct HTTPBatching: Sendable, Hashable {
    /// How long the first operation of a batch waits for others.
    public var window: Duration
    /// The most operations one batch carries; a full batch leaves at once.
    public var maxOperations: Int

    /// Batches of up to `maxOperations` operations gathered for `window` (10 ms and 10 by default).
    public init(window: Duration = .milliseconds(10), maxOperations: Int = 10) {
        self.window = window
        self.maxOperations = max(1, maxOperations)
    }
}

/// An HTTP cache for `GET` answers (``APIClientConfiguration/httpCache``), in memory and, with a
/// directory, on disk, the same on every platform: fresh answers are given again without the
/// network, stale ones revalidated with their `ETag` or `Last-Modified`, answers kept apart by the
/// request's credentials. The normalized cache is a different thing: it keeps records, not bodies,
/// and stays what watchers and cache policies read; this one saves the round trip (or the body,
/// with a `304`) of a `GET` the server said could be reused.
public struct HTTPCache: Sendable, Hashable {
    /// Bytes kept in memory.
    public var memoryCapacity: Int
    /// Bytes kept on disk, when there is a directory.
    public var diskCapacity: Int
    /// Where on disk (created if missing), so that answers outlive the process; `nil` keeps them in
    /// memory only.
    public var directory: URL?

    /// A cache of `memoryCapacity` bytes in memory and `diskCapacity` on disk, in `directory`
    /// (memory only without one).
    public init(memoryCapacity: Int = 4 << 20, diskCapacity: Int = 32 << 20, directory: URL? = nil) {
        self.memoryCapacity = memoryCapacity
        self.diskCapacity = diskCapacity
        self.directory = directory
    }
}
