@_spi(Tools) import APICore
import APICoreSupport
import Foundation
import GRDB

/// Records in one table: key, fields (RecordCoding.swift's binary form; JSON in rows written before
/// format version 4), time received, the expiry of the fields a server gave a maximum age (JSON,
/// milliseconds since 1970), and time last used. Root records, which gain a field with every new
/// query, are kept one row per field in a second table, so that a write costs what it changes; a
/// file that kept them whole has them split when it is opened. Each save is one transaction, and
/// a row of the change log (SQLiteSharedFile.swift); the last table keeps the offline queue, in order.
///
/// The file says which layout it has in `PRAGMA user_version` (``formatVersion``): a file of an
/// earlier layout (0, before versions were recorded, 1, without expiry and use, 2, without the
/// offline queue, 3, with JSON fields, which stay readable) is migrated in place, once; a file of
/// another version is refused, so the client keeps its cache in memory and leaves that file alone.
/// Deleted content is overwritten (`secure_delete`), temporary tables stay in memory, and free
/// pages go back to the file system (incremental auto-vacuum), so ``removeAll()`` can leave
/// nothing of the old data in the store's files and trimming shrinks them.
final class SQLiteRecordStore: PersistentRecordStore, PersistentMutationQueue {
    /// The layout this code reads and writes.
    static let formatVersion = 4
    /// The layouts this code opens: its own and those it migrates.
    static let readableVersions: Set<Int> = [0, 1, 2, 3, 4]

    /// How large the database may grow, and what trimming brings it down to.
    struct SizeBound {
        var maxBytes: Int
        var trimTo: Int
    }

    /// A file of a layout this code does not know.
    struct OtherFormat: Error, CustomStringConvertible {
        let version: Int
        var description: String {
            "it holds format version \(version) (this code reads version \(SQLiteRecordStore.formatVersion)): written by another version of the app"
        }
    }

    /// The connections; the offline queue (SQLiteMutationQueue.swift) uses them too.
    let pool: DatabasePool
    /// Its name in the change log, its commit signal, the log's rows it wrote (SQLiteSharedFile.swift).
    let writerID = UUID().uuidString
    let commitSignal: DatabaseQueue?
    let ownRows = Locked<Set<Int64>>([])
    private let url: URL
    private let bound: SizeBound?
    private static let batch = 500

    var tracksUse: Bool { bound != nil }
    var location: String? { url.standardizedFileURL.path }

    /// Opens the store at `url`, migrating an earlier layout; `readOnly`, opens a file of the
    /// current layout (SQLiteSchema.swift) for reading only: it is neither created nor migrated,
    /// and no connection of the store can write it or take its write lock.
    init(url: URL, bound: SizeBound? = nil, readOnly: Bool = false) throws {
        if !readOnly {
            // Owner-only: the folders it creates, the file and (as SQLite makes them like the file) its -wal and -shm.
            try PrivateFiles.createFolder(url.deletingLastPathComponent())
            try PrivateFiles.prepareDatabase(at: url)
        }
        self.url = url
        self.bound = bound
        var configuration = Configuration()
        configuration.label = "APICoreKit.SQLiteCache"
        // Another connection to the file (another client on it, another process, a pool not yet
        // closed) may hold its write lock for a moment: wait for it rather than fail the write and
        // set the store aside.
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA secure_delete = ON")
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            // 512 KiB of page cache per connection, not SQLite's 2 MB: the pool has up to six, the
            // system's file cache holds the rest, and reads measure the same (bench.sh cache-scale)
            // while an app keeps ~5 MB less resident (bench.sh soak).
            try db.execute(sql: "PRAGMA cache_size = -512")
            db.add(function: RecordCoding.typenameFunction)
            if let bound {
                // A log of about a quarter of the bound between checkpoints, cut back to that after.
                let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
                try db.execute(sql: "PRAGMA wal_autocheckpoint = \(max(16, bound.maxBytes / 4 / pageSize))")
                try db.execute(sql: "PRAGMA journal_size_limit = \(bound.maxBytes / 4)")
            }
        }
        configuration.readonly = readOnly
        let pool = try Self.retryingWhileLocked { try DatabasePool(path: url.path, configuration: configuration) }
        try Self.retryingWhileLocked { readOnly ? try Self.checkCurrent(pool) : try Self.migrate(pool) }
        self.pool = pool
        commitSignal = Self.openCommitSignal(at: url)
    }

    func load(_ keys: [String]) throws -> [String: CacheRecord] {
        guard !keys.isEmpty else { return [:] }
        return try pool.read { db in
            var result = try Self.loadWhole(keys, in: db)
            // Only roots are kept field by field.
            let rest = keys.filter { result[$0] == nil && RootRecordKey.all.contains($0) }
            for (key, record) in try Self.loadFields(of: rest, in: db) { result[key] = record }
            return result
        }
    }

    func loadFields(_ names: [String], of key: String) throws -> CacheRecord? {
        try pool.read { db in try Self.loadFields(of: [key], named: names, in: db)[key] }
    }

    /// Runs `body` on `keys` in chunks of up to 500, with `?` placeholders for each chunk. A chunk
    /// is padded (its last key repeated, which `IN` ignores) to one of a few sizes, so that the
    /// statements they make are few and each is prepared once per connection (`cachedStatement`).
    private static func inChunks(_ keys: [String], _ body: (_ chunk: [String], _ placeholders: String) throws -> Void) rethrows {
        var start = 0
        while start < keys.count {
            var chunk = Array(keys[start..<min(start + batch, keys.count)])
            start += batch
            // A chunk is never longer than `batch`, the last size.
            let padding = paddings.first { $0.size >= chunk.count } ?? paddings[paddings.count - 1]
            if let last = chunk.last { chunk += repeatElement(last, count: padding.size - chunk.count) }
            try body(chunk, padding.placeholders)
        }
    }

    /// The sizes a chunk of keys is padded to, smallest first, with their placeholders.
    private static let paddings = [1, 4, 16, 64, 256, batch].map { (size: $0, placeholders: Array(repeating: "?", count: $0).joined(separator: ",")) }

    /// The records of `keys` kept whole.
    static func loadWhole(_ keys: [String], in db: Database) throws -> [String: CacheRecord] {
        var result: [String: CacheRecord] = [:]
        result.reserveCapacity(keys.count)
        try inChunks(keys) { chunk, placeholders in
            let rows = try Row.fetchCursor(
                db.cachedStatement(sql: "SELECT key, fields, received_at, expires FROM apicore_records WHERE key IN (\(placeholders))"),
                arguments: StatementArguments(chunk))
            while let row = try rows.next() {
                if let record = Self.record(row) { result[record.key] = record }
            }
        }
        return result
    }

    /// The records of `keys` kept field by field, assembled: the latest receipt of a field is the
    /// record's, each field keeps its expiry. A field whose row cannot be read is left out.
    /// With `named`, only those fields of the one key given.
    private static func loadFields(of keys: [String], named names: [String]? = nil, in db: Database) throws -> [String: CacheRecord] {
        var result: [String: CacheRecord] = [:]
        // Chunks of keys, or of one key's field names.
        try inChunks(names ?? keys) { chunk, placeholders in
            let rows: RowCursor
            if names != nil, let key = keys.first {
                rows = try Row.fetchCursor(
                    db.cachedStatement(sql: "SELECT key, field, value, received_at, expires FROM apicore_fields WHERE key = ? AND field IN (\(placeholders))"),
                    arguments: StatementArguments([key] + chunk))
            } else {
                rows = try Row.fetchCursor(
                    db.cachedStatement(sql: "SELECT key, field, value, received_at, expires FROM apicore_fields WHERE key IN (\(placeholders))"),
                    arguments: StatementArguments(chunk))
            }
            while let row = try rows.next() {
                guard let key = try? row.decode(String.self, atIndex: 0), let field = try? row.decode(String.self, atIndex: 1),
                    let data = try? row.decode(Data.self, atIndex: 2), let value = RecordCoding.value(from: data),
                    let received = try? row.decode(Double.self, atIndex: 3)
                else { continue }
                let receivedAt = Date(timeIntervalSince1970: received)
                var record = result[key] ?? CacheRecord(key: key, fields: [:], receivedAt: receivedAt)
                record.fields[field] = value
                record.receivedAt = max(record.receivedAt, receivedAt)
                if let expires = (try? row.decode(Double?.self, atIndex: 4)) ?? nil { record.expires[field] = Date(timeIntervalSince1970: expires) }
                result[key] = record
            }
        }
        return result
    }

    func loadAll() throws -> [CacheRecord] {
        try pool.read { db in
            var result: [CacheRecord] = []
            let rows = try Row.fetchCursor(db, sql: "SELECT key, fields, received_at, expires FROM apicore_records")
            while let row = try rows.next() {
                if let record = Self.record(row) { result.append(record) }
            }
            let fieldKeys = try String.fetchAll(db, sql: "SELECT DISTINCT key FROM apicore_fields")
            result += try Self.loadFields(of: fieldKeys, in: db).values
            return result
        }
    }

    func typeCounts() throws -> (byType: [String: Int], oldest: Date?) {
        try pool.read { db in
            var byType: [String: Int] = [:]
            var oldest: Double?
            // Rows another program wrote (a key that is not text, fields that are not a record) are
            // not records, as `load` reads them.
            let rows = try Row.fetchCursor(db, sql: """
                SELECT type, count(*), min(received_at) FROM (
                    SELECT apicore_typename(fields) AS type, received_at FROM apicore_records WHERE typeof(key) = 'text'
                ) WHERE type IS NOT NULL GROUP BY 1
                """)
            while let row = try rows.next() {
                let typename = (try? row.decode(String.self, atIndex: 0)) ?? ""
                byType[typename.isEmpty ? "(untyped)" : typename, default: 0] += (try? row.decode(Int.self, atIndex: 1)) ?? 0
                if let received = try? row.decode(Double.self, atIndex: 2) { oldest = min(oldest ?? received, received) }
            }
            // A root's receipt is its latest field's.
            for row in try Row.fetchAll(db, sql: "SELECT key, max(received_at) FROM apicore_fields GROUP BY key") {
                guard let key = try? row.decode(String.self, atIndex: 0) else { continue }
                byType[key, default: 0] += 1
                if let received = try? row.decode(Double.self, atIndex: 1) { oldest = min(oldest ?? received, received) }
            }
            return (byType, oldest.map { Date(timeIntervalSince1970: $0) })
        }
    }

    func records(after key: String?, limit: Int) throws -> [CacheRecord] {
        try pool.read { db in
            let rows = try Row.fetchCursor(
                db, sql: "SELECT key, fields, received_at, expires FROM apicore_records WHERE key > ? ORDER BY key LIMIT ?",
                arguments: [key ?? "", limit])
            var result: [CacheRecord] = []
            while let row = try rows.next() {
                if let record = Self.record(row) { result.append(record) }
            }
            return result
        }
    }

    func keys(after key: String?, receivedBy date: Date, limit: Int) throws -> [String] {
        try pool.read { db in
            try String.fetchAll(
                db, sql: "SELECT key FROM apicore_records WHERE key > ? AND received_at <= ? ORDER BY key LIMIT ?",
                arguments: [key ?? "", date.timeIntervalSince1970, limit])
        }
    }

    func rootKeys() throws -> [String] {
        try pool.read { db in try String.fetchAll(db, sql: "SELECT DISTINCT key FROM apicore_fields") }
    }

    func fieldNames(of key: String) throws -> [String] {
        try pool.read { db in try String.fetchAll(db, sql: "SELECT field FROM apicore_fields WHERE key = ?", arguments: [key]) }
    }

    func fieldsExpired(of key: String, before date: Date) throws -> [String] {
        try pool.read { db in
            try String.fetchAll(
                db, sql: "SELECT field FROM apicore_fields WHERE key = ? AND expires < ?", arguments: [key, date.timeIntervalSince1970])
        }
    }

    func existing(_ keys: [String]) throws -> Set<String> {
        guard !keys.isEmpty else { return [] }
        return try pool.read { db in
            var found: Set<String> = []
            try Self.inChunks(keys) { chunk, placeholders in
                let statement = try db.cachedStatement(sql: "SELECT key FROM apicore_records WHERE key IN (\(placeholders))")
                for key in try String.fetchAll(statement, arguments: StatementArguments(chunk)) {
                    found.insert(key)
                }
            }
            // Only roots are kept field by field.
            for root in keys where RootRecordKey.all.contains(root) && !found.contains(root) {
                if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM apicore_fields WHERE key = ?)", arguments: [root]) == true { found.insert(root) }
            }
            return found
        }
    }

    /// A row as a record. A row of other types (NULL, a number for a key: a file another program
    /// wrote) or whose fields are not a record (RecordCoding) is `nil`: it reads as missing, never as a
    /// crash. (GRDB's subscripts trap on such values.) Expiry that cannot be read is none; a
    /// NULL one is decoded as an optional, since a failed decode costs GRDB an error message.
    private static func record(_ row: Row) -> CacheRecord? {
        // The fields are read where SQLite holds them.
        guard let key = try? row.decode(String.self, atIndex: 0), let received = try? row.decode(Double.self, atIndex: 2),
            let fields = (try? row.withUnsafeData(atIndex: 1, { data in data.flatMap(RecordCoding.fields(from:)) })) ?? nil
        else { return nil }
        let expires = ((try? row.decode(Data?.self, atIndex: 3)) ?? nil).map(RecordCoding.expiry(from:)) ?? [:]
        return CacheRecord(key: key, fields: fields, receivedAt: Date(timeIntervalSince1970: received), expires: expires)
    }

    func save(
        _ records: [CacheRecord], fields: [FieldChanges], removing keys: [String], unlessWrittenSince since: Date?, used: [String], keeping: KeptRecords
    ) throws -> Int {
        let trimmed = try write(records, fields: fields, removing: keys, unlessWrittenSince: since, used: used, keeping: keeping)
        if trimmed > 0 {
            // A trim rewrites many pages (secure delete, incremental vacuum), so its write-ahead log
            // can outgrow the quarter of the bound it is held to: checkpoint it and cut it to nothing
            // now, as the bound promises (the next write starts a new one).
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        }
        return trimmed
    }

    private func write(
        _ records: [CacheRecord], fields: [FieldChanges], removing keys: [String], unlessWrittenSince since: Date?, used: [String], keeping: KeptRecords
    ) throws -> Int {
        try pool.write { db in
            let now = Date().timeIntervalSince1970
            // Not over a copy another client received later (SQLiteSharedFile.swift).
            let insert = try db.cachedStatement(sql: Self.upsertRecord)
            for record in records {
                try insert.execute(arguments: [
                    record.key, RecordCoding.encode(record: record.fields), record.receivedAt.timeIntervalSince1970,
                    RecordCoding.encode(expiry: record.expires), now,
                ])
            }
            for changes in fields { try Self.save(changes, in: db) }
            try logChanges(records: records, fields: fields, removing: keys, in: db)
            if !keys.isEmpty {
                // A record, or a root's field, carries the time it was received, whichever client wrote it.
                let cutoff = since?.timeIntervalSince1970 ?? .infinity
                let delete = try db.cachedStatement(sql: "DELETE FROM apicore_records WHERE key = ? AND received_at <= ?")
                let deleteFields = try db.cachedStatement(sql: "DELETE FROM apicore_fields WHERE key = ? AND received_at <= ?")
                for key in keys {
                    try delete.execute(arguments: [key, cutoff])
                    try deleteFields.execute(arguments: [key, cutoff])
                }
            }
            if !used.isEmpty {
                let touch = try db.cachedStatement(sql: "UPDATE apicore_records SET used_at = ? WHERE key = ?")
                for key in used { try touch.execute(arguments: [now, key]) }
            }
            return try trimIfOverBound(db, keeping: keeping)
        }
    }

    /// Writes and removes fields of a root record, kept field by field.
    static func save(_ changes: FieldChanges, in db: Database) throws {
        let upsert = try db.cachedStatement(sql: upsertField)
        for (field, value) in changes.set {
            try upsert.execute(arguments: [
                changes.key, field, RecordCoding.encode(value: value), changes.receivedAt.timeIntervalSince1970,
                changes.expires[field]?.timeIntervalSince1970,
            ])
        }
        if !changes.removed.isEmpty {
            let delete = try db.cachedStatement(sql: deleteField)
            for field in changes.removed { try delete.execute(arguments: [changes.key, field, changes.receivedAt.timeIntervalSince1970]) }
        }
    }

    /// Past the size bound, removes the least recently used records that `keeping` does not keep,
    /// a share at a time, and gives the freed pages back, until the database is at the bound's
    /// trimmed size (or nothing more may go). Answers how many records it removed.
    private func trimIfOverBound(_ db: Database, keeping: KeptRecords) throws -> Int {
        guard let bound, try Self.size(of: db) > bound.maxBytes else { return 0 }
        var removed = 0
        let delete = try db.cachedStatement(sql: "DELETE FROM apicore_records WHERE key = ?")
        // Each round removes the share of records the excess suggests; pages that stay partly
        // used make a round free less than that, so a few rounds may be needed.
        for _ in 0..<8 {
            let size = try Self.size(of: db)
            guard size > bound.trimTo, let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM apicore_records"), count > 0 else { break }
            let share = max(1, Int((Double(count) * Double(size - bound.trimTo) / Double(size)).rounded(.up)))
            let victims = try Self.leastRecentlyUsed(share, in: db, keeping: keeping)
            guard !victims.isEmpty else { break }
            for key in victims { try delete.execute(arguments: [key]) }
            removed += victims.count
            try db.execute(sql: "PRAGMA incremental_vacuum")
        }
        return removed
    }

    /// The keys of the `count` least recently used records that `keeping` does not keep (the
    /// cursor closed before they are deleted).
    private static func leastRecentlyUsed(_ count: Int, in db: Database, keeping: KeptRecords) throws -> [String] {
        var victims: [String] = []
        let keys = try String.fetchCursor(db, sql: "SELECT key FROM apicore_records ORDER BY used_at, received_at")
        while victims.count < count, let key = try keys.next() {
            if !keeping.contains(key) { victims.append(key) }
        }
        return victims
    }

    /// The database's size in bytes: its pages, free ones included.
    private static func size(of db: Database) throws -> Int {
        let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
        return pages * pageSize
    }

    func bytesOnDisk() -> Int {
        ["", "-wal", "-shm"].reduce(0) { total, suffix in
            let path = url.path + suffix
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
            return total + size
        }
    }

    /// Deletes every record so that no trace of them stays in the store's files: the deleted
    /// content is overwritten, `VACUUM` rebuilds the database without free pages, and a truncating
    /// checkpoint writes it back to the main file, which shrinks, and empties the WAL.
    func removeAll() throws {
        try pool.write { db in
            try db.execute(sql: "DELETE FROM apicore_records")
            try db.execute(sql: "DELETE FROM apicore_fields")
            // The log names old records too: it keeps only the clear.
            try db.execute(sql: "DELETE FROM apicore_changes")
            try logChanges(records: [], fields: [], removing: [], everything: true, in: db)
        }
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "VACUUM")
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }
}
