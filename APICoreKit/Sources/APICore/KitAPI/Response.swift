import Foundation

/// Where a response came from.
public enum ResponseSource: String, Sendable, Hashable {
    /// The server answered this request.
    case server
    /// The local cache answered.
    case cache
}

/// What is known about how a value was obtained.
public struct ResponseMetadata: Sendable, Hashable {
    /// Server or cache.
    public var source: ResponseSource
    /// The HTTP status, when the server answered.
    public var statusCode: Int?
    /// The response headers, names lowercased.
    public var headers: [String: String]
    /// From the start of the request to the decoded value.
    public var duration: Duration
    /// The GraphQL operation's name, or `METHOD path` for REST.
    public var operationName: String
    /// From the cache, and older than its maximum age (only `cacheOnly`, or offline, return such data).
    public var isStale: Bool
    /// From the cache because the server could not be reached.
    public var isOfflineFallback: Bool
    /// From the cache, with data that a mutation's optimistic response laid over it: what the
    /// app expects the server to say, not yet confirmed (the server's answer, or the mutation's
    /// failure, replaces it).
    public var isOptimistic: Bool
    /// The `extensions` of a GraphQL server's answer (cost, tracing, whatever the server adds);
    /// `nil` from the cache, for REST, and when the answer had none.
    public var extensions: JSONObject?
    /// The errors of the server's answer that fields with `@catch(to: NULL | RESULT)` caught: the
    /// data holds each where it was caught (a `null`, or a `Result.failure`). Empty otherwise.
    public var caughtErrors: [GraphQLError]
    /// From a partial read of the cache (``GraphQLRequest/allowsPartialCacheData``): the paths of
    /// the fields the cache lacks, each `null` in the data (or an object above it, where the
    /// field cannot be `null`). Empty for a whole answer.
    public var cacheMisses: [ResponsePath]

    /// Creates metadata.
    @_spi(Engine) public init(
        source: ResponseSource, statusCode: Int?, headers: [String: String], duration: Duration, operationName: String,
        isStale: Bool = false, isOfflineFallback: Bool = false, isOptimistic: Bool = false, extensions: JSONObject? = nil,
        caughtErrors: [GraphQLError] = [], cacheMisses: [ResponsePath] = []
    ) {
        self.cacheMisses = cacheMisses
        self.extensions = extensions
        self.caughtErrors = caughtErrors
        self.source = source
        self.statusCode = statusCode
        self.headers = headers
        self.duration = duration
        self.operationName = operationName
        self.isStale = isStale
        self.isOfflineFallback = isOfflineFallback
        self.isOptimistic = isOptimistic
    }
}

/// A value with the metadata of the response it came from.
public struct Response<Value: Sendable>: Sendable {
    /// The decoded (and mapped) value.
    public var value: Value
    /// How it was obtained.
    public var metadata: ResponseMetadata

    /// Creates a response.
    @_spi(Engine) public init(value: Value, metadata: ResponseMetadata) {
        self.value = value
        self.metadata = metadata
    }

    /// Server or cache.
    public var source: ResponseSource { metadata.source }
    /// The HTTP status, when the server answered.
    public var statusCode: Int? { metadata.statusCode }

    /// The same metadata with another value.
    public func map<T: Sendable, E: Error>(_ transform: (Value) throws(E) -> T) throws(E) -> Response<T> {
        Response<T>(value: try transform(value), metadata: metadata)
    }
}

extension Response: Equatable where Value: Equatable {}
