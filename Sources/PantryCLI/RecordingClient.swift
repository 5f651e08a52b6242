import APICore
import Foundation

/// An `APIClient` that forwards to another and remembers the metadata of each answer, so that the
/// CLI can say where a kit's result came from (cache or server) without the kits exposing it.
/// It is the composition root's own decorator: kits only ever see `APIClient`.
final class RecordingClient: APIClient {
    private let base: any APIClient
    private let recorded = LockedBox<[ResponseMetadata]>([])

    init(_ base: any APIClient) { self.base = base }

    /// The metadata recorded since the last call, oldest first, and forgets them.
    func drain() -> [ResponseMetadata] {
        recorded.withLock { records in
            defer { records = [] }
            return records
        }
    }

    private func record<T>(_ response: Response<T>) -> Response<T> {
        recorded.withLock { $0.append(response.metadata) }
        return response
    }

    func send<Value>(_ request: RESTRequest<Value>) async throws(APIError) -> Response<Value> {
        record(try await base.send(request))
    }

    func fetch<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy) async throws(APIError)
        -> Response<Value>
    {
        record(try await base.fetch(request, cachePolicy: cachePolicy))
    }

    func responses<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy)
        -> APIStream<Result<Response<Value>, APIError>>
    {
        base.responses(request, cachePolicy: cachePolicy).map { [self] result in result.map(record) }
    }

    func watch<Query: GraphQLQuery, Value>(_ request: GraphQLRequest<Query, Value>, cachePolicy: CachePolicy)
        -> APIStream<Result<Response<Value>, APIError>>
    {
        base.watch(request, cachePolicy: cachePolicy).map { [self] result in result.map(record) }
    }

    func subscribe<Subscription: GraphQLSubscription, Value>(_ request: GraphQLRequest<Subscription, Value>) -> APISubscription<Value> {
        base.subscribe(request)
    }

    func perform<Mutation: GraphQLMutation, Value>(_ request: GraphQLRequest<Mutation, Value>, optimisticResponse: Mutation.Data?)
        async throws(APIError) -> Response<Value>
    {
        record(try await base.perform(request, optimisticResponse: optimisticResponse))
    }

    func performOrQueue<Mutation: GraphQLMutation, Value>(_ request: GraphQLRequest<Mutation, Value>, optimisticResponse: Mutation.Data?)
        async throws(APIError) -> MutationOutcome<Value>
    {
        let outcome = try await base.performOrQueue(request, optimisticResponse: optimisticResponse)
        if case .sent(let response) = outcome { _ = record(response) }
        return outcome
    }

    // Cache editing and the offline queue answer no response to record: the base client's.
    var cache: any GraphQLCache { base.cache }
    var offlineQueue: any OfflineMutationQueue { base.offlineQueue }
}
