@_spi(Tools) import APICore
import APICoreSupport
import Foundation
import GRDB

/// What lets clients of one cache file (an app and its extensions, each a process with its own
/// store and memory) share it: writes that never put an older copy over a newer one, and a change
/// log through which each learns what the others wrote.
///
/// A record (or a root's field) is written only over a row received no later than it: another
/// client's write-behind that saves a copy received earlier leaves the newer row as it is (it
/// hears of that row through the log). A field is removed the same way. A row received more than
/// a minute in the future (the device's clock was set back since) does not hold against a write.
///
/// Every save appends one row, in the transaction that makes the change: the client that wrote
/// it (``SQLiteRecordStore/writerID``, one per store opened) and the keys it wrote or removed
/// (a root's fields as `root␟field`); a clear appends a row that says everything changed. A reader
/// asks for the rows after the position it last read, other than its own: one query on the
/// table's last page while nothing changed. The log keeps its last ``kept`` rows; a reader that
/// fell further behind (a process suspended for long) is told that everything may have changed.
extension SQLiteRecordStore {
    /// How many rows the log keeps (it is cut back every ``kept`` rows, to between one and two
    /// times that), and the most keys a row names: a save of more (a large page, a collection)
    /// is logged as "everything", so that the log stays within a few megabytes.
    static let kept: Int64 = 128
    static let keysPerRow = 1_000

    /// Writes a record unless the file has one received later.
    static let upsertRecord = """
        INSERT INTO apicore_records (key, fields, received_at, expires, used_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (key) DO UPDATE SET fields = excluded.fields, received_at = excluded.received_at, expires = excluded.expires,
            used_at = excluded.used_at
        WHERE excluded.received_at >= apicore_records.received_at OR apicore_records.received_at > \(now) + 60
        """

    /// Writes a root's field unless the file has it received later.
    static let upsertField = """
        INSERT INTO apicore_fields (key, field, value, received_at, expires) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (key, field) DO UPDATE SET value = excluded.value, received_at = excluded.received_at, expires = excluded.expires
        WHERE excluded.received_at >= apicore_fields.received_at OR apicore_fields.received_at > \(now) + 60
        """

    /// Removes a root's field unless the file has it received later than the removal.
    static let deleteField = "DELETE FROM apicore_fields WHERE key = ? AND field = ? AND (received_at <= ? OR received_at > \(now) + 60)"

    /// The time in SQL, in seconds since 1970 (`unixepoch('subsec')` needs SQLite 3.42).
    private static let now = "((julianday('now') - 2440587.5) * 86400.0)"

    /// The change log, and the offline queue's claim: one row at most, the process that sends the
    /// queue and until when (SQLiteMutationQueue.swift).
    static func createSharedTables(in db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS apicore_changes (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                writer TEXT NOT NULL,
                keys BLOB NOT NULL,
                everything INTEGER NOT NULL DEFAULT 0
            )
            """)
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS apicore_queue_claim (
                only INTEGER PRIMARY KEY CHECK (only = 1),
                holder TEXT NOT NULL,
                until DOUBLE NOT NULL
            )
            """)
    }

    /// Appends what a save changed (`everything` for a clear) to the log, in the save's transaction.
    func logChanges(records: [CacheRecord], fields: [FieldChanges], removing keys: [String], everything: Bool = false, in db: Database) throws {
        var changed = records.map(\.key) + keys
        for changes in fields {
            changed += changes.set.keys.map { CacheNaming.fieldDependency(changes.key, $0) }
            changed += changes.removed.map { CacheNaming.fieldDependency(changes.key, $0) }
        }
        guard everything || !changed.isEmpty else { return }
        let everything = everything || changed.count > Self.keysPerRow
        try db.cachedStatement(sql: "INSERT INTO apicore_changes (writer, keys, everything) VALUES (?, ?, ?)").execute(arguments: [
            writerID, RecordCoding.encode(value: .array(everything ? [] : changed.map(JSONValue.string))), everything,
        ])
        let position = db.lastInsertedRowID
        // Its own rows cut from the log are no gap for this store (a process that writes much and
        // reads little would otherwise find itself behind the log).
        ownRows.withLock { own in
            own.insert(position)
            if own.count > Int(4 * Self.kept) { own = own.filter { $0 > position - 2 * Self.kept } }
        }
        if position % Self.kept == 0 {
            try db.execute(sql: "DELETE FROM apicore_changes WHERE seq <= ?", arguments: [position - Self.kept])
        }
    }

    func commitVersion() -> Int64? {
        try? commitSignal?.inDatabase { db in try Int64.fetchOne(db, sql: "PRAGMA data_version") }
    }

    /// A read-only connection of the store's own for ``commitVersion()``: SQLite's
    /// `data_version` changes on a connection when another one (this store's pool included)
    /// commits, and reading it needs no transaction.
    static func openCommitSignal(at url: URL) -> DatabaseQueue? {
        var configuration = Configuration()
        configuration.label = "APICoreKit.SQLiteCache.signal"
        configuration.readonly = true
        return try? DatabaseQueue(path: url.path, configuration: configuration)
    }

    func changes(after position: Int64?) throws -> StoreChanges {
        try pool.read { db in
            let last = try Int64.fetchOne(db, sql: "SELECT seq FROM apicore_changes ORDER BY seq DESC LIMIT 1") ?? 0
            guard let position else { return StoreChanges(position: last) }
            guard last != position else { return StoreChanges(position: position) }
            let first = try Int64.fetchOne(db, sql: "SELECT seq FROM apicore_changes ORDER BY seq LIMIT 1") ?? 0
            // Ahead of the log (the file was replaced), or behind what it keeps with rows of other
            // stores cut since: anything may differ.
            let cut = (position + 1)..<max(position + 1, first)
            guard last > position, cut.count <= 2 * Int(Self.kept), ownRows.withLock({ own in cut.allSatisfy(own.contains) }) else {
                return StoreChanges(position: last, everything: true)
            }
            var changes = StoreChanges(position: last)
            let rows = try Row.fetchCursor(
                db.cachedStatement(sql: "SELECT keys, everything FROM apicore_changes WHERE seq > ? AND seq <= ? AND writer != ? ORDER BY seq"),
                arguments: [position, last, writerID])
            while let row = try rows.next() {
                if (try? row.decode(Bool.self, atIndex: 1)) == true { changes.everything = true }
                guard let data = try? row.decode(Data.self, atIndex: 0), case .array(let keys)? = RecordCoding.value(from: data) else {
                    // A row this code cannot read: nothing it says can be trusted to be all.
                    changes.everything = true
                    continue
                }
                changes.keys += keys.compactMap(\.stringValue)
            }
            return changes
        }
    }
}
