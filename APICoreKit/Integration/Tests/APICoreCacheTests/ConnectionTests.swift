@_spi(Generated) @testable import APICore
@testable import APICoreSupport
@testable import APICoreLive
import APICoreSQLite
import APICoreTestServer
import Foundation
import Logging
import StarWarsOperations
import Testing

@Suite("Connection fields: pages merged in the cache")
struct ConnectionTests {
    static func ids(_ data: CharacterPageQuery.Data) -> [String] { data.characterPage.nodes.map(\.id) }

    @Test("forward pages join one list that a watcher of the first page sees, pageInfo spanning them; a refresh starts it again")
    func forward() async throws {
        try await withCachingServer { server, client in
            _ = try await client.fetch(CharacterPageQuery(first: 3), cachePolicy: .networkOnly)
            let watch = Recorder(client.watch(GraphQLRequest(CharacterPageQuery(first: 3)), cachePolicy: .cacheOnly))
            defer { watch.stop() }
            #expect(await watch.waitFor(1))
            #expect(watch.values.last.map(Self.ids) == ["1000", "1001", "1002"])

            let second = try await client.fetch(CharacterPageQuery(first: 3, after: "1002"), cachePolicy: .networkOnly)
            // The page's own answer is the page; the cache holds the list so far.
            #expect(Self.ids(second.value) == ["1003", "1004", "2000"])
            #expect(await watch.waitFor(2))
            #expect(watch.values.last.map(Self.ids) == ["1000", "1001", "1002", "1003", "1004", "2000"])
            _ = try await client.fetch(CharacterPageQuery(first: 3, after: "2000"), cachePolicy: .networkOnly)
            #expect(await watch.waitFor(3))
            let all = try #require(watch.values.last)
            #expect(Self.ids(all) == ["1000", "1001", "1002", "1003", "1004", "2000", "2001"])
            #expect(all.characterPage.pageInfo.startCursor == "1000" && !all.characterPage.pageInfo.hasPreviousPage)
            #expect(all.characterPage.pageInfo.endCursor == "2001" && !all.characterPage.pageInfo.hasNextPage)

            // The same page again replaces its items where they are.
            _ = try await client.fetch(CharacterPageQuery(first: 3, after: "1002"), cachePolicy: .networkOnly)
            let again = try await client.fetch(CharacterPageQuery(first: 3), cachePolicy: .cacheOnly).value
            #expect(Self.ids(again).count == 7)

            // A record changed elsewhere shows in the list.
            _ = try await client.perform(RenameCharacterMutation(id: "1004", name: "Grand Moff Tarkin"))
            #expect(await eventually { watch.values.last?.characterPage.nodes.first { $0.id == "1004" }?.name == "Grand Moff Tarkin" })

            // The first page again is a refresh: the list starts over.
            _ = try await client.fetch(CharacterPageQuery(first: 3), cachePolicy: .networkOnly)
            #expect(await eventually { watch.values.last.map(Self.ids) == ["1000", "1001", "1002"] })
            #expect(server.requests.count == 6)
        }
    }

    @Test("backward pages go in front, keeping the end of the list")
    func backward() async throws {
        try await withCachingServer { _, client in
            _ = try await client.fetch(CharacterPageQuery(last: 2), cachePolicy: .networkOnly)
            _ = try await client.fetch(CharacterPageQuery(last: 2, before: "2000"), cachePolicy: .networkOnly)
            let list = try await client.fetch(CharacterPageQuery(last: 2), cachePolicy: .cacheOnly).value
            #expect(Self.ids(list) == ["1003", "1004", "2000", "2001"])
            #expect(list.characterPage.pageInfo.startCursor == "1003" && list.characterPage.pageInfo.hasPreviousPage)
            #expect(list.characterPage.pageInfo.endCursor == "2001" && !list.characterPage.pageInfo.hasNextPage)
        }
    }

    @Test("the merged list survives a restart from SQLite")
    func persisted() async throws {
        let directory = try TemporaryDirectory()
        let cache = directory.url.appendingPathComponent("cache.sqlite")
        try await TestServer.with { server in
            let configuration = APIClientConfiguration(
                restBaseURL: server.baseURL, cache: CacheConfiguration(storage: SQLiteCache.storage(at: cache)), logger: Logger(label: "test"),
                retryPolicy: nil)
            let client = APICoreLive.makeClient(configuration)
            _ = try await client.fetch(CharacterPageQuery(first: 3), cachePolicy: .networkOnly)
            _ = try await client.fetch(CharacterPageQuery(first: 3, after: "1002"), cachePolicy: .networkOnly)
            let reopened = APICoreLive.makeClient(configuration)
            let list = try await reopened.fetch(CharacterPageQuery(first: 3), cachePolicy: .cacheOnly).value
            #expect(Self.ids(list) == ["1000", "1001", "1002", "1003", "1004", "2000"])
        }
    }

    @Test("where a page goes: after, before, offset, or the first page alone")
    func placement() {
        let page: JSONObject = ["nodes": [["__typename": "T", "id": "3"], ["__typename": "T", "id": "4"]], "pageInfo": ["startCursor": "3", "endCursor": "4"]]
        let before: JSONObject = ["nodes": [["__typename": "T", "id": "1"], ["__typename": "T", "id": "2"], ["__typename": "T", "id": "3"]], "pageInfo": ["startCursor": "1", "endCursor": "3"]]
        func ids(_ object: JSONObject) -> [String] { object["nodes"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [] }
        #expect(ids(ConnectionPages.place(page, into: before, at: .after)) == ["1", "2", "3", "4"])
        #expect(ids(ConnectionPages.place(page, into: before, at: .before)) == ["4", "1", "2", "3"])
        #expect(ids(ConnectionPages.place(page, into: before, at: .offset(1))) == ["1", "3", "4"])
        #expect(ids(ConnectionPages.place(page, into: before, at: .offset(0))) == ["3", "4"])
        #expect(ids(ConnectionPages.place(page, into: before, at: .offset(9))) == ["1", "2", "3", "4"])
        let five: JSONObject = ["nodes": .array((1...5).map { ["__typename": "T", "id": .string("\($0)")] })]
        #expect(ids(ConnectionPages.place(page, into: five, at: .offset(1))) == ["1", "3", "4", "5"])
        // The item moved from further on leaves no `null` behind.
        #expect(ConnectionPages.place(page, into: five, at: .offset(1))["nodes"]?.arrayValue?.count == 4)
        #expect(ids(ConnectionPages.place(page, into: before, at: .first)) == ["3", "4"])
        #expect(ConnectionPages.place(page, into: before, at: .after)["pageInfo"] == ["startCursor": "1", "endCursor": "4"])
        #expect(ConnectionPages.place(page, into: before, at: .before)["pageInfo"] == ["startCursor": "3", "endCursor": "3"])

        let pages = ConnectionPages(variables: ["page": ["first": 2, "after": "x"]])
        let field = Field("items", .scalar(String.self), arguments: ["page": .variable("page")], pagination: ["page"])
        #expect(pages.position(of: field) == .after)
        #expect(ConnectionPages(variables: ["page": ["first": 2]]).position(of: field) == .first)
        #expect(CacheNaming.storageKey(field, variables: ["page": ["first": 2]]) == "items")

        let numbered = Field("items", .scalar(String.self), arguments: ["page": .variable("n"), "limit": .variable("size")], pagination: ["page", "limit"])
        #expect(ConnectionPages(variables: ["n": 3, "size": 10]).position(of: numbered) == .offset(20))
        #expect(ConnectionPages(variables: ["n": 3]).position(of: numbered) == .after)
        #expect(ConnectionPages(variables: ["n": 1, "size": 10]).position(of: numbered) == .first)
    }
}
