@_spi(Tools) import APICore
import APICoreSupport
import Foundation
import GRDB

// The store's tables: made, or brought from an earlier layout, by a store that writes the file;
// checked by one that only reads it.
extension SQLiteRecordStore {
    /// A file that a read-only store cannot read as it is: of an earlier layout, which a store
    /// that writes brings up to date, or of a later one.
    struct NotCurrent: Error, CustomStringConvertible {
        let version: Int
        var description: String {
            if SQLiteRecordStore.readableVersions.contains(version) {
                return "it holds format version \(version) (this code reads version \(SQLiteRecordStore.formatVersion)), or lacks a table of it: "
                    + "a client that opens the file to write (SQLiteCache.storage(at:)) brings it up to date, and one that reads only leaves it as it is"
            }
            return OtherFormat(version: version).description
        }
    }

    /// Runs `open` (opening the file, setting it up) again while SQLite answers that it is locked,
    /// for up to 5 s: a process that opens the file at the same moment as another, or just after
    /// one was killed (the first to open it then recovers its write-ahead log), can be refused
    /// at once, without SQLite's busy timeout; the store would otherwise stay in memory for the
    /// process's life.
    static func retryingWhileLocked<T>(_ open: () throws -> T) throws -> T {
        let deadline = ContinuousClock.now + .seconds(5)
        var pause = 0.002
        while true {
            do {
                return try open()
            } catch let error as DatabaseError where [.SQLITE_BUSY, .SQLITE_LOCKED].contains(error.resultCode) && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: pause)
                pause = min(pause * 2, 0.1)
            }
        }
    }

    /// The tables a store of ``formatVersion`` reads.
    static let tables: Set<String> = ["apicore_records", "apicore_fields", "apicore_mutation_queue", "apicore_changes", "apicore_queue_claim"]

    /// Checks, without writing, that the file has the current layout.
    static func checkCurrent(_ pool: DatabasePool) throws {
        try pool.read { db in
            let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            let present = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
            guard version == formatVersion, present.isSuperset(of: tables) else { throw NotCurrent(version: version) }
        }
    }

    /// Makes the tables, or brings a file of an earlier layout (``readableVersions``) to the
    /// current one, in place, once; a file of another version is refused.
    static func migrate(_ pool: DatabasePool) throws {
        try pool.writeWithoutTransaction { db in
            let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            guard readableVersions.contains(version) else { throw OtherFormat(version: version) }
            // Takes effect at once in a new file; an older file is rebuilt with it below.
            try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
            try db.inTransaction {
                try db.execute(sql: """
                    CREATE TABLE IF NOT EXISTS apicore_records (
                        key TEXT PRIMARY KEY NOT NULL,
                        fields BLOB NOT NULL,
                        received_at DOUBLE NOT NULL,
                        expires BLOB,
                        used_at DOUBLE NOT NULL DEFAULT 0
                    ) WITHOUT ROWID
                    """)
                let columns = Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('apicore_records')"))
                if !columns.contains("expires") { try db.execute(sql: "ALTER TABLE apicore_records ADD COLUMN expires BLOB") }
                if !columns.contains("used_at") {
                    try db.execute(sql: "ALTER TABLE apicore_records ADD COLUMN used_at DOUBLE NOT NULL DEFAULT 0")
                    try db.execute(sql: "UPDATE apicore_records SET used_at = received_at")
                }
                try db.execute(sql: """
                    CREATE TABLE IF NOT EXISTS apicore_fields (
                        key TEXT NOT NULL,
                        field TEXT NOT NULL,
                        value BLOB NOT NULL,
                        received_at DOUBLE NOT NULL,
                        expires DOUBLE,
                        PRIMARY KEY (key, field)
                    ) WITHOUT ROWID
                    """)
                try db.execute(sql: """
                    CREATE TABLE IF NOT EXISTS apicore_mutation_queue (
                        position INTEGER PRIMARY KEY AUTOINCREMENT,
                        id TEXT NOT NULL UNIQUE,
                        operation_name TEXT NOT NULL,
                        document TEXT NOT NULL,
                        variables BLOB NOT NULL,
                        optimistic BLOB,
                        enqueued_at DOUBLE NOT NULL,
                        failure BLOB
                    )
                    """)
                try createSharedTables(in: db)
                // Roots kept whole (by an earlier version) become rows of fields, once.
                for root in try loadWhole(RootRecordKey.all, in: db).values {
                    try save(FieldChanges(key: root.key, set: root.fields, expires: root.expires, receivedAt: root.receivedAt), in: db)
                    try db.execute(sql: "DELETE FROM apicore_records WHERE key = ?", arguments: [root.key])
                }
                if version != formatVersion { try db.execute(sql: "PRAGMA user_version = \(formatVersion)") }
                return .commit
            }
            if try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") != 2 { try db.execute(sql: "VACUUM") }
        }
    }
}
