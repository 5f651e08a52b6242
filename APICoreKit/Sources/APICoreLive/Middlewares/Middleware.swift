import APICore
import APICoreSupport
import CoreMetrics
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The answer of the transport to one HTTP request.
public struct TransportResponse: Sendable {
    /// The status code.
    public var statusCode: Int
    /// The headers, names lowercased.
    public var headers: [String: String]
    /// The body. Setting it (a middleware that rewrites the answer) drops what the engine had
    /// already read of the old one, so the new body is the one read.
    public var body: Data {
        didSet { read = nil }
    }
    /// The URL that answered.
    public var url: URL?
    /// What the engine read of the body as the transport delivered it, carried with the response
    /// through the middleware chain so that the body is read once.
    var read: BodyRead?

    /// Creates a response; header names are lowercased.
    public init(statusCode: Int, headers: [String: String], body: Data, url: URL?) {
        self.statusCode = statusCode
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
        self.url = url
    }

    /// The `content-type` without parameters, lowercased (`application/json`).
    public var mediaType: String? {
        headers["content-type"]?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }
}

/// What the engine read of a response body where the transport delivered it, innermost in the
/// middleware chain. It travels with its ``TransportResponse`` and goes when a middleware replaces
/// the body.
enum BodyRead: Sendable {
    /// The body, read as a GraphQL answer.
    case payload(GraphQLPayload)
    /// A body that streams (incremental delivery, subscriptions): its chunks as they arrive. The
    /// response's `body` is empty; stopping the chunks stops the exchange.
    case stream(APIStream<Result<Data, APIError>>)
}

/// One GraphQL result as the engine reads it: the data, the errors that `@catch` fields caught
/// (in their places in the data already), and the `extensions`.
struct GraphQLPayload: Sendable {
    /// The `data` object, errors caught in place: on its tape while nothing has asked for a tree.
    var data: ReadObject
    /// The errors that fields with `@catch` caught.
    var caughtErrors: [GraphQLError] = []
    /// The result's `extensions`.
    var extensions: JSONObject?

    /// A payload.
    init(data: ReadObject, caughtErrors: [GraphQLError] = [], extensions: JSONObject? = nil) {
        self.data = data
        self.caughtErrors = caughtErrors
        self.extensions = extensions
    }
}

/// What a middleware knows about the request it sees.
public struct RequestContext: Sendable {
    /// The kind of call.
    public enum Kind: Sendable, Hashable {
        /// A REST call.
        case rest
        /// A GraphQL operation.
        case graphQL(GraphQLOperationType)
    }

    /// REST or GraphQL (and which operation type).
    public var kind: Kind
    /// The GraphQL operation's name, or `METHOD path` for REST.
    public var operationName: String
    /// Whether the request may be sent again safely (idempotent REST methods, queries, and
    /// mutations that opted in).
    public var isIdempotent: Bool
    /// A GraphQL operation's document id: the generator's persisted-query id, else the SHA-256 of
    /// its document (what automatic persisted queries send); `nil` for REST.
    public var documentID: String?
    /// The app's values the request carries (``GraphQLRequest/values``, ``RESTRequest/values``).
    public var values: RequestValues

    /// Creates a context.
    public init(kind: Kind, operationName: String, isIdempotent: Bool, documentID: String? = nil, values: RequestValues = RequestValues()) {
        self.kind = kind
        self.operationName = operationName
        self.isIdempotent = isIdempotent
        self.documentID = documentID
        self.values = values
    }
}

/// The rest of the chain after a middleware: the next middleware, and finally the transport.
public typealias MiddlewareNext = @Sendable (URLRequest) async throws(APIError) -> TransportResponse

/// One step of the middleware chain that every request goes through, REST and GraphQL alike.
///
/// A middleware can change the request before calling `next`, look at the response or the
/// error after it, and retry by calling `next` again. Responses outside 2xx arrive as
/// ``APIError/httpStatus(_:)`` or ``APIError/unauthorized(_:)``. The first middleware of the
/// configuration is the outermost.
public protocol Middleware: Sendable {
    /// Handles one request.
    func intercept(_ request: URLRequest, context: RequestContext, next: MiddlewareNext) async throws(APIError)
        -> TransportResponse
}

/// A middleware made from a closure.
public struct ClosureMiddleware: Middleware {
    private let body: @Sendable (URLRequest, RequestContext, MiddlewareNext) async throws(APIError) -> TransportResponse

    /// Wraps `body`.
    public init(_ body: @escaping @Sendable (URLRequest, RequestContext, MiddlewareNext) async throws(APIError) -> TransportResponse) {
        self.body = body
    }

    /// Calls the closure.
    public func intercept(_ request: URLRequest, context: RequestContext, next: MiddlewareNext) async throws(APIError)
        -> TransportResponse
    {
        try await body(request, context, next)
    }
}

/// The chain every HTTP request goes through, REST and GraphQL alike, down to the exchange's
/// innermost step, which reads the answer as the kind of call needs (so that middleware sees
/// statuses and GraphQL errors as `APIError`s; what it read travels with the response). Its steps,
/// outermost first: reachability (what the network answered, once per call), metrics (one count
/// per logical request), the app's middlewares, retries, authentication (so that every retry
/// carries the freshest token), logging (one line per real exchange, with the headers actually
/// sent, redacted), and a span per attempt.
struct MiddlewareChain: Sendable {
    /// The steps, outermost first.
    let steps: [any Middleware]

    /// The chain the configuration asks for; `refresher` renews bearer tokens (`nil` for other
    /// authentication).
    init(
        _ configuration: APIClientConfiguration, metrics: any MetricsFactory, reachability: Reachability, refresher: TokenRefresher?, spans: Spans
    ) {
        var steps: [any Middleware] = [reachability, MetricsMiddleware(factory: metrics)] + configuration.middlewares
        if let policy = configuration.retryPolicy { steps.append(RetryMiddleware(policy: policy)) }
        switch configuration.authentication {
        case .bearer(let bearer)?:
            if let refresher { steps.append(BearerAuthMiddleware(authentication: bearer, refresher: refresher)) }
        case .cookies(let storage)?:
            steps.append(CookieMiddleware(storage: storage))
        case nil:
            break
        }
        steps += [LoggingMiddleware(logger: configuration.logger), AttemptSpans(spans: spans)]
        self.steps = steps
    }

    /// Runs `request` through every step, then `exchange`.
    func run(_ request: URLRequest, context: RequestContext, exchange: @escaping MiddlewareNext) async throws(APIError) -> TransportResponse {
        try await Self.call(steps[...], request: request, context: context, exchange: exchange)
    }

    private static func call(
        _ steps: ArraySlice<any Middleware>, request: URLRequest, context: RequestContext, exchange: @escaping MiddlewareNext
    ) async throws(APIError) -> TransportResponse {
        guard let first = steps.first else {
            if Task.isCancelled { throw .cancelled }
            return try await exchange(request)
        }
        let rest = steps.dropFirst()
        return try await first.intercept(request, context: context) { request throws(APIError) in
            try await call(rest, request: request, context: context, exchange: exchange)
        }
    }
}

extension Result where Failure == APIError {
    /// What `body` returns or throws, as a value.
    static func of(_ body: () async throws(APIError) -> Success) async -> Self {
        do throws(APIError) {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }
}
