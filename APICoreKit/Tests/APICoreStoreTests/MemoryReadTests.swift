@_spi(Generated) @testable import APICore
import APICoreSupport
@testable import APICoreLive
import APICoreSQLite
import APICoreTesting
import Foundation
import Logging
import StarWarsOperations
import Synchronization
import Testing

/// A client with a cache in memory (or `storage`) and no server: its endpoint refuses connections.
private func offlineClient(storage: NormalizedCacheStorage = .inMemory) -> any APIClient {
    APICoreLive.makeClient(APIClientConfiguration(
        restBaseURL: URL(string: "http://127.0.0.1:1")!, timeout: .seconds(30), cache: CacheConfiguration(storage: storage),
        logger: Logger(label: "test"), retryPolicy: nil))
}

private func human(_ id: String, _ name: String) throws -> HumanQuery.Data {
    try HumanQuery.Data(validating: ["human": ["__typename": "Human", "id": .string(id), "name": .string(name), "homePlanet": .null]])
}

private let humanName = GraphQLRequest(HumanQuery(id: "1000")) { $0.human?.name }

@Suite("Reading the memory cache without waiting")
struct MemoryReadTests {
    @Test("a request's data in memory is read at once, marked as the cache's; a query or record not in memory is nil")
    func readInMemory() async throws {
        let client = offlineClient()
        #expect(client.cache.readInMemory(humanName) == nil)
        try await client.cache.writeQuery(HumanQuery(id: "1000"), data: try human("1000", "Luke"))
        let response = try #require(client.cache.readInMemory(humanName))
        #expect(response.value == "Luke" && response.metadata.source == .cache && !response.metadata.isStale)
        #expect(client.cache.readInMemory(GraphQLRequest(HumanQuery(id: "1001"))) == nil)
        #expect(client.cache.readInMemory(CharacterNameFragment.self, key: "Human:1000")?.name == "Luke")
        #expect(client.cache.readInMemory(CharacterNameFragment.self, key: "Human:1001") == nil)
    }

    @Test("an optimistic layer is read and flagged; the store's own read agrees with the memory read")
    func optimistic() async throws {
        let store = NormalizedStore(persistent: nil, logger: Logger(label: "test"))
        let selection = CacheSelection(key: "Human:1", selections: CharacterNameFragment.__selections, parent: CharacterNameFragment.__parentType, variables: [:])
        await CacheWriter(store: store).write(records: ["Human:1": ["__typename": "Human", "id": "1", "name": "Luke"]])
        let layer = try #require(await CacheWriter(store: store).lay(records: ["Human:1": ["name": "Optimistic"]]))
        let read = try #require(store.readInMemory(selection, requestMaxAge: nil))
        #expect(read.data?["name"] == "Optimistic" && read.optimistic)
        #expect(await store.read(selection).data == read.data)
        await CacheWriter(store: store).removeLayer(layer)
        #expect(store.readInMemory(selection, requestMaxAge: nil)?.data?["name"] == "Luke")
    }

    @Test("records only the SQLite file holds are not read at once (nil), and a watch finds them")
    func persistedOnly() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        do {
            let first = offlineClient(storage: SQLiteCache.storage(at: file))
            try await first.cache.writeQuery(HumanQuery(id: "1000"), data: try human("1000", "Luke"))
        }
        let client = offlineClient(storage: SQLiteCache.storage(at: file))
        #expect(client.cache.readInMemory(humanName) == nil)
        let model = await WatchedQuery(humanName, client: client)
        #expect(await model.value == nil)
        #expect(await observed { model.value == .some("Luke") })
        await model.stop()
    }

    @Test("reads at once while the store writes: every read is whole and one of the values written (ThreadSanitizer)")
    func concurrentWrites() async throws {
        let store = NormalizedStore(persistent: nil, logger: Logger(label: "test"))
        let selection = CacheSelection(key: "Human:1", selections: CharacterNameFragment.__selections, parent: CharacterNameFragment.__parentType, variables: [:])
        await CacheWriter(store: store).write(records: ["Human:1": ["__typename": "Human", "id": "1", "name": "0"]])
        let done = Atomic(false)
        let reader = Task.detached {
            var reads = 0
            var names: Set<String> = []
            while !done.load(ordering: .acquiring) || reads == 0 {
                let name = store.readInMemory(selection, requestMaxAge: nil)?.data?["name"]?.stringValue
                names.insert(name ?? "missing")
                reads += 1
            }
            return names
        }
        for index in 1...2_000 {
            await CacheWriter(store: store).write(records: ["Human:1": ["__typename": "Human", "id": "1", "name": .string("\(index)")], "Human:\(index + 1)": ["__typename": "Human", "id": .string("\(index + 1)"), "name": "x"]])
        }
        done.store(true, ordering: .releasing)
        let names = await reader.value
        #expect(!names.contains("missing"))
        #expect(names.allSatisfy { Int($0).map { (0...2_000).contains($0) } ?? false })
    }
}

@MainActor
@Suite("Observable models over the engine, without a server")
struct EngineModelTests {
    @Test("a watched query's first value comes from memory synchronously; a cache change updates it; a removed record without a server is an error")
    func watchedQuery() async throws {
        let client = offlineClient()
        try await client.cache.writeQuery(HumanQuery(id: "1000"), data: try human("1000", "Luke"))
        let model = WatchedQuery(humanName, client: client)
        // No suspension between making the model and reading it.
        #expect(model.value == .some("Luke") && model.source == .cache && !model.isLoading && model.error == nil)

        let store = try #require((client as? LiveAPIClient)?.store)
        #expect(await eventually { await store.watcherCounts.watchers == 1 })
        try await client.cache.updateRecord("Human:1000") { $0["name"] = "Red Five" }
        #expect(await observed { model.value == .some("Red Five") })

        // The watcher refetches once; the server cannot be reached, which is the model's error.
        try await client.cache.removeRecord("Human:1000")
        #expect(await observed { model.error != nil })
        guard case .transport? = model.error else {
            Issue.record("expected a transport error, got \(String(describing: model.error))")
            return
        }
        #expect(model.value == .some("Red Five"))
        model.stop()
        #expect(await eventually { await store.watcherCounts.watchers == 0 })
    }

    @Test("a fragment model: the record's data at once, each change whoever makes it, a miss as its error, stop ends the watch")
    func watchedFragment() async throws {
        let client = offlineClient()
        let store = try #require((client as? LiveAPIClient)?.store)
        let pending = WatchedFragment(CharacterNameFragment.self, key: "Human:1000", in: client.cache)
        #expect(pending.value == nil && pending.isLoading)
        #expect(await observed { pending.error != nil })

        try await client.cache.writeQuery(HumanQuery(id: "1000"), data: try human("1000", "Luke"))
        #expect(await observed { pending.value?.name == "Luke" && pending.error == nil })
        let model = WatchedFragment(CharacterNameFragment.self, key: "Human:1000", in: client.cache)
        #expect(model.value?.name == "Luke" && !model.isLoading)

        _ = try await client.cache.update(fragment: CharacterNameFragment.self, key: "Human:1000") { $0.name = "Red Five" }
        #expect(await observed { model.value?.name == "Red Five" && pending.value?.name == "Red Five" })
        try await client.cache.removeRecord("Human:1000")
        #expect(await observed { model.error != nil })
        guard case .cacheMiss? = model.error else {
            Issue.record("expected a cache miss, got \(String(describing: model.error))")
            return
        }
        #expect(model.value?.name == "Red Five")
        model.stop()
        pending.stop()
        #expect(await eventually { await store.watcherCounts.watchers == 0 })
    }
}
