@_spi(Generated) @testable import APICore
@testable import APICoreLive
import APICoreSQLite
import APICoreTestServer
import Foundation
import Logging
import StarWarsOperations
import Synchronization
import Testing

private func reference(_ key: String) -> JSONValue { CacheNaming.reference(to: key) }

/// The hero, a friend reached through a list, and two records nothing refers to.
private let graph: [String: JSONObject] = [
    "QUERY_ROOT": ["hero": reference("Human:1")],
    "Human:1": ["__typename": "Human", "name": "Luke", "friends": [reference("Human:2"), reference("Droid:1")]],
    "Human:2": ["__typename": "Human", "name": "Han"],
    "Droid:1": ["__typename": "Droid", "name": "R2-D2"],
    "Note:1": ["__typename": "Note", "text": "nobody refers to me"],
    "Note:2": ["__typename": "Note", "text": "nobody refers to me, but a watcher reads me"],
]

@Suite("Cache garbage collection")
struct GarbageCollectionTests {
    @Test("through the client: an orphan record written by hand is collected, the query's data still reads from the cache")
    func client() async throws {
        try await withCachingServer { _, client in
            _ = try await client.fetch(HeroNameQuery(episode: .some(.init(.empire))))
            try await client.updateRecord("Note:1") { $0["text"] = "orphan" }
            let collection = try await client.collectGarbage()
            #expect(collection.unreachableRecords == 1)
            #expect(collection.removedRecords == 1)
            let cached = try await client.fetch(HeroNameQuery(episode: .some(.init(.empire))), cachePolicy: .cacheOnly)
            #expect(cached.value.hero?.name == "Luke Skywalker")
        }
    }
}
