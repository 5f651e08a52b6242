import APICore
@testable import APICoreLive
import APICoreSQLite
import APICoreTestServer
import Foundation
import StarWarsOperations
import Testing

/// Looking into the cache (`client.cacheMaintenance?.inspect`, `keys(matching:limit:)`), as `pantry cache show
/// <key>` and `pantry cache find` do.
@Suite("Cache inspection")
struct InspectionTests {
    @Test("a record's fields, type, receipt, and the watchers that read it; a missing key is nil")
    func inspect() async throws {
        try await withCachingServer { _, client in
            _ = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly)
            let luke = try #require(try await client.cacheMaintenance!.inspect("Human:1000"))
            #expect(luke.typename == "Human")
            #expect(luke.fields["name"] == "Luke Skywalker")
            #expect(luke.fields["homePlanet"] == "Tatooine")
            #expect(luke.watchers.isEmpty)
            #expect(abs(luke.receivedAt.timeIntervalSinceNow) < 600)
            let root = try #require(try await client.cacheMaintenance!.inspect("QUERY_ROOT"))
            #expect(root.fields.values.contains(["__ref": "Human:1000"]), "\(root.fields)")

            let watch = client.cache.watch(CharacterNameFragment.self, key: "Human:1000")
            var iterator = watch.makeAsyncIterator()
            _ = try #require(await iterator.next()).get()
            let query = client.watch(GraphQLRequest(HumanQuery(id: "1000")), cachePolicy: .cacheOnly)
            var queryIterator = query.makeAsyncIterator()
            _ = try #require(await queryIterator.next()).get()
            let watched = try await client.cacheMaintenance!.inspect("Human:1000")
            #expect(watched?.watchers == ["fragment CharacterNameFragment at Human:1000", "query Human"])
            // The root: the query's watcher reads its field there.
            #expect(try await client.cacheMaintenance!.inspect("QUERY_ROOT")?.watchers == ["query Human"])
            #expect(try await client.cacheMaintenance!.inspect("Human:404") == nil)
        }
    }

    @Test("keys by type name and by pattern, sorted and limited, from memory and the SQLite file alike")
    func find() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("apicore-inspect-\(UUID().uuidString)/cache.sqlite")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try await withCachingServer(cache: CacheConfiguration(storage: SQLiteCache.storage(at: file))) { _, client in
            for id in ["1002", "1000", "1003"] { _ = try await client.fetch(HumanQuery(id: id), cachePolicy: .networkOnly) }
            _ = try await client.fetch(HeroNameQuery(), cachePolicy: .networkOnly)
            // R2-D2's friends, selected without their ids, are kept by path: humans all the same.
            let byPath = ["Droid:2001.friends.0", "Droid:2001.friends.1", "Droid:2001.friends.2"]
            let humans = try await client.cacheMaintenance!.keys(matching: "Human", limit: 10)
            #expect(humans == byPath + ["Human:1000", "Human:1002", "Human:1003"], "\(humans)")
            #expect(try await client.cacheMaintenance!.keys(matching: "Human", limit: 2) == Array(byPath.prefix(2)))
            #expect(try await client.cacheMaintenance!.keys(matching: "Human:100*", limit: 10) == ["Human:1000", "Human:1002", "Human:1003"])
            #expect(try await client.cacheMaintenance!.keys(matching: "*:2001", limit: 10) == ["Droid:2001"])
            #expect(try await client.cacheMaintenance!.keys(matching: "*ROOT", limit: 10) == ["QUERY_ROOT"])
            #expect(try await client.cacheMaintenance!.keys(matching: "Human:1000", limit: 10) == ["Human:1000"])
            #expect(try await client.cacheMaintenance!.keys(matching: "Starship", limit: 10).isEmpty)
        }
        // Another client on the same file: the records come from disk.
        let reopened = APICoreLive.makeClient(APIClientConfiguration(
            restBaseURL: URL(string: "http://127.0.0.1:9/")!, cache: CacheConfiguration(storage: SQLiteCache.storage(at: file))))
        #expect(try await reopened.cacheMaintenance!.keys(matching: "Human:*", limit: 10) == ["Human:1000", "Human:1002", "Human:1003"])
        #expect(try await reopened.cacheMaintenance!.keys(matching: "Human", limit: 10).count == 6)
        #expect(try await reopened.cacheMaintenance!.inspect("Human:1003")?.fields["name"] == "Leia Organa")
    }

    @Test("a field's server-given expiry is shown")
    func expiry() async throws {
        try await withCachingServer { server, client in
            let body = #"{"data":{"human":{"__typename":"Human","id":"1000","name":"Luke","homePlanet":null}}}"#
            server.respond("/graphql", with: [TestServer.Canned(status: 200, body: body, headers: ["Cache-Control": "max-age=60"])])
            _ = try await client.fetch(HumanQuery(id: "1000"), cachePolicy: .networkOnly)
            let luke = try #require(try await client.cacheMaintenance!.inspect("Human:1000"))
            let expiry = try #require(luke.expires["name"])
            #expect(expiry.timeIntervalSince(luke.receivedAt) > 50 && expiry.timeIntervalSince(luke.receivedAt) <= 61)
        }
    }

    @Test("pattern matching: * stands for any run of characters, the rest matches exactly")
    func patterns() {
        func matches(_ key: String, _ pattern: String) -> Bool {
            NormalizedStore.key(key, matches: pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init))
        }
        #expect(matches("Human:1000", "Human:*"))
        #expect(matches("Human:1000", "*1000"))
        #expect(matches("Human:1000", "H*:*0"))
        #expect(matches("abb", "a*b*b"))
        #expect(!matches("abc", "a*bc*c"))
        #expect(!matches("a", "a*a"))
        #expect(!matches("Human:1000", "Human:100"))
        #expect(matches("x", "*"))
    }
}
