@testable import APICore
import APICoreSupport
@testable import APICoreLive
@testable import APICoreSQLite
import APICoreTesting
import Foundation
import Logging
import Testing

/// The persistent store written behind the normalized store: writes return once memory holds
/// them, reach the file in order, and are there for whoever reads the file next.
@Suite("SQLite written behind the store")
struct WriteBehindTests {
    static func item(_ n: Int, version: Int) -> JSONObject { ["__typename": "Item", "n": .int(n), "version": .int(version)] }

    @Test("writes, rewrites and removals reach the file in order: the last of each key wins; a store opened on the file at once reads them")
    func order() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let store = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "test"))
        let writer = CacheWriter(store: store)
        for version in 0..<40 {
            await writer.write(records: Dictionary(uniqueKeysWithValues: (0..<25).map { ("Item:\($0)", Self.item($0, version: version)) }))
            // Every fifth key is removed, then (but for the last version) written again.
            if version % 5 == 4 { await writer.remove("Item:\(version / 5)") }
        }
        await writer.write(records: ["Item:0": Self.item(0, version: 99)])
        // Another client of the file, opened without waiting: it reads what the first has queued.
        let other = NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "test"))
        #expect(await other.record("Item:0")?.fields["version"] == 99)
        #expect(await other.record("Item:24")?.fields["version"] == 39)
        #expect(await other.record("Item:7") == nil)  // removed at version 39, the last
        await store.persisted()
        let left = try #require(SQLiteCache.storage(at: file).persistent).loadAll()
        let versions = Dictionary(uniqueKeysWithValues: left.map { ($0.key, $0.fields["version"]) })
        #expect(versions.count == 24)
        #expect(versions["Item:0"] == 99 && versions["Item:1"] == 39 && versions["Item:6"] == 39 && versions["Item:7"] == nil)
    }

    @Test("a persistent store that fails behind the store is set aside, said once; the cache goes on in memory")
    func failure() async throws {
        let log = LogCapture()
        let failing = FailingStore()
        let store = NormalizedStore(persistent: failing, logger: log.logger)
        let writer = CacheWriter(store: store)
        await writer.write(records: ["Item:1": Self.item(1, version: 1)])
        await store.persisted()
        await writer.write(records: ["Item:2": Self.item(2, version: 1)])
        await writer.write(records: ["Item:3": Self.item(3, version: 1)])
        #expect(await store.record("Item:1")?.fields["version"] == 1)
        #expect(await store.record("Item:3") != nil)
        let warnings = log.all.filter { $0.contains("The persistent cache failed while writing and is set aside") }
        #expect(warnings.count == 1, "\(log.all)")
        #expect(failing.saves.withLock { $0 } == 1)  // nothing was handed to it after it failed
    }

    @Test("how far the writer lags is bounded: past the bound, a save waits until what was queued is written")
    func bound() async throws {
        let gated = FailingStore(fails: false)
        let writer = PersistentWriter(store: gated)
        let events = Locked<[String]>([])
        gated.onSave = { count in events.withLock { $0.append("saved \(count)") } }
        let many = (0...PersistentWriter.maxPendingRecords).map { CacheRecord(key: "Item:\($0)", fields: [:], receivedAt: Date()) }
        writer.enqueue(PersistentWriter.Save(records: many, fields: [], removing: [], used: [], keeping: .none))
        writer.enqueue(PersistentWriter.Save(records: [many[0]], fields: [], removing: [], used: [], keeping: .none))
        // The second save was queued only once the first was written; the writer may write the
        // second before this line reads, so what follows the first is not asserted here.
        #expect(events.withLock { $0 }.first == "saved \(many.count)")
        await writer.written()
        #expect(events.withLock { $0 } == ["saved \(many.count)", "saved 1"])
    }
}

/// A persistent store that holds nothing and fails every save (or, with `fails: false`, counts them).
private final class FailingStore: PersistentRecordStore, @unchecked Sendable {
    struct Broken: Error {}
    let fails: Bool
    let saves = Locked(0)
    var onSave: (@Sendable (Int) -> Void)?

    init(fails: Bool = true) { self.fails = fails }

    var tracksUse: Bool { false }
    func load(_: [String]) throws -> [String: CacheRecord] { [:] }
    func save(_ records: [CacheRecord], fields _: [FieldChanges], removing _: [String], unlessWrittenSince _: Date?, used _: [String], keeping _: KeptRecords)
        throws -> Int
    {
        saves.withLock { $0 += 1 }
        if fails { throw Broken() }
        onSave?(records.count)
        return 0
    }
    func loadFields(_: [String], of _: String) throws -> CacheRecord? { nil }
    func removeAll() throws {}
    func loadAll() throws -> [CacheRecord] { [] }
    func typeCounts() throws -> (byType: [String: Int], oldest: Date?) { ([:], nil) }
    func records(after _: String?, limit _: Int) throws -> [CacheRecord] { [] }
    func keys(after _: String?, receivedBy _: Date, limit _: Int) throws -> [String] { [] }
    func rootKeys() throws -> [String] { [] }
    func fieldNames(of _: String) throws -> [String] { [] }
    func fieldsExpired(of _: String, before _: Date) throws -> [String] { [] }
    func existing(_: [String]) throws -> Set<String> { [] }
    func bytesOnDisk() -> Int { 0 }
}
