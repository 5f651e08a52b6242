@_spi(Engine) @_spi(Generated) @testable import APICore
import APICoreSupport
@testable import APICoreLive
import APICoreSQLite
import APICoreTesting
import Foundation
import GRDB
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
        await CacheWriter(store: store).write(records: graph)
        let watcher = await store.addWatcher(dependencies: ["Note:2"]) { _ in ["Note:2"] }
        let collection = await CacheWriter(store: store).collectGarbage(maxStaleness: .zero)
        #expect(collection.unreachableRecords == 1)
        #expect(collection.expiredRecords == 0 && collection.danglingReferences == 0)
        for key in ["QUERY_ROOT", "Human:1", "Human:2", "Droid:1", "Note:2"] { #expect(await store.record(key) != nil, "\(key)") }
        #expect(await store.record("Note:1") == nil)
        // The watcher gone, its record goes at the next collection.
        await store.removeWatcher(watcher)
        #expect(await CacheWriter(store: store).collectGarbage(maxStaleness: .zero).unreachableRecords == 1)
        #expect(await store.record("Note:2") == nil)
        #expect(await CacheWriter(store: store).collectGarbage(maxStaleness: .zero) == CacheCollection())
    }

    @Test("records past their type's maximum age (beyond the staleness allowed) go, and the fields that referred to them")
    func expired() async throws {
        let clock = TestClock()
        let store = NormalizedStore(persistent: nil, maxAgeByType: ["Droid": .seconds(3600)], logger: Logger(label: "test"), now: { clock.now })
        await CacheWriter(store: store).write(records: graph)
        clock.advance(by: 2 * 3600)
        // Two hours old, an hour past the droid's maximum age: within a staleness of two hours.
        let lenient = await CacheWriter(store: store).collectGarbage(maxStaleness: .seconds(2 * 3600))
        #expect(lenient.expiredRecords == 0 && lenient.danglingReferences == 0)
        #expect(lenient.unreachableRecords == 2)  // the notes
        let rereads = await store.rereadCount
        let watcher = await store.addWatcher(dependencies: ["Human:1"]) { _ in ["Human:1"] }
        let collection = await CacheWriter(store: store).collectGarbage(maxStaleness: .seconds(1800))
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
        await CacheWriter(store: store).write(records: graph)
        let before = await store.summary()
        for index in 0..<1_000 {
            // What a mutation's and a subscription's answers record: their roots, an object with a
            // key, and one without (under a path from the root).
            await CacheWriter(store: store).write(records: [
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
        #expect(await CacheWriter(store: store).collectGarbage(maxStaleness: .zero).removedRecords == 2)  // the notes, as before
    }

    @Test("a store an earlier version wrote, holding a mutation root: it goes at the next collection, with what only it reached")
    func earlierOperationRoots() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let writer = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "test"))
        await CacheWriter(store: writer).write(records: graph)
        await writer.persisted()
        let earlier = try #require(SQLiteCache.storage(at: file).persistent)
        _ = try earlier.save(
            [CacheRecord(key: "Review:1", fields: ["__typename": "Review", "stars": 5], receivedAt: Date())],
            fields: [FieldChanges(key: "MUTATION_ROOT", set: ["createReview(stars:5)": reference("Review:1"), "renameCharacter": reference("Human:1")], receivedAt: Date())],
            removing: [], unlessWrittenSince: nil, used: [], keeping: .none)
        let collector = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "test"))
        // The notes, the mutation root, and the review only it reached; Human:1 stays (the query root reaches it).
        #expect(await CacheWriter(store: collector).collectGarbage(maxStaleness: .zero).unreachableRecords == 4)
        await collector.persisted()
        let left = try #require(SQLiteCache.storage(at: file).persistent).loadAll().map(\.key)
        #expect(Set(left) == ["QUERY_ROOT", "Human:1", "Human:2", "Droid:1"])
    }

    @Test("in SQLite: what is collected is gone from the file, what is kept is still there after a restart")
    func persistent() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let writer = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "test"))
        await CacheWriter(store: writer).write(records: graph)
        // A new store: nothing in memory, everything in the file.
        let collector = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "test"))
        #expect(await CacheWriter(store: collector).collectGarbage(maxStaleness: .zero).unreachableRecords == 2)
        await collector.persisted()
        let reader = try #require(SQLiteCache.storage(at: file).persistent)
        let left = try reader.loadAll().map(\.key)
        #expect(Set(left) == ["QUERY_ROOT", "Human:1", "Human:2", "Droid:1"])
    }

    @Test("a summary of an SQLite store is counted by the store: by type, roots by key, a row that is not a record left out")
    func persistedSummary() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let writer = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "test"))
        await CacheWriter(store: writer).write(records: graph)
        await CacheWriter(store: writer).write(records: ["Loose:1": ["text": "no typename"]])
        let memory = await writer.summary()
        // Another program's row: fields that are not JSON.
        let database = try DatabaseQueue(path: file.path)
        try await database.write { db in
            try db.execute(sql: "INSERT INTO apicore_records (key, fields, received_at) VALUES ('Bad:1', x'FF00', 0)")
        }
        let counted = await NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "test")).summary()
        #expect(counted.recordsByType == ["QUERY_ROOT": 1, "Human": 2, "Droid": 1, "Note": 2, "(untyped)": 1])
        #expect(counted.records == 7 && counted.recordsInMemory == 0)
        #expect(counted.recordsByType == memory.recordsByType && counted.oldest == memory.oldest)
    }

    @Test("automatic collections: on open, when the store is first used, and after a number of records written")
    func automatic() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let earlier = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "test"))
        await CacheWriter(store: earlier).write(records: graph)
        let policy = CacheConfiguration.GarbageCollection(onOpen: true, afterWrites: 10)
        let store = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, garbageCollection: CacheWriter.automaticCollection(policy), logger: Logger(label: "test"))
        // The first use collects what the earlier launch left unreachable (in slices, between
        // the store's other work).
        #expect(await store.record("QUERY_ROOT") != nil)
        _ = await store.read(key: "QUERY_ROOT", selections: [], parent: .object("Query"), variables: [:], requestMaxAge: nil)
        await store.collectionFinished()
        await store.persisted()
        #expect(await store.record("Note:1") == nil)
        #expect(try #require(SQLiteCache.storage(at: file).persistent).load(["Note:1", "Human:1"]).keys.sorted() == ["Human:1"])
        // Nine orphans written: not yet; the tenth record written triggers a collection.
        for index in 0..<9 { await CacheWriter(store: store).write(records: ["Orphan:\(index)": ["__typename": "Orphan"]]) }
        #expect(await store.record("Orphan:0") != nil)
        await CacheWriter(store: store).write(records: ["Orphan:9": ["__typename": "Orphan"]])
        await store.collectionFinished()
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
                        await CacheWriter(store: store).write(records: [
                            "QUERY_ROOT": ["item(\(task))": reference("Item:\(task)")],
                            "Item:\(task)": ["__typename": "Item", "round": .int(round), "orphan": false],
                            "Loose:\(task)-\(round)": ["__typename": "Loose"],
                        ])
                        _ = await store.record("Item:\(task)")
                    }
                }
            }
            group.addTask {
                for _ in 0..<20 { _ = await CacheWriter(store: store).collectGarbage(maxStaleness: .zero) }
            }
        }
        _ = await CacheWriter(store: store).collectGarbage(maxStaleness: .zero)
        for task in 0..<20 {
            #expect(await store.record("Item:\(task)")?.fields["round"] == .int(24), "Item:\(task)")
            #expect(await store.record("QUERY_ROOT")?.fields["item(\(task))"] == reference("Item:\(task)"))
            #expect(await store.record("Loose:\(task)-24") == nil)
        }
    }
}

/// A random store (seeded): objects referring to each other and to missing ones, some of a type
/// past its maximum age, some fields with an expiry past, and the query root referring to a few.
private func randomGraph(seed: UInt64, size: Int) -> (records: [String: JSONObject], expires: [String: [String: Date]]) {
    var random = SeededGenerator(seed: seed)
    var records: [String: JSONObject] = [:]
    var expires: [String: [String: Date]] = [:]
    func someKey() -> String {
        Int.random(in: 0..<10, using: &random) == 0 ? "Missing:\(Int.random(in: 0..<5, using: &random))" : "Node:\(Int.random(in: 0..<size, using: &random))"
    }
    for index in 0..<size {
        var fields: JSONObject = ["__typename": Int.random(in: 0..<8, using: &random) == 0 ? "Old" : "Node", "n": .int(index)]
        for field in 0..<Int.random(in: 0...3, using: &random) {
            fields["one\(field)"] = reference(someKey())
        }
        if Bool.random(using: &random) { fields["list"] = .array((0..<Int.random(in: 0...3, using: &random)).map { _ in reference(someKey()) }) }
        if Int.random(in: 0..<6, using: &random) == 0 {
            fields["brief"] = .string("expires")
            expires["Node:\(index)", default: [:]]["brief"] = Date(timeIntervalSince1970: 1_000)
        }
        records["Node:\(index)"] = fields
    }
    var root: JSONObject = [:]
    for field in 0..<max(1, size / 20) { root["entry\(field)"] = reference(someKey()) }
    records["QUERY_ROOT"] = root
    // One of the root's fields expired (a root is kept field by field in SQLite).
    expires["QUERY_ROOT"] = ["entry0": Date(timeIntervalSince1970: 1_000)]
    return (records, expires)
}

/// What a collection leaves of `records` (no watchers, no layers), worked out the plain way:
/// expired records go (type `Old`), then expired fields, then fields referring to a missing
/// record, then what the query root does not reach.
private func modelCollection(_ graph: (records: [String: JSONObject], expires: [String: [String: Date]]))
    -> (records: [String: JSONObject], collection: CacheCollection)
{
    var records = graph.records
    var collection = CacheCollection()
    for (key, fields) in records where fields["__typename"] == "Old" {
        records[key] = nil
        collection.expiredRecords += 1
    }
    for (key, names) in graph.expires where records[key] != nil {
        for name in names.keys { records[key]?[name] = nil }
        collection.expiredFields += names.count
    }
    var reached: Set<String> = []
    var pending = ["QUERY_ROOT"]
    while let key = pending.popLast() {
        guard reached.insert(key).inserted, let fields = records[key] else { continue }
        for (name, value) in fields {
            var referred: [String] = []
            CacheNaming.collectReferences(value, into: &referred)
            if referred.allSatisfy({ records[$0] != nil }) {
                pending += referred
            } else {
                records[key]?[name] = nil
                collection.danglingReferences += 1
            }
        }
    }
    for key in records.keys where !reached.contains(key) {
        records[key] = nil
        collection.unreachableRecords += 1
    }
    return (records, collection)
}

/// `{ hero { name friends { name } } }`, as `graph` has it.
private struct HeroData: RootSelectionSet {
    let __data: DataDict
    init(_dataDict: DataDict) { __data = _dataDict }
    static let __parentType = ParentType.object("Query")
    static let __selections = Selection.parse(#"[["hero","0"]]"#, Hero.self)
    struct Hero: SelectionSet {
        let __data: DataDict
        init(_dataDict: DataDict) { __data = _dataDict }
        static let __parentType = ParentType.object("Human")
        static let __selections = Selection.parse(#"[["name","0!"],["friends","[1!]"]]"#, String.self, Friend.self)
    }
    struct Friend: SelectionSet {
        let __data: DataDict
        init(_dataDict: DataDict) { __data = _dataDict }
        static let __parentType = ParentType.object("Character")
        static let __selections = Selection.parse(#"[["name","0!"]]"#, String.self)
    }
}

@Suite("Garbage collection in slices")
struct IncrementalCollectionTests {
    /// A store of `graph` (in memory, or in an SQLite file read by a new store), collected in
    /// slices of at most `units` records (`nil`: one slice); what it holds after, and the collection.
    static func collect(
        _ graph: (records: [String: JSONObject], expires: [String: [String: Date]]), sqlite: Bool, units: Int?
    ) async throws -> (records: [String: JSONObject], collection: CacheCollection, slices: Int) {
        let clock = TestClock()
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        func makeStore() -> NormalizedStore {
            NormalizedStore(
                persistent: sqlite ? SQLiteCache.storage(at: file).persistent : nil, maxAgeByType: ["Old": .seconds(60)], logger: Logger(label: "test"),
                now: { clock.now })
        }
        var store = makeStore()
        await CacheWriter(store: store).write(records: graph.records, expires: graph.expires)
        clock.advance(by: 3600)
        if sqlite { store = makeStore() }
        await store.transaction { @Sendable store in
            store.collector.slice = units.map { CollectionSlice(maxUnits: $0) } ?? CollectionSlice(budget: .seconds(3600))
        }
        await CacheWriter(store: store).prepareCollection(maxStaleness: .zero)
        let (collection, slices) = await store.transaction { @Sendable store in
            var slices = 1
            while true {
                if let done = store.collectSlice() { return (done, slices) }
                slices += 1
            }
        }
        var left: [String: JSONObject] = [:]
        if sqlite {
            await store.persisted()
            for record in try #require(SQLiteCache.storage(at: file).persistent).loadAll() { left[record.key] = record.fields }
        } else {
            for key in graph.records.keys {
                if let record = await store.record(key) { left[key] = record.fields }
            }
        }
        return (left, collection, slices)
    }

    @Test("on random stores, in memory and in SQLite: slices of one record leave what one slice leaves, and what the plain model says", arguments: [false, true])
    func randomStores(sqlite: Bool) async throws {
        for seed in 0..<(sqlite ? 6 : 20) {
            let graph = randomGraph(seed: UInt64(seed), size: sqlite ? 600 : 300)
            let model = modelCollection(graph)
            let whole = try await Self.collect(graph, sqlite: sqlite, units: nil)
            let sliced = try await Self.collect(graph, sqlite: sqlite, units: 1)
            #expect(whole.slices == 1)
            #expect(sliced.slices > 100, "seed \(seed)")
            #expect(whole.collection == model.collection, "seed \(seed)")
            #expect(sliced.collection == model.collection, "seed \(seed)")
            #expect(whole.records == model.records, "seed \(seed)")
            #expect(sliced.records == model.records, "seed \(seed)")
        }
    }

    @Test("what is written between slices stays, with what it refers to; what became unreachable meanwhile goes next time")
    func writesBetweenSlices() async throws {
        // Orphans besides the two notes: the sweep takes them in no set order, so the one referred
        // to again is one still there when the write comes.
        let orphans = (0..<50).map { "Orphan:\($0)" }
        for phase in [IncrementalCollection.Phase.marking, .sweep] {
            let store = NormalizedStore(persistent: nil, logger: Logger(label: "test"))
            await CacheWriter(store: store).write(records: graph)
            await CacheWriter(store: store).write(records: Dictionary(uniqueKeysWithValues: orphans.map { ($0, ["__typename": "Orphan"] as JSONObject) }))
            await store.transaction { @Sendable store in store.collector.slice = CollectionSlice(maxUnits: 1) }
            await CacheWriter(store: store).prepareCollection(maxStaleness: .zero)
            let reachedPhase = await store.transaction { @Sendable store in
                while store.collector.underWay?.phase != phase { _ = store.collectSlice() }
                return store.collector.underWay?.phase
            }
            #expect(reachedPhase == phase)
            var kept: String?
            for key in orphans where await store.record(key) != nil {
                kept = key
                break
            }
            let resurrected = try #require(kept)
            // An orphan referred to again; Human:2 no longer.
            await CacheWriter(store: store).write(records: ["QUERY_ROOT": ["orphan": reference(resurrected)], "Human:1": ["friends": [reference("Droid:1")]]])
            let collection = await store.transaction { @Sendable store in
                while true {
                    if let done = store.collectSlice() { return done }
                }
            }
            #expect(await store.record(resurrected) != nil, "\(phase)")
            // The notes (no watcher here) and the other orphans.
            let unreachable = 2 + orphans.count - 1
            if phase == .marking {
                // Nothing was marked yet: Human:2 is found unreachable now.
                #expect(collection.unreachableRecords == unreachable + 1, "\(phase)")
                #expect(await store.record("Human:2") == nil, "\(phase)")
            } else {
                // Marked before the write: it stays until the next collection.
                #expect(collection.unreachableRecords == unreachable, "\(phase)")
                #expect(await store.record("Human:2") != nil, "\(phase)")
                #expect(await CacheWriter(store: store).collectGarbage(maxStaleness: .zero).unreachableRecords == 1, "\(phase)")
                #expect(await store.record("Human:2") == nil, "\(phase)")
            }
        }
    }

    @Test("reads and writes go on while a collection runs in slices: every read is whole, no write is lost")
    func readsDuringCollection() async throws {
        let store = NormalizedStore(persistent: nil, logger: Logger(label: "test"))
        let generated = randomGraph(seed: 7, size: 3_000)
        await CacheWriter(store: store).write(records: generated.records)
        await CacheWriter(store: store).write(records: graph)
        await store.transaction { @Sendable store in store.collector.slice = CollectionSlice(maxUnits: 16) }
        async let collected = CacheWriter(store: store).collectGarbage(maxStaleness: .zero)
        var reads = 0
        for round in 0..<200 {
            let read = await store.read(key: "QUERY_ROOT", selections: HeroData.__selections, parent: HeroData.__parentType, variables: [:], requestMaxAge: nil)
            #expect(read.data?["hero"]?["friends"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Han", "R2-D2"])
            await CacheWriter(store: store).write(records: ["QUERY_ROOT": ["kept\(round)": reference("Kept:\(round)")], "Kept:\(round)": ["__typename": "Kept", "round": .int(round)]])
            reads += 1
        }
        let collection = await collected
        #expect(collection.unreachableRecords > 0)
        for round in 0..<200 { #expect(await store.record("Kept:\(round)")?.fields["round"] == .int(round)) }
        #expect(await store.record("Droid:1") != nil)
        #expect(reads == 200)
    }
}
