import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An HTTP method.
public struct HTTPMethod: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The method's name, upper case.
    public let rawValue: String
    /// Creates a method from its name.
    public init(rawValue: String) { self.rawValue = rawValue.uppercased() }

    /// `GET`.
    public static let get = HTTPMethod(rawValue: "GET")
    /// `POST`.
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT`.
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `PATCH`.
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`.
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `HEAD`.
    public static let head = HTTPMethod(rawValue: "HEAD")

    /// Whether repeating the request has the same effect as sending it once (RFC 9110).
    public var isIdempotent: Bool { ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"].contains(rawValue) }

    /// The name.
    public var description: String { rawValue }
}

/// A body that decodes to nothing, for endpoints that answer `204 No Content` or whose body does
/// not matter.
public struct EmptyResponse: Decodable, Sendable, Hashable {
    /// Creates an empty response.
    public init() {}
    /// Reads nothing.
    public init(from decoder: any Decoder) throws {}
}

/// A REST call: method, path relative to the client's base URL (or an absolute `http(s)` URL),
/// query items, headers, an optional JSON or raw body, and how to decode the answer.
///
/// ```swift
/// let request = RESTRequest<Product>.get("products/42", query: ["currency": "EUR"])
/// let product = try await client.send(request).value
/// ```
public struct RESTRequest<Value: Sendable>: Sendable {
    /// The method.
    public var method: HTTPMethod
    /// The path, relative to the client's REST base URL (a leading `/` is allowed); an absolute
    /// `http` or `https` URL (a `next` link a server gave, say) is used as it is.
    public var path: String
    /// Query items, in order.
    public var queryItems: [URLQueryItem]
    /// Headers of this request; they override the client's default headers.
    public var headers: [String: String]
    /// The body to send as JSON, if any.
    public var body: (any Encodable & Sendable)?
    /// A body sent byte for byte with its content type, in place of ``body`` (which must then be
    /// `nil`): a form, a file, what a generated OpenAPI client encoded.
    public var rawBody: RawBody?
    /// Whether an answer with a status outside 2xx is this request's response rather than an
    /// error. The middleware chain still sees the status as an `APIError` first, so a 401 still
    /// refreshes credentials and a 503 is still retried; only what the chain finally ends with
    /// comes back as a response (its status in ``ResponseMetadata/statusCode``), decoded by
    /// its decoding function. Off by default; on for clients that read documented error answers themselves.
    public var acceptsAnyStatus = false
    /// A timeout for this request, overriding the client's.
    public var timeout: Duration?
    /// Whether the request may be retried; by default, whether the method is idempotent.
    public var isIdempotent: Bool
    /// The app's values for the middleware chain (`RequestContext/values`).
    public var values = RequestValues()
    /// Reads the response body.
    @_spi(Engine) public let decode: @Sendable (Data) throws -> Value

    /// A request whose response decodes with `JSONDecoder` (a configured `decoder` may be given).
    public init(
        method: HTTPMethod,
        path: String,
        query: [URLQueryItem] = [],
        headers: [String: String] = [:],
        body: (any Encodable & Sendable)? = nil,
        timeout: Duration? = nil,
        decoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }
    ) where Value: Decodable {
        self.init(method: method, path: path, query: query, headers: headers, body: body, timeout: timeout) { data in
            // The cast cannot fail: the types were just compared.
            if Value.self == EmptyResponse.self { return EmptyResponse() as! Value }
            return try decoder().decode(Value.self, from: data)
        }
    }

    /// A request with a decoding function of its own.
    public init(
        method: HTTPMethod,
        path: String,
        query: [URLQueryItem] = [],
        headers: [String: String] = [:],
        body: (any Encodable & Sendable)? = nil,
        timeout: Duration? = nil,
        decode: @escaping @Sendable (Data) throws -> Value
    ) {
        self.method = method
        self.path = path
        self.queryItems = query
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.isIdempotent = method.isIdempotent
        self.decode = decode
    }

    /// A `GET`.
    public static func get(_ path: String, query: [String: String] = [:]) -> RESTRequest where Value: Decodable {
        RESTRequest(method: .get, path: path, query: Self.items(query))
    }

    /// A `DELETE`.
    public static func delete(_ path: String, query: [String: String] = [:]) -> RESTRequest where Value: Decodable {
        RESTRequest(method: .delete, path: path, query: Self.items(query))
    }

    /// A `POST` with a JSON body.
    public static func post(_ path: String, body: some Encodable & Sendable) -> RESTRequest where Value: Decodable {
        RESTRequest(method: .post, path: path, body: body)
    }

    /// A `PUT` with a JSON body.
    public static func put(_ path: String, body: some Encodable & Sendable) -> RESTRequest where Value: Decodable {
        RESTRequest(method: .put, path: path, body: body)
    }

    /// A `PATCH` with a JSON body.
    public static func patch(_ path: String, body: some Encodable & Sendable) -> RESTRequest where Value: Decodable {
        RESTRequest(method: .patch, path: path, body: body)
    }

    private static func items(_ query: [String: String]) -> [URLQueryItem] {
        query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
    }

    /// What logs, metrics, spans and errors call this request in place of `METHOD path`: an
    /// endpoint's name (an OpenAPI `operationId`, say), so that requests to `products/1` and
    /// `products/2` count as one endpoint. `nil` by default.
    public var operationName: String?

    /// The ``operationName``, or else `METHOD path`, as in logs, metrics and errors; a path longer
    /// than 256 characters is cut there, so that no log line or error grows with a request's size.
    @_spi(Engine) public var summary: String {
        if let operationName { return operationName }
        return path.count > 256 ? "\(method) \(path.prefix(256))…" : "\(method) \(path)"
    }

    /// A body sent as it is: its bytes and their media type.
    public struct RawBody: Sendable, Hashable {
        /// The bytes.
        public var data: Data
        /// The `Content-Type` header sent with them (`application/x-www-form-urlencoded`, say).
        public var contentType: String

        /// A body of `data`, of the media type `contentType`.
        public init(_ data: Data, contentType: String) {
            self.data = data
            self.contentType = contentType
        }
    }
}

/// A GraphQL call: a generated operation and the function that turns its typed data into the
/// caller's domain value. Kits keep the operation internal and publish only the domain value.
///
/// ```swift
/// let request = GraphQLRequest(HeroNameQuery(episode: .jedi)) { data in data.hero?.name }
/// ```
public struct GraphQLRequest<Operation: GraphQLOperation, Value: Sendable>: Sendable {
    /// The operation and its variables.
    public var operation: Operation
    /// Headers of this request; they override the client's default headers.
    public var headers: [String: String]
    /// A timeout for this request, overriding the client's.
    public var timeout: Duration?
    /// Whether the request may be retried: true for queries; a mutation must opt in.
    public var isIdempotent: Bool
    /// How long cached data for this request is trusted after it was received; `nil` leaves it to
    /// the cache's per-type maximum ages.
    public var cacheMaxAge: Duration?
    /// Whether this request may share an HTTP request with others when the client batches
    /// (`APIClientConfiguration/batching`); on by default.
    public var allowsBatching = true
    /// Whether this query or mutation goes over the subscription WebSocket instead of HTTP; `nil`
    /// leaves it to `SubscriptionConfiguration/carriesQueriesAndMutations`. Over the socket it
    /// passes no middleware (the connection authenticated once, with `connection_init`), and an
    /// operation with `@defer` or `@stream` still goes over HTTP.
    public var usesWebSocket: Bool?
    /// Whether a read of the cache that lacks some fields answers with what it has, as Apollo
    /// Kotlin's partial cache results do: with ``CachePolicy/cacheOnly``, and for the cache's
    /// result of ``CachePolicy/cacheAndNetwork``, a missing field is `null` — and where its type
    /// does not allow `null`, the object holding it is, up to the nearest field that does, as a
    /// server nulls a field error — and its path is in ``ResponseMetadata/cacheMisses``. Only
    /// data with nothing to stand in for at all is still a miss. Off by default; other policies
    /// go to the server for what the cache lacks, as before.
    public var allowsPartialCacheData = false
    /// The app's values for the middleware chain (`RequestContext/values`).
    public var values = RequestValues()
    /// Turns the typed data into the domain value; a thrown error becomes ``APIError/mapping(_:)``.
    @_spi(Engine) public let map: @Sendable (Operation.Data) throws -> Value

    /// A request that maps the data with `map`.
    public init(
        _ operation: Operation,
        headers: [String: String] = [:],
        timeout: Duration? = nil,
        map: @escaping @Sendable (Operation.Data) throws -> Value
    ) {
        self.operation = operation
        self.headers = headers
        self.timeout = timeout
        self.isIdempotent = Operation.operationType == .query
        self.cacheMaxAge = nil
        self.map = map
    }
}

extension GraphQLRequest {
    /// The same request (every option kept) with its value mapped on by `transform`, which sees
    /// the typed data too.
    package func mapping<T: Sendable>(_ transform: @escaping @Sendable (Value, Operation.Data) -> T) -> GraphQLRequest<Operation, T> {
        let map = self.map
        var request = GraphQLRequest<Operation, T>(operation, headers: headers, timeout: timeout) { data in transform(try map(data), data) }
        request.isIdempotent = isIdempotent
        request.cacheMaxAge = cacheMaxAge
        request.allowsBatching = allowsBatching
        request.usesWebSocket = usesWebSocket
        request.allowsPartialCacheData = allowsPartialCacheData
        request.values = values
        return request
    }
}

extension GraphQLRequest where Value == Operation.Data {
    /// A request whose value is the generated data itself.
    public init(_ operation: Operation, headers: [String: String] = [:], timeout: Duration? = nil) {
        self.init(operation, headers: headers, timeout: timeout) { $0 }
    }
}

extension GraphQLRequest {
    /// Validates `data` against the operation's selection set and maps it to the domain value.
    /// A mismatch names its path under `data`; a failing `map` becomes ``APIError/mapping(_:)``.
    package func value(from data: JSONObject, statusCode: Int?, body: Data) throws(APIError) -> Value {
        let typed: Operation.Data
        do throws(GraphQLDecodingError) {
            typed = try Operation.Data(validating: data, variables: operation.coercedVariables)
        } catch {
            throw .invalidResponse(InvalidResponse(
                kind: .wrongShape(error.prefixed(by: .field("data"))), statusCode: statusCode,
                request: Operation.operationName, bodyExcerpt: HTTPFailure.excerpt(of: body)))
        }
        return try value(of: typed)
    }

    /// Maps data that was validated already to the domain value.
    package func value(of data: Operation.Data) throws(APIError) -> Value {
        do {
            return try map(data)
        } catch let error as APIError {
            throw error
        } catch {
            throw .mapping("\(Operation.operationName): \(error)")
        }
    }
}

/// A key for an app-defined value that a request carries to the middleware chain, as
/// `ServiceContext` or `@TaskLocal` keys do: a type per value, so that two apps' keys never clash.
///
/// ```swift
/// enum TraceParent: RequestValueKey { typealias Value = String }
/// var request = GraphQLRequest(HouseholdQuery(id: "hh-1"))
/// request.values[TraceParent.self] = "00-4bf9…-01"
/// // in a middleware: context.values[TraceParent.self]
/// ```
public protocol RequestValueKey {
    /// The type of the value.
    associatedtype Value: Sendable
}

/// App-defined values a request carries, by typed key (``RequestValueKey``); middleware reads them
/// from `RequestContext/values`.
public struct RequestValues: Sendable {
    private var values: [ObjectIdentifier: any Sendable] = [:]

    /// No values.
    public init() {}

    /// The value for a key, or `nil` when the request has none; setting `nil` removes it.
    public subscript<Key: RequestValueKey>(_ key: Key.Type) -> Key.Value? {
        get { values[ObjectIdentifier(key)] as? Key.Value }
        set { values[ObjectIdentifier(key)] = newValue }
    }

    /// Whether the request carries no value.
    public var isEmpty: Bool { values.isEmpty }
}
