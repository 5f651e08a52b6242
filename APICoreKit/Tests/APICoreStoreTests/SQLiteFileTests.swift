@testable import APICore
import APICoreSupport
@testable import APICoreLive
@testable import APICoreSQLite
import APICoreTesting
import Foundation
import GRDB
import Logging
import StarWarsOperations
import Testing

@Suite("SQLite cache files")
struct SQLiteFileTests {
    @Test("a collection leaves what another client of the file (another process) wrote while it ran, and what that refers to")
    func collectionBesideAnotherWriter() async throws {
        for phase in [IncrementalCollection.Phase.marking, .sweep] {
            let directory = try TemporaryDirectory()
            let file = directory.url.appendingPathComponent("cache.sqlite")
            func client() -> NormalizedStore { NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "test")) }
            let collecting = client()
            await CacheWriter(store: collecting).write(records: [
                "QUERY_ROOT": ["hero": CacheNaming.reference(to: "Human:1")], "Human:1": ["__typename": "Human", "name": "Luke"],
                "Note:1": ["__typename": "Note", "text": "nobody refers to me"],
            ])
            await collecting.transaction { @Sendable store in store.collector.slice = CollectionSlice(maxUnits: 1) }
            await CacheWriter(store: collecting).prepareCollection(maxStaleness: .zero)
            await collecting.transaction { @Sendable store in
                while store.collector.underWay?.phase != phase { _ = store.collectSlice() }
                _ = store.collectSlice()
            }
            // Another process answers a query into the same file while the collection runs (its
            // write in the file once it is persisted).
            let other = client()
            await CacheWriter(store: other).write(records: [
                "QUERY_ROOT": ["households": [CacheNaming.reference(to: "Household:1")]], "Household:1": ["__typename": "Household", "name": "Home"],
            ])
            await other.persisted()
            let collection = await collecting.transaction { @Sendable store in
                while true {
                    if let done = store.collectSlice() { return done }
                }
            }
            #expect(collection.unreachableRecords == 1, "\(phase): the note")
            await collecting.persisted()
            let left = try #require(SQLiteCache.storage(at: file).persistent).load(["QUERY_ROOT", "Human:1", "Household:1", "Note:1"])
            #expect(left["Household:1"]?.fields["name"] == "Home", "\(phase): the other client's record was swept")
            #expect(left["QUERY_ROOT"]?.fields["households"] == [CacheNaming.reference(to: "Household:1")], "\(phase)")
            #expect(left["Human:1"] != nil && left["Note:1"] == nil, "\(phase)")
        }
    }

    @Test("rows of the wrong types (a file another program wrote): read as missing, never a crash")
    func mistypedRows() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        // Before: GRDB's row subscripts trapped on NULL or a value of another type.
        let database = try DatabaseQueue(path: file.path)
        try database.write { db in
            try db.execute(sql: "CREATE TABLE apicore_records (key, fields, received_at)")
            try db.execute(sql: """
                INSERT INTO apicore_records VALUES
                  ('Human:1', NULL, 0), ('Human:2', x'7b7d', 'yesterday'), (3, x'7b7d', 0),
                  ('Human:4', 'not json', 0), ('Human:5', '{"name":"Leia"}', 12.5)
                """)
        }
        try database.close()
        let storage = SQLiteCache.storage(at: file, logger: LogCapture().logger)
        let store = try #require(storage.persistent)
        let records = try store.load(["Human:1", "Human:2", "3", "Human:4", "Human:5"])
        // NULL fields and fields that are not a JSON object are missing; a date written as text
        // reads as SQLite converts it (a very old record), which is no harm.
        #expect(records["Human:1"] == nil && records["Human:4"] == nil)
        #expect(Set(records.keys).isSubset(of: ["Human:2", "Human:5"]))
        #expect(records["Human:5"]?.fields["name"] == "Leia")
    }

    @Test("clearing leaves nothing of the old data in any file of the store (database, WAL, shared memory), and the file shrinks")
    func secureClear() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let secret = "secret-\(UUID().uuidString)"
        let store = try #require(SQLiteCache.storage(at: file, logger: LogCapture().logger).persistent)
        // Some records checkpointed into the main file, more still in the WAL.
        func records(_ range: Range<Int>) -> [CacheRecord] {
            range.map { CacheRecord(key: "Note:\($0)", fields: ["text": .string("\(secret) \($0) " + String(repeating: "x", count: 300))], receivedAt: Date()) }
        }
        try store.save(records(0..<1500), fields: [], removing: [], unlessWrittenSince: nil, used: [], keeping: .none)
        let checkpoint = try DatabaseQueue(path: file.path)
        try checkpoint.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try checkpoint.close()
        try store.save(records(1500..<2000), fields: [], removing: [], unlessWrittenSince: nil, used: [], keeping: .none)
        let files = { try FileManager.default.contentsOfDirectory(at: directory.url, includingPropertiesForKeys: nil) }
        let holding = try files().filter { try Data(contentsOf: $0).range(of: Data(secret.utf8)) != nil }
        #expect(Set(holding.map(\.lastPathComponent)) == ["cache.sqlite", "cache.sqlite-wal"])  // the test can see it
        let sizeBefore = try Data(contentsOf: file).count

        try store.removeAll()
        for url in try files() {
            #expect(try Data(contentsOf: url).range(of: Data(secret.utf8)) == nil, "\(url.lastPathComponent) still holds the secret")
        }
        #expect(try Data(contentsOf: file).count < sizeBefore / 10)
        // The store goes on.
        try store.save(records(0..<1), fields: [], removing: [], unlessWrittenSince: nil, used: [], keeping: .none)
        #expect(try store.load(["Note:0"]).count == 1)
    }

    @Test("a store file of another format version: one warning, the memory cache, the file left alone")
    func otherFormatVersion() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let database = try DatabaseQueue(path: file.path)
        try database.write { db in
            try db.execute(sql: "CREATE TABLE apicore_records (key TEXT PRIMARY KEY, fields BLOB, received_at DOUBLE, expires_at DOUBLE)")
            try db.execute(sql: "PRAGMA user_version = 7")
        }
        try database.close()
        let before = try Data(contentsOf: file)
        let log = LogCapture()
        let storage = SQLiteCache.storage(at: file, logger: log.logger)
        #expect(storage.persistent == nil)
        let warnings = log.all.filter { $0.hasPrefix("[warning]") }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("format version 7") == true)
        #expect(try Data(contentsOf: file) == before)
    }

    @Test("a store file from before format versions (version 0, the same table) is read and marked as the current version")
    func unversionedFile() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let database = try DatabaseQueue(path: file.path)
        try database.write { db in
            try db.execute(sql: "CREATE TABLE apicore_records (key TEXT PRIMARY KEY NOT NULL, fields BLOB NOT NULL, received_at DOUBLE NOT NULL) WITHOUT ROWID")
            try db.execute(sql: #"INSERT INTO apicore_records VALUES ('Human:1', '{"name":"Luke"}', 0)"#)
        }
        try database.close()
        let log = LogCapture()
        let store = try #require(SQLiteCache.storage(at: file, logger: log.logger).persistent)
        #expect(try store.load(["Human:1"])["Human:1"]?.fields["name"] == "Luke")
        #expect(!log.all.contains { $0.hasPrefix("[warning]") })
        let version = try DatabaseQueue(path: file.path).read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") }
        #expect(version == SQLiteRecordStore.formatVersion)
    }

    @Test("a device, a folder or an empty file at the cache path: nothing created beside it, nothing changed without a word")
    func filesItDidNotCreate() throws {
        // Before: /dev/null got -journal/-wal/-shm files beside it, and an empty file silently became a database.
        let sidecars = ["-wal", "-shm", "-journal"].map { "/dev/null" + $0 }
        let existing = sidecars.filter { FileManager.default.fileExists(atPath: $0) }
        let log = LogCapture()
        let device = SQLiteCache.storage(at: URL(fileURLWithPath: "/dev/null"), logger: log.logger)
        #expect(device.persistent == nil)
        #expect(sidecars.filter { FileManager.default.fileExists(atPath: $0) } == existing)
        #expect(log.all.contains { $0.hasPrefix("[warning]") && $0.contains("/dev/null") && $0.contains("not a regular file") })

        let directory = try TemporaryDirectory()
        let folder = SQLiteCache.storage(at: directory.url, logger: log.logger)
        #expect(folder.persistent == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)

        let empty = directory.url.appendingPathComponent("empty.sqlite")
        #expect(FileManager.default.createFile(atPath: empty.path, contents: Data()))
        let made = SQLiteCache.storage(at: empty, logger: log.logger)
        #expect(made.persistent != nil)
        #expect(log.all.contains { $0.hasPrefix("[notice]") && $0.contains("empty.sqlite") && $0.contains("becomes the SQLite cache") })
    }
}
