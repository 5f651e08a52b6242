/// One page's request, whatever its query: the first page's or a next-page query, mapped to the
/// same page value.
public struct PageRequest<Page: Sendable>: Sendable {
    let fetch: @Sendable (any APIClient, CachePolicy) async throws(APIError) -> Sourced<Page>
    let watch: @Sendable (any APIClient, CachePolicy) -> APIStream<Result<Sourced<Page>, APIError>>
    /// Whether the query holds a connection field, whose pages the cache merges into one list.
    let mergedInCache: Bool
    /// Where in the query's data the one list of a selection set's objects is (response keys).
    let listPath: @Sendable (ObjectIdentifier) -> ResponsePath?

    /// A page loaded with `request`.
    public init<Query: GraphQLQuery>(_ request: GraphQLRequest<Query, Page>) {
        let sourced = request.mapping { page, data in Sourced(value: page, data: data.jsonObject) }
        fetch = { client, policy throws(APIError) in try await client.fetch(sourced, cachePolicy: policy).value }
        watch = { client, policy in client.watch(sourced, cachePolicy: policy).map { result in result.map(\.value) } }
        mergedInCache = Selection.holdConnection(Query.Data.__selections)
        listPath = { element in Selection.path(toListOf: element, in: Query.Data.__selections) }
    }
}

/// A value and the data it was mapped from: equal data, equal value (maps are pure), so a page
/// read again unchanged is not mapped to items again.
struct Sourced<Value: Sendable>: Sendable {
    let value: Value
    let data: JSONObject
}

extension OutputType {
    /// The selection set of an object field, through lists and non-null.
    package var selectionSet: (any SelectionSet.Type)? {
        switch self {
        case .nonNull(let inner), .list(let inner): return inner.selectionSet
        case .object(let selectionSet): return selectionSet
        case .scalar: return nil
        }
    }
}

extension Selection {
    /// Whether `selections` hold a connection field (`Field.pagination`) at any depth.
    package static func holdConnection(_ selections: [Selection]) -> Bool {
        var seen: Set<ObjectIdentifier> = []
        return holdConnection(selections, seen: &seen)
    }

    private static func holdConnection(_ selections: [Selection], seen: inout Set<ObjectIdentifier>) -> Bool {
        for field in fields(of: selections) {
            if field.pagination != nil { return true }
            if let nested = field.type.selectionSet, seen.insert(ObjectIdentifier(nested)).inserted,
                holdConnection(nested.__selections, seen: &seen)
            {
                return true
            }
        }
        return false
    }

    /// The response keys that lead from the object of `selections` to the list field whose
    /// elements are `element`'s selection set, through object fields (not into lists); `nil` when
    /// no list or more than one holds such elements.
    package static func path(toListOf element: ObjectIdentifier, in selections: [Selection]) -> ResponsePath? {
        var found: Set<[String]> = []
        paths(toListOf: element, in: selections, under: [], into: &found)
        guard found.count == 1, let keys = found.first else { return nil }
        return ResponsePath(keys.map(ResponsePath.Component.field))
    }

    private static func paths(toListOf element: ObjectIdentifier, in selections: [Selection], under path: [String], into found: inout Set<[String]>) {
        guard path.count < 32 else { return }
        for field in fields(of: selections) {
            var type = field.type
            if case .nonNull(let inner) = type { type = inner }
            switch type {
            case .list(var elementType):
                if case .nonNull(let inner) = elementType { elementType = inner }
                if case .object(let selectionSet) = elementType, ObjectIdentifier(selectionSet) == element {
                    found.insert(path + [field.responseKey])
                }
            case .object(let selectionSet):
                paths(toListOf: element, in: selectionSet.__selections, under: path + [field.responseKey], into: &found)
            case .nonNull, .scalar:
                break
            }
        }
    }
}

/// The list a pager has loaded so far.
public struct PagedList<Item: Sendable>: Sendable {
    /// Every item of the pages loaded, in order.
    public var items: [Item]
    /// Whether there is a page after the last one loaded.
    public var hasNext: Bool
    /// Whether there is a page before the first one loaded.
    public var hasPrevious: Bool
    /// How many pages were loaded.
    public var pageCount: Int
}

/// A page as the pager keeps it: its items, the requests of the pages on either side, and the
/// data it was mapped from (with the list its items were mapped from one by one, if they were).
struct LoadedPage<Item: Sendable>: Sendable {
    var mapped: Mapped<Item>
    var next: PageSource<Item>?
    var previous: PageSource<Item>?
    var data: JSONObject

    var items: [Item] { mapped.items }
}

/// How a page becomes items: the whole page at once, or the objects of one of its lists one by one.
struct ItemMapping<Page: Sendable, Item: Sendable>: Sendable {
    /// The selection set of the list's elements, when mapped one by one.
    let element: ObjectIdentifier?
    /// A page's items from its data, the path of the list in that data, and what the page was
    /// mapped to before (taken over: its items are kept for the elements that did not change, in
    /// place when nothing else holds them); and the list they were mapped from.
    let map: @Sendable (_ page: Sourced<Page>, _ listPath: ResponsePath?, _ before: consuming Mapped<Item>?) -> Mapped<Item>

    /// The app's map of a whole page.
    static func whole(_ items: @escaping @Sendable (Page) -> [Item]) -> Self {
        ItemMapping(element: nil) { page, _, _ in Mapped(items: items(page.value), list: nil) }
    }

    /// The app's map of one element of the page's list; what the list holds unchanged at its
    /// start and at its end keeps the items mapped before.
    static func elementwise<Element: SelectionSet>(
        _ elements: KeyPath<Page, [Element]> & Sendable, _ item: @escaping @Sendable (Element) -> Item
    ) -> Self {
        // The list is found in the data by its element type, so only in generated data: a page type
        // of the app's own may hold a list it filtered or sorted, which the key path then reads.
        ItemMapping(element: Page.self is any SelectionSet.Type ? ObjectIdentifier(Element.self) : nil) { page, listPath, before in
            let whole = { Mapped(items: page.value[keyPath: elements].map(item), list: nil) }
            guard let listPath, let list = page.data.value(at: listPath)?.arrayValue else { return whole() }
            var items: [Item] = []
            var keptAtStart = 0
            var keptAtEnd = 0
            if let before = consume before, let old = before.list, old.count == before.items.count {
                keptAtStart = list.matchingPrefixCount(old)
                keptAtEnd = list.matchingSuffixCount(old, limit: Swift.min(list.count, old.count) - keptAtStart)
                items = before.items
            }
            var changed: [Item] = []
            changed.reserveCapacity(list.count - keptAtStart - keptAtEnd)
            for value in list[keptAtStart..<(list.count - keptAtEnd)] {
                guard case .object(let object) = value else { return whole() }
                changed.append(item(Element(_dataDict: DataDict(_data: object))))
            }
            items.replaceSubrange(keptAtStart..<(items.count - keptAtEnd), with: changed)
            return Mapped(items: items, list: list)
        }
    }
}

/// A page's items, and the list of objects they were mapped from one by one (if they were).
struct Mapped<Item: Sendable>: Sendable {
    var items: [Item]
    var list: [JSONValue]?
}

/// A page request with its page type erased: how to load and watch it, as a loaded page. What
/// the watcher yields is mapped by the pager, and only when its data changed.
struct PageSource<Item: Sendable>: Sendable {
    /// A page's data, and how to map it given what the page was before.
    typealias Update = Sourced<@Sendable (consuming LoadedPage<Item>?) -> LoadedPage<Item>>

    let fetch: @Sendable (any APIClient, CachePolicy) async throws(APIError) -> Update
    let watch: @Sendable (any APIClient) -> APIStream<Result<Update, APIError>>
    let mergedInCache: Bool

    init<Page>(
        _ request: PageRequest<Page>, next: @escaping @Sendable (Page) -> PageRequest<Page>?,
        previous: @escaping @Sendable (Page) -> PageRequest<Page>?, items: ItemMapping<Page, Item>
    ) {
        let listPath = items.element.flatMap(request.listPath)
        @Sendable func loaded(_ page: Sourced<Page>, before: consuming LoadedPage<Item>?) -> LoadedPage<Item> {
            let earlier: Mapped<Item>?
            switch consume before {
            case .some(let page): earlier = page.mapped
            case .none: earlier = nil
            }
            return LoadedPage(
                mapped: items.map(page, listPath, earlier), next: next(page.value).map { PageSource($0, next: next, previous: previous, items: items) },
                previous: previous(page.value).map { PageSource($0, next: next, previous: previous, items: items) }, data: page.data)
        }
        @Sendable func deferred(_ page: Sourced<Page>) -> Update {
            Sourced(value: { loaded(page, before: $0) }, data: page.data)
        }
        fetch = { client, policy throws(APIError) in deferred(try await request.fetch(client, policy)) }
        watch = { client in request.watch(client, .networkOnly).map { result in result.map(deferred) } }
        mergedInCache = request.mergedInCache
    }
}

/// A paged list query, page by page: ``loadNext()`` and ``loadPrevious()`` load a page at either
/// end, ``refresh()`` starts again from the first page, and ``list()`` yields the whole list so far
/// (mapped to the app's items) whenever a page arrives or a record in any loaded page changes.
///
/// The app says how pages go: the first page's request, and from a page, the request of the page
/// after it (and before it), or `nil` when there is none; the pages may all use one query or
/// different ones (a first query, then a next-page query), cursors or offsets. The page type stays
/// inside: a kit hands out a `GraphQLPager<Product>` without its generated types. When the query
/// holds a connection field (`Field.pagination`), the cache merges the pages into one list and
/// the pager watches the first page alone; otherwise it watches each page and joins them.
///
/// A page that fails is an error element of ``list()`` (and thrown to the caller), never the end
/// of it; calling again retries it. Concurrent calls to ``loadNext()`` share one request.
///
/// ```swift
/// let pager = GraphQLPager(
///     client: client, first: PageRequest(productsRequest(after: nil)),
///     next: { page in page.hasNextPage ? PageRequest(productsRequest(after: page.endCursor)) : nil },
///     items: { $0.products })
/// Task { for await list in pager.list() { show(try list.get().items) } }
/// try await pager.loadNext()   // the first page, then each next one
/// ```
public actor GraphQLPager<Item: Sendable> {
    private let client: any APIClient
    private let first: PageSource<Item>

    /// The pages loaded, in list order, each with its latest state and the task that watches it.
    private var pages: [(id: UInt64, page: LoadedPage<Item>?, watcher: Task<Void, Never>?)] = []
    private var nextPageID: UInt64 = 0
    /// The load in flight at each end (`true`: the end, `false`: the start), shared by concurrent calls.
    private var loading: [Bool: Task<Result<Void, APIError>, Never>] = [:]
    private var observers: [UInt64: AsyncStream<Result<PagedList<Item>, APIError>>.Continuation] = [:]
    private var nextObserver: UInt64 = 0

    /// A pager; nothing is loaded until ``loadNext()``.
    public init<Page>(
        client: any APIClient, first: PageRequest<Page>, next: @escaping @Sendable (Page) -> PageRequest<Page>?,
        previous: @escaping @Sendable (Page) -> PageRequest<Page>? = { _ in nil }, items: @escaping @Sendable (Page) -> [Item]
    ) {
        self.client = client
        self.first = PageSource(first, next: next, previous: previous, items: .whole(items))
    }

    /// A pager whose items are the objects of one list of each page, each mapped on its own:
    /// when a page is read again (a merged page joined the list, a record changed), only the
    /// objects that changed are mapped again; the others keep their items. `item` must depend
    /// on its object's data alone.
    ///
    /// When the page is generated data, the pager reads the list from the page's data where the
    /// query selects it (the one list of `Element`s), so `elements` should be the generated
    /// accessors that lead there (`\.nodes`, `\.edges`), not a property of the app's that
    /// filters or sorts them. A page type of the app's own is mapped through `elements` whole,
    /// each time.
    ///
    /// ```swift
    /// GraphQLPager(client: client, first: first, next: next, elements: \.nodes) { Product($0.fragments.productDetails) }
    /// ```
    public init<Page, Element: SelectionSet>(
        client: any APIClient, first: PageRequest<Page>, next: @escaping @Sendable (Page) -> PageRequest<Page>?,
        previous: @escaping @Sendable (Page) -> PageRequest<Page>? = { _ in nil }, elements: KeyPath<Page, [Element]> & Sendable,
        item: @escaping @Sendable (Element) -> Item
    ) {
        self.client = client
        self.first = PageSource(first, next: next, previous: previous, items: .elementwise(elements, item))
    }

    deinit {
        for page in pages { page.watcher?.cancel() }
    }

    /// The list so far, now (once a page is loaded) and after every change; errors of pages are
    /// elements. Stop iterating to stop observing.
    public nonisolated func list() -> APIStream<Result<PagedList<Item>, APIError>> {
        APIStream { continuation in
            let registration = Task { await self.observe(continuation) }
            continuation.onTermination = { _ in
                Task { await self.stopObserving(await registration.value) }
            }
        }
    }

    private func observe(_ continuation: AsyncStream<Result<PagedList<Item>, APIError>>.Continuation) -> UInt64 {
        nextObserver += 1
        observers[nextObserver] = continuation
        if let current { continuation.yield(.success(current)) }
        return nextObserver
    }

    private func stopObserving(_ id: UInt64) { observers[id] = nil }

    /// The list as the pages loaded make it, or `nil` before the first page.
    public var current: PagedList<Item>? {
        let loaded = pages.compactMap(\.page)
        guard let head = loaded.first, let tail = loaded.last else { return nil }
        if first.mergedInCache {
            // The first page's data is the whole list, its page info spanning every page.
            return PagedList(items: head.items, hasNext: head.next != nil, hasPrevious: head.previous != nil, pageCount: pages.count)
        }
        return PagedList(items: loaded.flatMap(\.items), hasNext: tail.next != nil, hasPrevious: head.previous != nil, pageCount: pages.count)
    }

    /// Loads the page after the last one (the first page when none is loaded). Returns at once
    /// when there is no next page; shares a load already in flight.
    public func loadNext() async throws(APIError) {
        try await loadShared(atEnd: true)
    }

    /// Loads the page before the first one. Returns at once when there is none.
    public func loadPrevious() async throws(APIError) {
        try await loadShared(atEnd: false)
    }

    /// A load at one end, or the one already in flight there.
    private func loadShared(atEnd: Bool) async throws(APIError) {
        if let running = loading[atEnd] { return try await running.value.get() }
        let task = Task { await self.load(atEnd: atEnd) }
        loading[atEnd] = task
        defer { loading[atEnd] = nil }
        try await task.value.get()
    }

    /// Drops every page and loads the first one again from the server.
    public func refresh() async throws(APIError) {
        for page in pages { page.watcher?.cancel() }
        pages = []
        try await load(atEnd: true).get()
    }

    private func load(atEnd: Bool) async -> Result<Void, APIError> {
        let source: PageSource<Item>
        if pages.isEmpty {
            source = first
        } else {
            let loaded = pages.compactMap(\.page)
            let anchor = first.mergedInCache ? loaded.first : (atEnd ? loaded.last : loaded.first)
            guard let anchor, let following = atEnd ? anchor.next : anchor.previous else { return .success(()) }
            source = following
        }
        // With pages merged in the cache, only the first page is watched: the others are fetched
        // into it, and its watcher yields the list.
        if first.mergedInCache && !pages.isEmpty {
            do throws(APIError) {
                _ = try await source.fetch(client, .networkOnly)
                nextPageID += 1
                if atEnd { pages.append((nextPageID, nil, nil)) } else { pages.insert((nextPageID, nil, nil), at: 0) }
                // The first page, read again from the cache, is the list with this page in it (its
                // watcher says so too, a moment later): the next load starts from there.
                if let whole = try? await first.fetch(client, .cacheOnly), let index = pages.firstIndex(where: { $0.watcher != nil }),
                    pages[index].page?.data != whole.data
                {
                    pages[index].page = whole.value(pages[index].page.take())
                    if let current { publish(.success(current)) }
                }
                return .success(())
            } catch {
                publish(.failure(error))
                return .failure(error)
            }
        }
        return await watch(source, atEnd: atEnd)
    }

    /// Starts watching a page: its first result (the server's) decides the load; the next ones are
    /// changes of its records.
    private func watch(_ source: PageSource<Item>, atEnd: Bool) async -> Result<Void, APIError> {
        nextPageID += 1
        let id = nextPageID
        let (first, firstContinuation) = AsyncStream<Result<Void, APIError>>.makeStream()
        let stream = source.watch(client)
        // Weakly held: a pager nobody keeps stops its watchers.
        let watcher = Task { [weak self] in
            var answered = false
            for await result in stream {
                guard let self else { break }
                await self.received(result, for: id, first: answered ? nil : firstContinuation)
                answered = true
            }
            firstContinuation.finish()
        }
        if atEnd { pages.append((id, nil, watcher)) } else { pages.insert((id, nil, watcher), at: 0) }
        for await outcome in first { return outcome }
        return .failure(.cancelled)
    }

    private func received(
        _ result: Result<PageSource<Item>.Update, APIError>, for id: UInt64,
        first: AsyncStream<Result<Void, APIError>>.Continuation?
    ) {
        guard let index = pages.firstIndex(where: { $0.id == id }) else { return }
        switch result {
        case .success(let update):
            // The data the page already shows (read from the cache just after a merged page was
            // written, a moment before its watcher says so) is not mapped or published again.
            let unchanged = pages[index].page?.data == update.data
            if !unchanged { pages[index].page = update.value(pages[index].page.take()) }
            first?.yield(.success(()))
            if !unchanged, let current { publish(.success(current)) }
        case .failure(let error):
            if first != nil, pages[index].page == nil {
                // The page never arrived: it is not part of the list; loading it again retries.
                pages[index].watcher?.cancel()
                pages.remove(at: index)
                first?.yield(.failure(error))
            }
            publish(.failure(error))
        }
        first?.finish()
    }

    private func publish(_ element: Result<PagedList<Item>, APIError>) {
        for observer in observers.values { observer.yield(element) }
    }
}
