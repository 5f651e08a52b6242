@_spi(Generated) @testable import APICore
import APICoreSupport
@testable import APICoreLive
@testable import APICoreSQLite
import APICoreTesting
import Foundation
import GRDB
import Logging
import Synchronization
import Testing

/// An item record with about `padding` bytes of text.
private func item(_ index: Int, padding: Int = 0) -> JSONObject {
    ["__typename": "Item", "n": .int(index), "text": .string(String(repeating: "x", count: padding))]
}

/// The values of `n` a watcher of one record saw, in order.
private final class Seen: Sendable {
    let values = Mutex<[Int]>([])
    var last: Int? { values.withLock { $0.last } }
}

/// Registers a watcher of `key` that notes the record's `n` each time it is told.
private func watch(_ key: String, in store: NormalizedStore, into seen: Seen) async -> UInt64 {
    await store.addWatcher(dependencies: [key]) { store in
        if case .int(let n)? = store.record(key)?.fields["n"] { seen.values.withLock { $0.append(n) } }
        return [key]
    }
}

/// An item's `n`, as a generated selection set would select it.
private struct ItemSelection: SelectionSet {
    let __data: DataDict
    init(_dataDict: DataDict) { __data = _dataDict }
    static let __parentType = ParentType.object("Item")
    static let __selections: [Selection] = [.field(Field("__typename", .nonNull(.scalar(String.self)))), .field(Field("n", .nonNull(.scalar(Int.self))))]
}

@Suite("Cache size bounds")
struct CacheBoundsTests {
    @Test("a memory bound of 50 records with watchers active: writing ten times the bound stays within it, watchers keep seeing each write, evicted records read back from SQLite")
    func memoryRecordBound() async throws {
        let directory = try TemporaryDirectory()
        let store = NormalizedStore(
            persistent: SQLiteCache.storage(at: directory.url.appendingPathComponent("cache.sqlite")).persistent,
            memoryLimit: .records(50), logger: Logger(label: "test"))
        let watched = (0..<3).map { "Watched:\($0)" }
        let seen = watched.map { _ in Seen() }
        await CacheWriter(store: store).write(records: Dictionary(uniqueKeysWithValues: watched.map { ($0, item(-1)) }))
        var watchers: [UInt64] = []
        for (key, seen) in zip(watched, seen) { watchers.append(await watch(key, in: store, into: seen)) }

        for index in 0..<500 {
            await CacheWriter(store: store).write(records: ["Item:\(index)": item(index)])
            if index % 10 == 0 {
                let key = watched[index / 10 % 3]
                await CacheWriter(store: store).write(records: [key: item(index)])
                #expect(seen[index / 10 % 3].last == index, "\(key) after write \(index)")
            }
            let footprint = await store.memoryFootprint
            #expect(footprint.records <= 50 && footprint.cost <= 50, "after write \(index): \(footprint)")
        }
        // The watched records were never evicted; the first items were, and read back from SQLite.
        for key in watched {
            let record = await store.record(key)
            #expect(record != nil, "\(key)")
        }
        #expect(await store.record("Item:0")?.fields["n"] == .int(0))
        #expect(await store.record("Item:499")?.fields["n"] == .int(499))
        for id in watchers { await store.removeWatcher(id) }
    }

    @Test("a memory bound in bytes, without a persistent store: the estimate stays within it writing ten times the bound; an evicted record is a miss")
    func memoryByteBound() async throws {
        let limit = 64 * 1024
        let store = NormalizedStore(persistent: nil, memoryLimit: .bytes(limit), logger: Logger(label: "test"))
        let recordBytes = MemoryBudget.estimatedBytes(of: CacheRecord(key: "Item:0", fields: item(0, padding: 500), receivedAt: Date()))
        #expect(recordBytes > 500 && recordBytes < 1000)
        let count = 10 * limit / recordBytes
        for index in 0..<count {
            await CacheWriter(store: store).write(records: ["Item:\(index)": item(index, padding: 500)])
            #expect(await store.memoryFootprint.cost <= limit)
        }
        #expect(await store.memoryFootprint.records >= limit / recordBytes * 8 / 10)
        #expect(await store.record("Item:0") == nil)
        #expect(await store.record("Item:\(count - 1)") != nil)
    }

    @Test("SQLite with a size bound: writing ten times the bound keeps its files within it; the least recently used go, watched and recently read records stay")
    func sqliteBound() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let bound = 256 * 1024
        let storage = SQLiteCache.storage(at: file, maxBytes: bound)
        let store = NormalizedStore(persistent: storage.persistent, memoryLimit: .records(100), logger: Logger(label: "test"))
        let seen = Seen()
        await CacheWriter(store: store).write(records: ["Watched:0": item(-1, padding: 500), "Kept:0": item(-2, padding: 500)])
        let watcher = await watch("Watched:0", in: store, into: seen)

        let batch = 20
        let batches = 10 * bound / (batch * 500)
        var largest = 0
        for round in 0..<batches {
            let records = (0..<batch).map { round * batch + $0 }
            await CacheWriter(store: store).write(records: Dictionary(uniqueKeysWithValues: records.map { ("Item:\($0)", item($0, padding: 500)) }))
            _ = await store.record("Kept:0")  // read: recently used
            let main = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0
            largest = max(largest, main)
        }
        // Written behind the store: in the file once persisted() returns.
        await store.persisted()
        #expect(largest <= bound, "the database file grew to \(largest) bytes")
        let onDisk = try #require(storage.persistent).bytesOnDisk()
        #expect(onDisk <= bound + bound / 2, "database, log and shared memory: \(onDisk) bytes")

        let reader = try #require(SQLiteCache.storage(at: file).persistent)
        let left = try reader.loadAll()
        let keys = Set(left.map(\.key))
        #expect(keys.contains("Watched:0") && keys.contains("Kept:0"))
        #expect(!keys.contains("Item:0"))
        #expect(keys.contains("Item:\(batches * batch - 1)"))
        #expect(left.count > bound / 2 / 1000, "\(left.count) records left")
        #expect(seen.values.withLock { $0.isEmpty })  // trimming changes nothing a watcher reads
        await store.removeWatcher(watcher)
    }

    @Test("root records are kept field by field in SQLite: a write saves what it changes, a read loads what it selects, removed fields stay removed")
    func rootsByField() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let store = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "test"))
        for page in 0..<50 {
            await CacheWriter(store: store).write(records: ["QUERY_ROOT": ["page(n:\(page))": .array([CacheNaming.reference(to: "Item:\(page)")])], "Item:\(page)": item(page)])
        }
        await CacheWriter(store: store).update("QUERY_ROOT") { $0["page(n:7)"] = nil }
        await store.persisted()
        let (fields, wholeRoots) = try await DatabaseQueue(path: file.path).read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM apicore_fields WHERE key = 'QUERY_ROOT'"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM apicore_records WHERE key = 'QUERY_ROOT'")
            )
        }
        #expect(fields == 49 && wholeRoots == 0)

        // A cold read of one page loads that field of the root, not the other 48.
        let cold = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "test"))
        let page = Field("page", .nonNull(.list(.nonNull(.object(ItemSelection.self)))), arguments: ["n": .value(.int(3))])
        let read = await cold.read(key: "QUERY_ROOT", selections: [.field(page)], parent: .object("Query"), variables: [:], requestMaxAge: nil)
        #expect(read.data?["page"] == .array([["__typename": "Item", "n": 3]]))
        #expect(await cold.memoryFootprint.records == 2)  // the root, in part, and Item:3
        // A collection after that sees the whole root: only the item the removed field reached goes,
        // in the file too.
        #expect(await CacheWriter(store: cold).collectGarbage(maxStaleness: .zero).unreachableRecords == 1)
        await cold.persisted()
        #expect(try #require(SQLiteCache.storage(at: file).persistent).load(["Item:7", "Item:8"]).keys.sorted() == ["Item:8"])

        let reopened = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "test"))
        let found = await reopened.record("QUERY_ROOT")
        let root = try #require(found)
        #expect(root.fields.count == 49 && root.fields["page(n:7)"] == nil)
        #expect(root.fields["page(n:49)"] == .array([CacheNaming.reference(to: "Item:49")]))
    }

    @Test("a store file of format version 1 is migrated in place: its records read, expiry and use columns and the queue table added, free pages given back")
    func migratesVersion1() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let database = try DatabaseQueue(path: file.path)
        try database.write { db in
            try db.execute(sql: "CREATE TABLE apicore_records (key TEXT PRIMARY KEY NOT NULL, fields BLOB NOT NULL, received_at DOUBLE NOT NULL) WITHOUT ROWID")
            try db.execute(sql: #"INSERT INTO apicore_records VALUES ('Human:1', '{"name":"Luke"}', 1800000000)"#)
            try db.execute(sql: #"INSERT INTO apicore_records VALUES ('QUERY_ROOT', '{"a":1,"b":{"__ref":"Human:1"}}', 1800000000)"#)
            try db.execute(sql: "PRAGMA user_version = 1")
        }
        try database.close()
        let log = LogCapture()
        let store = try #require(SQLiteCache.storage(at: file, logger: log.logger).persistent)
        let record = try #require(try store.load(["Human:1"])["Human:1"])
        #expect(record.fields["name"] == "Luke" && record.expires.isEmpty)
        #expect(record.receivedAt == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(!log.all.contains { $0.hasPrefix("[warning]") })
        let (version, columns, vacuum, queue) = try DatabaseQueue(path: file.path).read { db in
            (
                try Int.fetchOne(db, sql: "PRAGMA user_version"),
                try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('apicore_records')"),
                try Int.fetchOne(db, sql: "PRAGMA auto_vacuum"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM apicore_mutation_queue")
            )
        }
        #expect(version == SQLiteRecordStore.formatVersion && columns == ["key", "fields", "received_at", "expires", "used_at"] && vacuum == 2)
        #expect(queue == 0)  // the offline queue's table (version 3) is there, empty
        // The root, kept whole by version 1, was split into fields when the file was opened.
        try store.save([], fields: [FieldChanges(key: "QUERY_ROOT", set: ["c": 3], removed: ["a"], receivedAt: Date())], removing: [], unlessWrittenSince: nil, used: [], keeping: .none)
        #expect(try store.load(["QUERY_ROOT"])["QUERY_ROOT"]?.fields == ["b": ["__ref": "Human:1"], "c": 3])
        let rows = try DatabaseQueue(path: file.path).read { db in
            try String.fetchAll(db, sql: "SELECT field FROM apicore_fields WHERE key = 'QUERY_ROOT' ORDER BY field")
                + String.fetchAll(db, sql: "SELECT key FROM apicore_records WHERE key = 'QUERY_ROOT'")
        }
        #expect(rows == ["b", "c"])
        // Expiry written now round-trips.
        let expiry = Date(timeIntervalSince1970: 1_800_000_060)
        try store.save([CacheRecord(key: "Human:2", fields: ["name": "Leia"], receivedAt: Date(), expires: ["name": expiry])], fields: [], removing: [], unlessWrittenSince: nil, used: [], keeping: .none)
        #expect(try store.load(["Human:2"])["Human:2"]?.expires == ["name": expiry])
    }
}
