import Foundation

/// A GraphQL answer with its errors as values: what data came (mapped) and the errors that came
/// with it, so that a screen shows what it can and marks what failed, without catching.
///
/// ```swift
/// let result = try await client.fetchResult(request)
/// show(result.value)                 // nil when no usable data came
/// mark(failed: result.errors)        // each error with its path
/// ```
public struct GraphQLResult<Value: Sendable>: Sendable {
    /// The data mapped to the caller's value: the whole answer's, or the partial data that came
    /// with errors when it fits the selections; `nil` when none came or it does not fit.
    public var value: Value?
    /// The errors the server sent with the data (empty for a whole answer).
    public var errors: [GraphQLError]
    /// The answer's metadata, for a whole answer (an answer with errors has none).
    public var metadata: ResponseMetadata?

    /// Creates a result.
    @_spi(Engine) public init(value: Value?, errors: [GraphQLError], metadata: ResponseMetadata?) {
        self.value = value
        self.errors = errors
        self.metadata = metadata
    }

    /// A whole answer.
    public init(_ response: Response<Value>) {
        self.init(value: response.value, errors: [], metadata: response.metadata)
    }
}

extension APIClient {
    /// ``fetch(_:cachePolicy:)`` with GraphQL errors as values: an answer with errors gives its
    /// partial data (mapped, when it fits the selections) and the errors; anything else that fails
    /// (no connection, an answer that is not GraphQL, a mapping error) is thrown as before.
    public func fetchResult<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy = .default)
        async throws(APIError) -> GraphQLResult<Value>
    {
        do throws(APIError) {
            return GraphQLResult(try await fetch(request, cachePolicy: cachePolicy))
        } catch {
            return try Self.result(of: error, for: request)
        }
    }

    /// ``watch(_:cachePolicy:)`` with GraphQL errors as values, as ``fetchResult(_:cachePolicy:)``
    /// gives them; other failures stay failures.
    public func watchResults<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy = .default)
        -> APIStream<Result<GraphQLResult<Value>, APIError>>
    {
        watch(request, cachePolicy: cachePolicy).map { Self.result(of: $0, for: request) }
    }

    private static func result<Query: GraphQLQuery, Value>(
        of element: Result<Response<Value>, APIError>, for request: GraphQLRequest<Query, Value>
    ) -> Result<GraphQLResult<Value>, APIError> {
        switch element {
        case .success(let response): return .success(GraphQLResult(response))
        case .failure(let error): return Result { () throws(APIError) in try result(of: error, for: request) }
        }
    }

    /// The errors of a GraphQL failure, with its partial data mapped when it fits; any other error
    /// thrown again.
    private static func result<Query: GraphQLQuery, Value>(of error: APIError, for request: GraphQLRequest<Query, Value>)
        throws(APIError) -> GraphQLResult<Value>
    {
        guard case .graphQL(let failure) = error else { throw error }
        let value = failure.partialData.flatMap { data in try? request.value(from: data, statusCode: failure.statusCode, body: Data()) }
        return GraphQLResult(value: value, errors: failure.errors, metadata: nil)
    }
}
