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
/// When the policy reads the cache and the memory cache holds the data, the model has its value
/// as soon as it is made, without waiting (``GraphQLCache/readInMemory(_:)``): a view's first
/// frame shows it. Otherwise the value comes when the watch yields it.
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
        if let cached = Self.firstValue(of: request, in: client.cache, under: cachePolicy) {
            value = cached.value
            metadata = cached.metadata
            isLoading = cachePolicy == .cacheAndNetwork
        }
        let updates = client.watch(request, cachePolicy: cachePolicy)
        watching = Task { [weak self] in
            for await result in updates {
                guard let self, !Task.isCancelled else { return }
                self.apply(result)
            }
        }
    }

    deinit {
        watching?.cancel()
    }

    /// What the memory cache answers at once, where the policy would answer from the cache: stale
    /// data only where the policy gives it too.
    private static func firstValue(of request: GraphQLRequest<Query, Value>, in cache: any GraphQLCache, under policy: CachePolicy)
        -> Response<Value>?
    {
        switch policy {
        case .networkOnly, .noCache: return nil
        case .cacheElseNetwork: return cache.readInMemory(request).flatMap { $0.metadata.isStale ? nil : $0 }
        case .cacheOnly, .cacheAndNetwork: return cache.readInMemory(request)
        }
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

/// A fragment's data at one cached record as an observable model, for SwiftUI and any
/// `@MainActor` code: a row that shows one object, and changes when any query, mutation or
/// subscription changes that object in the cache.
///
/// ```swift
/// struct MemberRow: View {
///     @State private var member: WatchedFragment<MemberDetails>
///     init(id: String, client: any APIClient) {
///         _member = State(initialValue: WatchedFragment(MemberDetails.self, key: "Member:\(id)", in: client.cache))
///     }
///     var body: some View { Text(member.value?.name ?? "…") }
/// }
/// ```
///
/// When the memory cache holds the data, the model has it as soon as it is made. The cache is
/// its only source: to ask the server, fetch a query that selects the fragment. The watch ends
/// with ``stop()`` or when the model goes away.
@Observable @MainActor
public final class WatchedFragment<Fragment: APICore.Fragment> {
    /// The fragment's latest data, or `nil` before the first read found it.
    public private(set) var value: Fragment?
    /// Whether the first read of the cache is still to come.
    public private(set) var isLoading: Bool
    /// The latest error: ``APIError/cacheMiss(_:)`` while the cache lacks a selected field (the
    /// model keeps the last value it had); the next value clears it.
    public private(set) var error: APIError?
    /// The key of the record read.
    public let key: String

    @ObservationIgnored private var watching: Task<Void, Never>?

    /// Watches `fragment` at the record with `key` in `cache` (`client.cache`).
    public init(_ fragment: Fragment.Type, key: String, variables: JSONObject = [:], in cache: any GraphQLCache) {
        self.key = key
        let first = cache.readInMemory(fragment, key: key, variables: variables)
        value = first
        isLoading = first == nil
        let updates = cache.watch(fragment, key: key, variables: variables)
        watching = Task { [weak self] in
            for await result in updates {
                guard let self, !Task.isCancelled else { return }
                self.isLoading = false
                switch result {
                case .success(let data):
                    self.value = data
                    self.error = nil
                case .failure(let failure):
                    self.error = failure
                }
            }
        }
    }

    deinit {
        watching?.cancel()
    }

    /// Stops watching; the model keeps what it holds.
    public func stop() {
        watching?.cancel()
        watching = nil
        isLoading = false
    }
}

/// A ``GraphQLPager``'s list as an `@Observable` model for SwiftUI and any `@MainActor` code: the
/// items loaded so far (updated when the cache changes them), whether there are more at either end,
/// whether a load is under way, and the latest error.
///
/// ```swift
/// @State var products = PagedListModel(pager)
/// List(products.items, id: \.id) { ProductRow($0) }
///     .task { await products.loadNext() }
/// Button("More") { Task { await products.loadNext() } }.disabled(!products.hasNext || products.isLoading)
/// ```
@Observable @MainActor
public final class PagedListModel<Item: Sendable> {
    /// Every item of the pages loaded, in order.
    public private(set) var items: [Item] = []
    /// Whether there is a page after the last one loaded (before the first load: `true`).
    public private(set) var hasNext = true
    /// Whether there is a page before the first one loaded.
    public private(set) var hasPrevious = false
    /// Whether a load is under way.
    public private(set) var isLoading = false
    /// The latest error (of a load, or of a page's watch); the next list or load clears it.
    public private(set) var error: APIError?

    @ObservationIgnored private let pager: GraphQLPager<Item>
    @ObservationIgnored private var observing: Task<Void, Never>?

    /// Shows `pager`'s list; nothing is loaded until ``loadNext()``.
    public init(_ pager: GraphQLPager<Item>) {
        self.pager = pager
        let lists = pager.list()
        observing = Task { [weak self] in
            for await list in lists {
                guard let self, !Task.isCancelled else { return }
                self.show(list)
            }
        }
    }

    deinit {
        observing?.cancel()
    }

    /// Loads the next page (the first one when none is loaded).
    public func loadNext() async {
        await load { pager throws(APIError) in try await pager.loadNext() }
    }

    /// Loads the page before the first one.
    public func loadPrevious() async {
        await load { pager throws(APIError) in try await pager.loadPrevious() }
    }

    /// Drops every page and loads the first one again from the server.
    public func refresh() async {
        await load { pager throws(APIError) in try await pager.refresh() }
    }

    /// Stops following the pager's list; the model keeps what it holds.
    public func stop() {
        observing?.cancel()
        observing = nil
    }

    private func load(_ body: @Sendable (GraphQLPager<Item>) async throws(APIError) -> Void) async {
        isLoading = true
        defer { isLoading = false }
        do throws(APIError) {
            try await body(pager)
            error = nil
            if let current = await pager.current { show(.success(current)) }
        } catch {
            self.error = error
        }
    }

    private func show(_ list: Result<PagedList<Item>, APIError>) {
        switch list {
        case .success(let list):
            items = list.items
            hasNext = list.hasNext
            hasPrevious = list.hasPrevious
            error = nil
        case .failure(let failure):
            error = failure
        }
    }
}
