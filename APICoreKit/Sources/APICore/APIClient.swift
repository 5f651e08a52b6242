import Foundation

// `URLRequest` is part of the middleware API; on Linux it lives in FoundationNetworking, which
// every user of `APICore` then sees without importing it.
#if canImport(FoundationNetworking)
    @_exported import FoundationNetworking
#endif

/// The one client a kit talks to, for REST and GraphQL alike. A kit sees only this protocol: which
/// engine is behind it (ours, a mock, or an Apollo-backed one) is the app's choice.
///
/// Every method throws ``APIError`` only; cancelling the calling task cancels the request and
/// throws ``APIError/cancelled``.
public protocol APIClient: Sendable {
    /// Sends a REST request through the middleware chain and decodes its answer.
    func send<Value>(_ request: RESTRequest<Value>) async throws(APIError) -> Response<Value>

    /// Fetches a query and maps its data.
    func fetch<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>) async throws(APIError) -> Response<Value>

    /// Performs a mutation and maps its data.
    func perform<Mutation: GraphQLMutation, Value>(_ request: GraphQLRequest<Mutation, Value>) async throws(APIError)
        -> Response<Value>
}

extension APIClient {
    /// Fetches a query and returns its generated data.
    public func fetch<Query: GraphQLQuery>(_ query: Query) async throws(APIError) -> Response<Query.Data> {
        try await fetch(GraphQLRequest(query))
    }

    /// Performs a mutation and returns its generated data.
    public func perform<Mutation: GraphQLMutation>(_ mutation: Mutation) async throws(APIError) -> Response<Mutation.Data> {
        try await perform(GraphQLRequest(mutation))
    }
}
