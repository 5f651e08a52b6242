@_spi(Tools) @_spi(Generated) import APICore
@testable import APICoreLive
import APICoreTestServer
import Foundation
import StarWarsOperations
import Synchronization
import Testing

@Suite("GraphQLPager")
struct PagerTests {
    typealias Page = CharacterPageQuery.Data.CharacterPage

    static func merged(_ client: any APIClient, size: Int = 3) -> GraphQLPager<String> {
        GraphQLPager(
            client: client, first: PageRequest(GraphQLRequest(CharacterPageQuery(first: .some(size))) { $0.characterPage }),
            next: { page in
                guard page.pageInfo.hasNextPage, let cursor = page.pageInfo.endCursor else { return nil }
                return PageRequest(GraphQLRequest(CharacterPageQuery(first: .some(size), after: .some(cursor))) { $0.characterPage })
            },
            items: { $0.nodes.map(\.name) })
    }

    /// Pages cached apart, starting from the end and going both ways.
    static func separate(_ client: any APIClient) -> GraphQLPager<String> {
        GraphQLPager(
            client: client, first: PageRequest(GraphQLRequest(CharacterPagePlainQuery(first: 2, after: "1001")) { $0.characterPage }),
            next: { page in
                guard page.pageInfo.hasNextPage, let cursor = page.pageInfo.endCursor else { return nil }
                return PageRequest(GraphQLRequest(CharacterPagePlainQuery(first: 2, after: .some(cursor))) { $0.characterPage })
            },
            previous: { page in
                guard page.pageInfo.hasPreviousPage, let cursor = page.pageInfo.startCursor else { return nil }
                return PageRequest(GraphQLRequest(CharacterPagePlainQuery(last: 2, before: .some(cursor))) { $0.characterPage })
            },
            items: { $0.nodes.map(\.id) })
    }

    static func pageRequests(_ server: TestServer) -> Int {
        server.requests.count { String(decoding: $0.body, as: UTF8.self).contains("CharacterPage") }
    }

    @Test("forward over a connection: each page joins the list, the last one says so, a change shows, concurrent loads share a request")
    func forwardMerged() async throws {
        try await withCachingServer { server, client in
            let pager = Self.merged(client)
            let lists = ListRecorder(pager.list())
            defer { lists.stop() }
            async let a: Void = pager.loadNext()
            async let b: Void = pager.loadNext()
            _ = try await (a, b)
            #expect(Self.pageRequests(server) == 1)
            #expect(await pager.current?.items == ["Luke Skywalker", "Darth Vader", "Han Solo"])
            try await pager.loadNext()
            try await pager.loadNext()
            let all = try #require(await pager.current)
            #expect(all.items.count == 7 && !all.hasNext && all.pageCount == 3)
            try await pager.loadNext()  // no next page: nothing sent
            #expect(Self.pageRequests(server) == 3)
            #expect(await eventually { lists.latest?.items.count == 7 })

            _ = try await client.perform(RenameCharacterMutation(id: "2001", name: "R2"))
            #expect(await eventually { lists.latest?.items.last == "R2" })

            try await pager.refresh()
            #expect(await eventually { lists.latest?.items.count == 3 })
            #expect(await pager.current?.pageCount == 1)
        }
    }

    @Test("a merged page is mapped to items once and the list published once, though the page is read twice")
    func mergedPageMappedOnce() async throws {
        try await withCachingServer { _, client in
            let mappings = Mutex(0)
            let request = { @Sendable (cursor: String?) in
                PageRequest(GraphQLRequest(CharacterPageQuery(first: .some(3), after: cursor.map { .some($0) } ?? nil)) { $0.characterPage })
            }
            let pager = GraphQLPager(
                client: client, first: request(nil),
                next: { page in page.pageInfo.hasNextPage ? request(page.pageInfo.endCursor) : nil },
                items: { page in
                    mappings.withLock { $0 += 1 }
                    return page.nodes.map(\.name)
                })
            let lists = ListRecorder(pager.list())
            defer { lists.stop() }
            for _ in 0..<3 { try await pager.loadNext() }
            // A change after the pages: once the list shows it, the watcher said all it had to.
            _ = try await client.perform(RenameCharacterMutation(id: "2001", name: "R2"))
            #expect(await eventually { lists.latest?.items.last == "R2" })
            #expect(lists.latest?.items.count == 7)
            // Each page once, and the change: the page's read after its write and its watcher's
            // read of the same data are one list, mapped and published once.
            #expect(mappings.withLock { $0 } == 4)
            // (At most: the recorder starts from the list as it is when it registers.)
            #expect(lists.count <= 4)
        }
    }

    @Test("the observable list model: pages as they load, the end of the list, a change in the cache, a refresh")
    func observableModel() async throws {
        try await withCachingServer { _, client in
            let model = await PagedListModel(Self.merged(client))
            #expect(await model.items.isEmpty)
            #expect(await model.hasNext)
            await model.loadNext()
            #expect(await model.items == ["Luke Skywalker", "Darth Vader", "Han Solo"])
            #expect(await !model.isLoading)
            #expect(await model.error == nil)
            await model.loadNext()
            await model.loadNext()
            #expect(await model.items.count == 7)
            #expect(await !model.hasNext)

            _ = try await client.perform(RenameCharacterMutation(id: "2001", name: "R2"))
            #expect(await eventually { await model.items.last == "R2" })
            await model.refresh()
            #expect(await model.items.count == 3)
            #expect(await model.hasNext)
            await model.stop()
        }
    }

    @Test("both ways over pages cached apart; a page that fails is an element, and loading again retries it")
    func bidirectionalWithError() async throws {
        try await withCachingServer { server, client in
            let pager = Self.separate(client)
            let lists = ListRecorder(pager.list())
            defer { lists.stop() }
            try await pager.loadNext()
            #expect(await pager.current?.items == ["1002", "1003"])
            try await pager.loadPrevious()
            #expect(await pager.current?.items == ["1000", "1001", "1002", "1003"])
            #expect(await pager.current?.hasPrevious == false)

            server.respond("graphql", status: 503, body: "down for a moment")
            await #expect(throws: APIError.self) { try await pager.loadNext() }
            #expect(await eventually { lists.failures == 1 })
            #expect(await pager.current?.items == ["1000", "1001", "1002", "1003"])
            server.respond("graphql", with: [])
            try await pager.loadNext()
            try await pager.loadNext()
            #expect(await pager.current?.items == ["1000", "1001", "1002", "1003", "1004", "2000", "2001"])
            #expect(await pager.current?.hasNext == false)

            // A change to a record of any page yields the list again.
            _ = try await client.perform(RenameCharacterMutation(id: "1000", name: "Luke"))
            #expect(await eventually { lists.latestNames?.contains("1000") == true && lists.count > 4 })
        }
    }
}

extension PagerTests {
    /// A page as the app maps it, whatever query it came from.
    struct Names: Sendable {
        var names: [String]
        var next: String?
    }

    @Test("pages mapped to the app's own page type, the first request unlike the next ones")
    func twoQueries() async throws {
        try await withCachingServer { server, client in
            @Sendable func names(_ page: CharacterPageQuery.Data.CharacterPage) -> Names {
                Names(names: page.nodes.map(\.name), next: page.pageInfo.hasNextPage ? page.pageInfo.endCursor : nil)
            }
            let pager = GraphQLPager(
                client: client, first: PageRequest(GraphQLRequest(CharacterPagePlainQuery(first: 1)) { names($0.characterPage) }),
                next: { page in
                    page.next.map { cursor in PageRequest(GraphQLRequest(CharacterPagePlainQuery(first: 4, after: .some(cursor))) { names($0.characterPage) }) }
                },
                items: { $0.names })
            try await pager.loadNext()
            try await pager.loadNext()
            try await pager.loadNext()
            let list = try #require(await pager.current)
            #expect(list.items == ["Luke Skywalker", "Darth Vader", "Han Solo", "Leia Organa", "Wilhuff Tarkin", "C-3PO", "R2-D2"])
            #expect(!list.hasNext && list.pageCount == 3)
            let sizes = server.requests.compactMap { try? JSONParser.parse($0.body)["variables"]?["first"]?.intValue }
            #expect(sizes == [1, 4, 4])
        }
    }
}

extension PagerTests {
    @Test("offset pages of a field that is the list: joined in order in the cache, a page loaded again laid over its place")
    func offsets() async throws {
        try await withCachingServer { server, client in
            let limit = 3
            @Sendable func page(at offset: Int?) -> PageRequest<[String]> {
                PageRequest(GraphQLRequest(CharacterListQuery(offset: offset.map { .some($0) } ?? nil, limit: limit)) { $0.characterList.map(\.id) })
            }
            // The first page's data is the whole list: the next offset is its length.
            let pager = GraphQLPager(
                client: client, first: page(at: nil), next: { ids in ids.count.isMultiple(of: limit) ? page(at: ids.count) : nil }, items: { $0 })
            let lists = ListRecorder(pager.list())
            defer { lists.stop() }
            for _ in 0..<4 { try await pager.loadNext() }
            let all = ["1000", "1001", "1002", "1003", "1004", "2000", "2001"]
            #expect(await pager.current?.items == all)
            #expect(await pager.current?.hasNext == false)
            // The first page without an offset, then 3 and 6; the short page ends it.
            let variables = server.requests.compactMap { try? JSONParser.parse($0.body)["variables"] }
            #expect(variables.map { $0["offset"]?.intValue } == [nil, 3, 6])
            #expect(await eventually { lists.latest?.items == all })

            // The middle page again: in its place, the items after it kept, none twice.
            let middle = try await client.fetch(CharacterListQuery(offset: 3, limit: limit), cachePolicy: .networkOnly).value
            #expect(middle.characterList.map(\.id) == ["1003", "1004", "2000"])
            let cached = try await client.fetch(CharacterListQuery(limit: limit), cachePolicy: .cacheOnly).value
            #expect(cached.characterList.map(\.id) == all)
        }
    }
}

extension PagerTests {
    /// The ids of the objects a pager mapped to items, in order.
    final class Mapped: Sendable {
        private let ids = Mutex<[String]>([])
        func add(_ id: String) { ids.withLock { $0.append(id) } }
        var all: [String] { ids.withLock { $0 } }
    }

    static func characterPage(after cursor: String?, size: Int = 3) -> PageRequest<Page> {
        PageRequest(GraphQLRequest(CharacterPageQuery(first: .some(size), after: cursor.map { .some($0) } ?? nil)) { $0.characterPage })
    }

    /// Merged pages over the characters, mapped element by element.
    static func elementwise(_ client: any APIClient, mapped: Mapped) -> GraphQLPager<String> {
        GraphQLPager(
            client: client, first: characterPage(after: nil),
            next: { page in page.pageInfo.hasNextPage ? characterPage(after: page.pageInfo.endCursor) : nil }, elements: \.nodes
        ) { node in
            mapped.add(node.id)
            return node.name
        }
    }

    @Test("merged pages mapped element by element: each object once as pages join, a change maps its object alone")
    func elementwiseMerged() async throws {
        try await withCachingServer { _, client in
            let mapped = Mapped()
            let pager = Self.elementwise(client, mapped: mapped)
            let lists = ListRecorder(pager.list())
            defer { lists.stop() }
            for _ in 0..<3 { try await pager.loadNext() }
            let names = ["Luke Skywalker", "Darth Vader", "Han Solo", "Leia Organa", "Wilhuff Tarkin", "C-3PO", "R2-D2"]
            #expect(await pager.current?.items == names)
            #expect(mapped.all == ["1000", "1001", "1002", "1003", "1004", "2000", "2001"])

            // A change in the middle, then at the end: each maps the object that changed, no other.
            _ = try await client.perform(RenameCharacterMutation(id: "1002", name: "Han"))
            #expect(await eventually { lists.latest?.items[2] == "Han" })
            _ = try await client.perform(RenameCharacterMutation(id: "2001", name: "R2"))
            #expect(await eventually { lists.latest?.items.last == "R2" })
            #expect(lists.latest?.items == ["Luke Skywalker", "Darth Vader", "Han", "Leia Organa", "Wilhuff Tarkin", "C-3PO", "R2"])
            #expect(mapped.all.count == 9 && mapped.all.suffix(2) == ["1002", "2001"])

            try await pager.refresh()
            #expect(await pager.current?.items == ["Luke Skywalker", "Darth Vader", "Han"])
        }
    }

    @Test("pages cached apart, mapped element by element: both ways, and a change maps its object alone")
    func elementwiseSeparate() async throws {
        try await withCachingServer { _, client in
            let mapped = Mapped()
            @Sendable func page(_ query: CharacterPagePlainQuery) -> PageRequest<Page> {
                PageRequest(GraphQLRequest(query) { $0.characterPage })
            }
            let pager = GraphQLPager(
                client: client, first: page(CharacterPagePlainQuery(first: 2, after: "1001")),
                next: { $0.pageInfo.hasNextPage ? page(CharacterPagePlainQuery(first: 2, after: GraphQLNullable($0.pageInfo.endCursor))) : nil },
                previous: { $0.pageInfo.hasPreviousPage ? page(CharacterPagePlainQuery(last: 2, before: GraphQLNullable($0.pageInfo.startCursor))) : nil },
                elements: \.nodes
            ) { node in
                mapped.add(node.id)
                return node.id + " " + node.name
            }
            let lists = ListRecorder(pager.list())
            defer { lists.stop() }
            try await pager.loadNext()
            try await pager.loadPrevious()
            #expect(await pager.current?.items == ["1000 Luke Skywalker", "1001 Darth Vader", "1002 Han Solo", "1003 Leia Organa"])
            #expect(mapped.all == ["1002", "1003", "1000", "1001"])
            _ = try await client.perform(RenameCharacterMutation(id: "1001", name: "Vader"))
            #expect(await eventually { lists.latest?.items[1] == "1001 Vader" })
            #expect(mapped.all == ["1002", "1003", "1000", "1001", "1001"])
        }
    }

    /// A page of the app's own, holding the nodes it keeps.
    struct Kept: Sendable {
        var nodes: [Page.Node]
        var next: String?
    }

    @Test("a page type of the app's own that filters its list is mapped through its key path, filter and all")
    func elementwiseOwnPageType() async throws {
        try await withCachingServer { _, client in
            @Sendable func page(after cursor: String?) -> PageRequest<Kept> {
                PageRequest(GraphQLRequest(CharacterPageQuery(first: .some(3), after: cursor.map { .some($0) } ?? nil)) { data in
                    Kept(nodes: data.characterPage.nodes.filter { $0.id != "1001" },
                         next: data.characterPage.pageInfo.hasNextPage ? data.characterPage.pageInfo.endCursor : nil)
                })
            }
            let pager = GraphQLPager(client: client, first: page(after: nil), next: { $0.next.map(page(after:)) }, elements: \.nodes, item: \.name)
            try await pager.loadNext()
            try await pager.loadNext()
            #expect(await pager.current?.items == ["Luke Skywalker", "Han Solo", "Leia Organa", "Wilhuff Tarkin", "C-3PO"])
        }
    }

    @Test("random loads, renames and refreshes: the list mapped element by element equals the list mapped whole", arguments: [1, 2, 3])
    func elementwiseEqualsWhole(seed: UInt64) async throws {
        try await withCachingServer { _, client in
            var random = SeededGenerator(seed: seed)
            let elementwise = Self.elementwise(client, mapped: Mapped())
            let whole = Self.merged(client)
            let ids = ["1000", "1001", "1002", "1003", "1004", "2000", "2001"]
            for step in 0..<14 {
                switch Int.random(in: 0..<8, using: &random) {
                case 0..<3: try await elementwise.loadNext()
                case 3..<5: try await whole.loadNext()
                case 5..<7:
                    let id = ids.randomElement(using: &random)!
                    _ = try await client.perform(RenameCharacterMutation(id: id, name: "Name \(step)"))
                default: try await (Bool.random(using: &random) ? elementwise : whole).refresh()
                }
                // Both watch the one list the cache holds: each shows it as the whole map makes it.
                let settled = await eventually {
                    guard let cached = try? await client.fetch(CharacterPageQuery(first: .some(3)), cachePolicy: .cacheOnly).value else { return false }
                    let expected = cached.characterPage.nodes.map(\.name)
                    let shown = (await elementwise.current?.items, await whole.current?.items)
                    return (shown.0 == nil || shown.0 == expected) && (shown.1 == nil || shown.1 == expected)
                }
                #expect(settled, "seed \(seed), step \(step)")
            }
        }
    }
}

/// Collects what a pager's list yields.
final class ListRecorder: Sendable {
    private final class Box: Sendable {
        let lists = Mutex<[PagedList<String>]>([])
        let failures = Mutex(0)
    }

    private let box = Box()
    private let task: Task<Void, Never>

    init(_ stream: APIStream<Result<PagedList<String>, APIError>>) {
        let box = box
        task = Task {
            for await element in stream {
                switch element {
                case .success(let list): box.lists.withLock { $0.append(list) }
                case .failure: box.failures.withLock { $0 += 1 }
                }
            }
        }
    }

    var latest: PagedList<String>? { box.lists.withLock { $0.last } }
    var latestNames: [String]? { latest?.items }
    var count: Int { box.lists.withLock { $0.count } }
    var failures: Int { box.failures.withLock { $0 } }

    func stop() { task.cancel() }
}
