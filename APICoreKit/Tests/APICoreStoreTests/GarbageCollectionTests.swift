@_spi(Generated) @testable import APICore
@testable import APICoreLive
import APICoreSQLite
import APICoreTesting
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
    @Test("records no root reaches are removed; reachable ones, and those only a watcher reads, are kept")
    func unreachable() async throws {
        let store = NormalizedStore(persistent: nil, logger: Logger(label: "test"))
        await store.merge(graph)
        let watcher = await store.addWatcher(dependencies: ["Note:2"]) { _ in ["Note:2"] }
        let collection = await store.collectGarbage(maxStaleness: .zero)
        #expect(collection.unreachableRecords == 1)
        #expect(collection.expiredRecords == 0 && collection.danglingReferences == 0)
        for key in ["QUERY_ROOT", "Human:1", "Human:2", "Droid:1", "Note:2"] { #expect(await store.record(key) != nil, "\(key)") }
        #expect(await store.record("Note:1") == nil)
        // The watcher gone, its record goes at the next collection.
        await store.removeWatcher(watcher)
        #expect(await store.collectGarbage(maxStaleness: .zero).unreachableRecords == 1)
        #expect(await store.record("Note:2") == nil)
        #expect(await store.collectGarbage(maxStaleness: .zero) == CacheCollection())
    }

    @Test("records past their type's maximum age (beyond the staleness allowed) go, and the fields that referred to them")
    func expired() async throws {
        let clock = TestClock()
        let store = NormalizedStore(persistent: nil, maxAgeByType: ["Droid": .seconds(3600)], logger: Logger(label: "test"), now: { clock.now })
        await store.merge(graph)
        clock.advance(by: 2 * 3600)
        // Two hours old, an hour past the droid's maximum age: within a staleness of two hours.
        let lenient = await store.collectGarbage(maxStaleness: .seconds(2 * 3600))
        #expect(lenient.expiredRecords == 0 && lenient.danglingReferences == 0)
        #expect(lenient.unreachableRecords == 2)  // the notes
        let rereads = await store.rereadCount
        let watcher = await store.addWatcher(dependencies: ["Human:1"]) { _ in ["Human:1"] }
        let collection = await store.collectGarbage(maxStaleness: .seconds(1800))
        #expect(collection.expiredRecords == 1)
        #expect(collection.danglingReferences == 1)
        #expect(await store.record("Droid:1") == nil)
        #expect(await store.record("Human:1")?.fields["friends"] == nil)  // it held a reference to the droid
        #expect(await store.record("Human:1")?.fields["name"] == "Luke")
        // Human:2 was reached only through that field: unreachable now.
        #expect(collection.unreachableRecords == 1)
        #expect(await store.record("Human:2") == nil)
        #expect(await store.rereadCount == rereads + 1)  // the watcher of Human:1 was told
        await store.removeWatcher(watcher)
    }

    @Test("the mutation and subscription roots are not kept: a thousand mutations with new variables leave the store as large as it was, their objects written")
    func operationRoots() async throws {
        let store = NormalizedStore(persistent: nil, logger: Logger(label: "test"))
        await store.merge(graph)
        let before = await store.summary()
        for index in 0..<1_000 {
            // What a mutation's and a subscription's answers record: their roots, an object with a
            // key, and one without (under a path from the root).
            await store.merge([
                "MUTATION_ROOT": ["renameCharacter(id:\"1\",name:\"Luke \(index)\")": reference("Human:1"), "receipt": reference("MUTATION_ROOT.receipt")],
                "MUTATION_ROOT.receipt": ["number": .int(index)],
                "Human:1": ["__typename": "Human", "name": .string("Luke \(index)")],
                "SUBSCRIPTION_ROOT": ["counter(to:\(index))": .int(index)],
            ])
        }
        for key in ["MUTATION_ROOT", "MUTATION_ROOT.receipt", "SUBSCRIPTION_ROOT"] { #expect(await store.record(key) == nil, "\(key)") }
        #expect(await store.record("Human:1")?.fields["name"] == "Luke 999")
        let after = await store.summary()
        // Only Human:1's name grew ("Luke" to "Luke 999").
        #expect(after.records == before.records && after.bytesInMemory - before.bytesInMemory < 16)
        #expect(await store.collectGarbage(maxStaleness: .zero).removedRecords == 2)  // the notes, as before
    }

    @Test("a store an earlier version wrote, holding a mutation root: it goes at the next collection, with what only it reached")
    func earlierOperationRoots() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let writer = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "test"))
        await writer.merge(graph)
        let earlier = try #require(SQLiteCache.storage(at: file).persistent)
        _ = try earlier.save(
            [CacheRecord(key: "Review:1", fields: ["__typename": "Review", "stars": 5], receivedAt: Date())],
            fields: [FieldChanges(key: "MUTATION_ROOT", set: ["createReview(stars:5)": reference("Review:1"), "renameCharacter": reference("Human:1")], receivedAt: Date())],
            removing: [], used: [], keeping: .none)
        let collector = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "test"))
        // The notes, the mutation root, and the review only it reached; Human:1 stays (the query root reaches it).
        #expect(await collector.collectGarbage(maxStaleness: .zero).unreachableRecords == 4)
        let left = try #require(SQLiteCache.storage(at: file).persistent).loadAll().map(\.key)
        #expect(Set(left) == ["QUERY_ROOT", "Human:1", "Human:2", "Droid:1"])
    }

    @Test("in SQLite: what is collected is gone from the file, what is kept is still there after a restart")
    func persistent() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let writer = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "test"))
        await writer.merge(graph)
        // A new store: nothing in memory, everything in the file.
        let collector = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "test"))
        #expect(await collector.collectGarbage(maxStaleness: .zero).unreachableRecords == 2)
        let reader = try #require(SQLiteCache.storage(at: file).persistent)
        let left = try reader.loadAll().map(\.key)
        #expect(Set(left) == ["QUERY_ROOT", "Human:1", "Human:2", "Droid:1"])
    }

    @Test("automatic collections: on open, when the store is first used, and after a number of records written")
    func automatic() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let earlier = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "test"))
        await earlier.merge(graph)
        let policy = CacheConfiguration.GarbageCollection(onOpen: true, afterWrites: 10)
        let store = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, garbageCollection: policy, logger: Logger(label: "test"))
        // The first use collects what the earlier launch left unreachable.
        #expect(await store.record("QUERY_ROOT") != nil)
        _ = await store.read(key: "QUERY_ROOT", selections: [], parent: .object("Query"), variables: [:], requestMaxAge: nil)
        #expect(await store.record("Note:1") == nil)
        #expect(try #require(SQLiteCache.storage(at: file).persistent).load(["Note:1", "Human:1"]).keys.sorted() == ["Human:1"])
        // Nine orphans written: not yet; the tenth record written triggers a collection.
        for index in 0..<9 { await store.merge(["Orphan:\(index)": ["__typename": "Orphan"]]) }
        #expect(await store.record("Orphan:0") != nil)
        await store.merge(["Orphan:9": ["__typename": "Orphan"]])
        #expect(await store.record("Orphan:0") == nil)
        #expect(await store.record("Human:1") != nil)
    }

    @Test("collections running while 20 tasks write and read, on SQLite: no write lost, every record whole")
    func concurrent() async throws {
        let directory = try TemporaryDirectory()
        let store = NormalizedStore(
            persistent: SQLiteCache.storage(at: directory.url.appendingPathComponent("cache.sqlite")).persistent, logger: Logger(label: "test"))
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<20 {
                group.addTask {
                    for round in 0..<25 {
                        // The root's field and the record it refers to, in one write.
                        await store.merge([
                            "QUERY_ROOT": ["item(\(task))": reference("Item:\(task)")],
                            "Item:\(task)": ["__typename": "Item", "round": .int(round), "orphan": false],
                            "Loose:\(task)-\(round)": ["__typename": "Loose"],
                        ])
                        _ = await store.record("Item:\(task)")
                    }
                }
            }
            group.addTask {
                for _ in 0..<20 { _ = await store.collectGarbage(maxStaleness: .zero) }
            }
        }
        _ = await store.collectGarbage(maxStaleness: .zero)
        for task in 0..<20 {
            #expect(await store.record("Item:\(task)")?.fields["round"] == .int(24), "Item:\(task)")
            #expect(await store.record("QUERY_ROOT")?.fields["item(\(task))"] == reference("Item:\(task)"))
            #expect(await store.record("Loose:\(task)-24") == nil)
        }
    }
}
