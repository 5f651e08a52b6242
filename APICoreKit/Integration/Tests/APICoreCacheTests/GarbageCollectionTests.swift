import APICore
import APICoreLive
import APICoreTestServer
import StarWarsOperations
import Testing

@Suite("Cache garbage collection through the client")
struct GarbageCollectionTests {
    @Test("through the client: an orphan record written by hand is collected, the query's data still reads from the cache")
    func client() async throws {
        try await withCachingServer { _, client in
            _ = try await client.fetch(HeroNameQuery(episode: .some(.init(.empire))))
            try await client.cache.updateRecord("Note:1") { $0["text"] = "orphan" }
            let collection = try await client.cacheMaintenance!.collectGarbage()
            #expect(collection.unreachableRecords == 1)
            #expect(collection.removedRecords == 1)
            let cached = try await client.fetch(HeroNameQuery(episode: .some(.init(.empire))), cachePolicy: .cacheOnly)
            #expect(cached.value.hero?.name == "Luke Skywalker")
        }
    }
}
