@_spi(Engine) @_spi(Generated) @testable import APICore
import APICoreSupport
@testable import APICoreLive
@testable import APICoreSQLite
import APICoreTesting
import Foundation
import GRDB
import Logging
import Synchronization
import Testing

/// Two clients of one SQLite file, as an app and its extension are: each its own store, memory
/// and connections, as two processes would have (SQLite tells their writes apart the same way).
@Suite("Other clients of the same SQLite file")
struct OtherWritersTests {
    private static func client(_ file: URL) -> NormalizedStore {
        NormalizedStore(persistent: SQLiteCache.storage(at: file).persistent, logger: Logger(label: "test"))
    }

    private static let luke: JSONObject = ["__typename": "Human", "id": "1", "name": "Luke"]

    @Test("what another client writes, changes or removes is loaded into memory again; only what really changed is reported, never this client's own writes")
    func takenIn() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let app = Self.client(file)
        let widget = Self.client(file)
        await CacheWriter(store: app).write(records: [
            "Human:1": Self.luke, "Human:2": ["__typename": "Human", "id": "2", "name": "Han"],
            "QUERY_ROOT": ["hero": CacheNaming.reference(to: "Human:1"), "droid": CacheNaming.reference(to: "Human:2")],
        ])
        await app.persisted()
        // Its own write is not news to the app; the widget holds nothing yet, so it reports the keys.
        #expect(await app.takeInOthersChanges().isEmpty)
        #expect(await widget.takeInOthersChanges().isSuperset(of: ["Human:1", "Human:2"]))
        for key in ["Human:1", "Human:2", "QUERY_ROOT"] { _ = await widget.record(key) }

        // A changed name: the widget's memory has the new one, and says so.
        var renamed = Self.luke
        renamed["name"] = "Luke Skywalker"
        await CacheWriter(store: app).write(records: ["Human:1": renamed])
        await app.persisted()
        #expect(await widget.takeInOthersChanges() == ["Human:1"])
        #expect(await widget.records["Human:1"]?.fields["name"] == "Luke Skywalker")

        // The same fields again: nothing changed.
        await CacheWriter(store: app).write(records: ["Human:1": renamed, "Human:2": ["__typename": "Human", "id": "2", "name": "Han"]])
        await app.persisted()
        #expect(await widget.takeInOthersChanges().isEmpty)

        // A root's field: the field and the root as a whole.
        await CacheWriter(store: app).write(records: ["QUERY_ROOT": ["hero": CacheNaming.reference(to: "Human:2")]])
        await app.persisted()
        #expect(await widget.takeInOthersChanges() == [CacheNaming.fieldDependency("QUERY_ROOT", "hero"), CacheNaming.anyField(of: "QUERY_ROOT")])
        #expect(await widget.records["QUERY_ROOT"]?.fields["hero"] == CacheNaming.reference(to: "Human:2"))
        #expect(await widget.records["QUERY_ROOT"]?.fields["droid"] == CacheNaming.reference(to: "Human:2"))

        // A removal; then the widget's own write, which the app hears of.
        await CacheWriter(store: app).remove("Human:2")
        await app.persisted()
        #expect(await widget.takeInOthersChanges() == ["Human:2"])
        #expect(await widget.records["Human:2"] == nil)
        await CacheWriter(store: widget).write(records: ["Human:3": ["__typename": "Human", "id": "3", "name": "Leia"]])
        await widget.persisted()
        #expect(await widget.takeInOthersChanges().isEmpty)
        #expect(await app.takeInOthersChanges() == ["Human:3"])
        #expect(await app.record("Human:3")?.fields["name"] == "Leia")

        // A clear: the widget forgets all it holds, and finds nothing in the file.
        await CacheWriter(store: app).removeAll()
        let cleared = await widget.takeInOthersChanges()
        #expect(cleared.isSuperset(of: ["Human:1", "QUERY_ROOT"]))
        #expect(await widget.records.isEmpty)
        #expect(await widget.record("Human:1") == nil)
    }

    @Test("a watcher in one client is woken by another client's write of what it reads, within a bounded time; a watcher of another record is not")
    func watcherWoken() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let app = Self.client(file)
        let widget = Self.client(file)
        await CacheWriter(store: app).write(records: ["Human:1": Self.luke, "Human:2": ["__typename": "Human", "id": "2", "name": "Han"]])
        await app.persisted()
        _ = await widget.takeInOthersChanges()

        let (names, continuation) = AsyncStream.makeStream(of: String.self)
        let otherWakes = Mutex(0)
        let watcher = await widget.addWatcher(dependencies: ["Human:1"]) { store in
            if let name = store.record("Human:1")?.fields["name"]?.stringValue { continuation.yield(name) }
            return ["Human:1"]
        }
        let other = await widget.addWatcher(dependencies: ["Human:2"]) { _ in
            otherWakes.withLock { $0 += 1 }
            return ["Human:2"]
        }
        var renamed = Self.luke
        renamed["name"] = "Luke Skywalker"
        await CacheWriter(store: app).write(records: ["Human:1": renamed])
        await app.persisted()
        // Bounded: the stream ends after 60 s (the look is every 50 ms), and the test fails then.
        let deadline = Task {
            try? await Task.sleep(for: .seconds(60))
            continuation.finish()
        }
        var heard: String?
        for await name in names {
            heard = name
            break
        }
        deadline.cancel()
        #expect(heard == "Luke Skywalker")
        #expect(otherWakes.withLock { $0 } == 0)
        await widget.removeWatcher(watcher)
        await widget.removeWatcher(other)
    }

    @Test("nothing older wins: a copy received earlier than the file's row (another client's later write) leaves that row, record or root field, and a removal of a field does too")
    func olderLoses() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let app = try SQLiteRecordStore(url: file)
        let widget = try SQLiteRecordStore(url: file)
        let early = Date().addingTimeInterval(-10), late = early.addingTimeInterval(1), later = early.addingTimeInterval(2)
        func save(_ store: SQLiteRecordStore, name: String, at date: Date, removingHero: Bool = false) throws {
            let hero = FieldChanges(
                key: "QUERY_ROOT", set: removingHero ? [:] : ["hero": .string(name)], removed: removingHero ? ["hero"] : [], receivedAt: date)
            _ = try store.save(
                [CacheRecord(key: "Human:1", fields: ["__typename": "Human", "name": .string(name)], receivedAt: date)],
                fields: [hero], removing: [], unlessWrittenSince: nil, used: [], keeping: .none)
        }
        func stored() throws -> (name: JSONValue?, hero: JSONValue?) {
            (try app.load(["Human:1"])["Human:1"]?.fields["name"], try app.loadFields(["hero"], of: "QUERY_ROOT")?.fields["hero"])
        }
        try save(app, name: "Luke Skywalker", at: late)
        // The widget's write-behind saves what it received before the app did.
        try save(widget, name: "Luke", at: early)
        #expect(try stored() == ("Luke Skywalker", "Luke Skywalker"))
        try save(widget, name: "Luke", at: early, removingHero: true)
        #expect(try stored() == ("Luke Skywalker", "Luke Skywalker"))
        // Received later: it is written, and removes.
        try save(widget, name: "Master Luke", at: later)
        #expect(try stored() == ("Master Luke", "Master Luke"))
        try save(app, name: "Master Luke", at: later, removingHero: true)
        #expect(try stored() == ("Master Luke", nil))
        // A row received more than a minute in the future (the clock was set back since) does not hold.
        try save(app, name: "Future Luke", at: Date().addingTimeInterval(3600))
        try save(widget, name: "Luke", at: early)
        #expect(try stored() == ("Luke", "Luke"))
    }

    @Test("the change log: a reader behind what it keeps (rows of others cut), a save of too many keys, or a row it cannot read, is told everything changed; a clear leaves only itself in the log")
    func logBounds() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("cache.sqlite")
        let writer = try SQLiteRecordStore(url: file)
        let reader = try SQLiteRecordStore(url: file)
        let start = try reader.changes(after: nil).position
        func save(_ key: String) throws {
            _ = try writer.save(
                [CacheRecord(key: key, fields: ["__typename": "Note", "text": "a"], receivedAt: Date())],
                fields: [FieldChanges(key: "QUERY_ROOT", set: ["note": CacheNaming.reference(to: key)], removed: ["old"], receivedAt: Date())],
                removing: ["Note:gone"], unlessWrittenSince: nil, used: [], keeping: .none)
        }
        try save("Note:1")
        let first = try reader.changes(after: start)
        #expect(first == StoreChanges(
            position: start + 1,
            keys: ["Note:1", "Note:gone", CacheNaming.fieldDependency("QUERY_ROOT", "note"), CacheNaming.fieldDependency("QUERY_ROOT", "old")]))
        #expect(try reader.changes(after: first.position) == StoreChanges(position: first.position))
        #expect(try writer.changes(after: start) == StoreChanges(position: first.position), "its own writes")

        // The log cut back past the reader's position (as after `kept` saves).
        try save("Note:2")
        try save("Note:3")
        try writer.pool.write { db in try db.execute(sql: "DELETE FROM apicore_changes WHERE seq <= ?", arguments: [first.position + 1]) }
        #expect(try reader.changes(after: first.position) == StoreChanges(position: first.position + 2, everything: true))
        // The rows cut were the writer's own: no gap for it.
        #expect(try writer.changes(after: start) == StoreChanges(position: first.position + 2))

        // A save of more keys than a row names is logged as everything.
        _ = try writer.save(
            (0...SQLiteRecordStore.keysPerRow).map { CacheRecord(key: "Note:many\($0)", fields: ["text": "a"], receivedAt: Date()) },
            fields: [], removing: [], unlessWrittenSince: nil, used: [], keeping: .none)
        #expect(try reader.changes(after: first.position + 2) == StoreChanges(position: first.position + 3, everything: true))

        // A row another program wrote.
        try writer.pool.write { db in try db.execute(sql: "INSERT INTO apicore_changes (writer, keys) VALUES ('other', x'FF00')") }
        #expect(try reader.changes(after: first.position + 3).everything)

        // A clear: the log keeps no key of what was there.
        try writer.removeAll()
        let cleared = try reader.changes(after: first.position + 4)
        #expect(cleared.everything && cleared.keys.isEmpty)
        #expect(try writer.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM apicore_changes") } == 1)
    }
}
