import Observation

/// A watched query as an observable model, for SwiftUI and any `@MainActor` code: it holds the
/// latest value, where it came from, whether a fetch is under way and the latest error, and
/// updates them as ``APIClient/watch(_:cachePolicy:)`` yields, whoever changed the cache.
///
/// ```swift
/// struct HouseholdView: View {
///     @State private var household: WatchedQuery<HouseholdQuery, Household>
///     var body: some View {
///         if let value = household.value { HouseholdRow(value) } else if household.isLoading { ProgressView() }
///     }
/// }
/// ```
///
/// The watch starts when the model is made and ends with ``stop()`` or when the model goes away.
/// Its first value arrives asynchronously, even when the cache has the data.
@Observable @MainActor
public final class WatchedQuery<Query: GraphQLQuery, Value: Sendable> {
    /// The latest value, or `nil` before the first.
    public private(set) var value: Value?
    /// The metadata of the latest value: where it came from, whether it is stale or optimistic.
    public private(set) var metadata: ResponseMetadata?
    /// Whether a fetch is under way: the first one, or a ``refetch()``.
    public private(set) var isLoading: Bool
    /// The latest error (a failed fetch, a cache miss); the next value clears it.
    public private(set) var error: APIError?

    @ObservationIgnored private let client: any APIClient
    @ObservationIgnored private let request: GraphQLRequest<Query, Value>
    @ObservationIgnored private var watching: Task<Void, Never>?

    /// Watches `request` on `client` under `cachePolicy`.
    public init(_ request: GraphQLRequest<Query, Value>, client: any APIClient, cachePolicy: CachePolicy = .default) {
        self.client = client
        self.request = request
        isLoading = true
        let updates = client.watch(request, cachePolicy: cachePolicy)
        watching = Task { [weak self] in
            for await result in updates {
                guard let self else { return }
                self.apply(result)
            }
        }
    }

    deinit {
        watching?.cancel()
    }

    /// Where the latest value came from, or `nil` before the first.
    public var source: ResponseSource? { metadata?.source }

    /// Fetches the query from the server again; its answer reaches the model as the watch yields
    /// it (the cache changed), and a failure becomes ``error``.
    public func refetch() async {
        isLoading = true
        do throws(APIError) {
            apply(.success(try await client.fetch(request, cachePolicy: .networkOnly)))
        } catch {
            apply(.failure(error))
        }
    }

    /// Stops watching; the model keeps what it holds.
    public func stop() {
        watching?.cancel()
        watching = nil
        isLoading = false
    }

    private func apply(_ result: Result<Response<Value>, APIError>) {
        isLoading = false
        switch result {
        case .success(let response):
            value = response.value
            metadata = response.metadata
            error = nil
        case .failure(let failure):
            error = failure
        }
    }
}
