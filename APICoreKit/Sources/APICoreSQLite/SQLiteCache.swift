import APICore
import Foundation
import GRDB
import Logging

/// The normalized cache on disk: SQLite through GRDB, in a file the app chooses. The client keeps
/// its memory cache in front of it.
///
/// ```swift
/// let cacheURL = URL.cachesDirectory.appendingPathComponent("pantry-cache.sqlite")
/// let configuration = APIClientConfiguration(
///     restBaseURL: endpoint, cache: CacheConfiguration(storage: SQLiteCache.storage(at: cacheURL)))
/// ```
public enum SQLiteCache {
    /// Storage in the SQLite file at `url`, created when missing (with its folder), in WAL mode.
    ///
    /// If the file cannot be used (it is not a regular file, this user cannot read and write it,
    /// it is not an SQLite database, it holds another format version of this cache (an app of
    /// another version wrote it), or SQLite fails to open it), this logs a warning and answers
    /// storage in memory: the client never crashes on a bad cache file, never deletes or changes
    /// it, and creates no `-wal`/`-shm` files beside it. An existing empty file is made the
    /// database, with a notice saying so.
    public static func storage(at url: URL, logger: Logger = Logger(label: "APICoreKit.SQLiteCache")) -> NormalizedCacheStorage {
        do {
            switch try CacheFile.check(url) {
            case .empty:
                logger.notice("The empty file at \(url.path) becomes the SQLite cache.")
            case .database(let version) where version != 0 && version != SQLiteRecordStore.formatVersion:
                // Refused before SQLite opens it, which would switch it to WAL mode.
                throw SQLiteRecordStore.OtherFormat(version: version)
            case .missing, .database:
                break
            }
            return NormalizedCacheStorage(persistent: try SQLiteRecordStore(url: url))
        } catch {
            logger.warning(
                "The SQLite cache at \(url.path) cannot be used; the cache stays in memory. The file is left as it is.",
                metadata: ["error": "\(error)"])
            return .inMemory
        }
    }
}

/// Records in one table: key, fields as compact JSON, time received. Each save is one transaction.
///
/// The file says which layout it has in `PRAGMA user_version` (``formatVersion``): a file from
/// before versions were recorded (0, with the same table) is marked as this version; a file of
/// another version is refused, so the client keeps its cache in memory and leaves that file alone.
/// Deleted content is overwritten (`secure_delete`) and temporary tables stay in memory, so
/// ``removeAll()`` can leave nothing of the old data in the store's files.
final class SQLiteRecordStore: PersistentRecordStore {
    /// The layout this code reads and writes.
    static let formatVersion = 1

    /// A file of a layout this code does not know.
    struct OtherFormat: Error, CustomStringConvertible {
        let version: Int
        var description: String {
            "it holds format version \(version) (this code reads version \(SQLiteRecordStore.formatVersion)): written by another version of the app"
        }
    }

    private let pool: DatabasePool
    private static let batch = 500

    init(url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.label = "APICoreKit.SQLiteCache"
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA secure_delete = ON")
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
        }
        pool = try DatabasePool(path: url.path, configuration: configuration)
        try pool.write { db in
            let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            guard version == 0 || version == Self.formatVersion else { throw OtherFormat(version: version) }
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS apicore_records (
                    key TEXT PRIMARY KEY NOT NULL,
                    fields BLOB NOT NULL,
                    received_at DOUBLE NOT NULL
                ) WITHOUT ROWID
                """)
            if version == 0 { try db.execute(sql: "PRAGMA user_version = \(Self.formatVersion)") }
        }
    }

    func load(_ keys: [String]) throws -> [String: CacheRecord] {
        guard !keys.isEmpty else { return [:] }
        return try pool.read { db in
            var result: [String: CacheRecord] = [:]
            result.reserveCapacity(keys.count)
            var start = 0
            while start < keys.count {
                let chunk = Array(keys[start..<min(start + Self.batch, keys.count)])
                start += Self.batch
                let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let rows = try Row.fetchCursor(
                    db, sql: "SELECT key, fields, received_at FROM apicore_records WHERE key IN (\(placeholders))",
                    arguments: StatementArguments(chunk))
                while let row = try rows.next() {
                    if let record = Self.record(row) { result[record.key] = record }
                }
            }
            return result
        }
    }

    func loadAll() throws -> [CacheRecord] {
        try pool.read { db in
            var result: [CacheRecord] = []
            let rows = try Row.fetchCursor(db, sql: "SELECT key, fields, received_at FROM apicore_records")
            while let row = try rows.next() {
                if let record = Self.record(row) { result.append(record) }
            }
            return result
        }
    }

    /// A row as a record. A row of other types (NULL, a number for a key: a file another program
    /// wrote) or whose fields are not a JSON object is `nil`: it reads as missing, never as a
    /// crash. (GRDB's subscripts trap on such values.)
    private static func record(_ row: Row) -> CacheRecord? {
        guard let key = try? row.decode(String.self, atIndex: 0), let data = try? row.decode(Data.self, atIndex: 1),
            let received = try? row.decode(Double.self, atIndex: 2),
            case .object(let fields)? = try? JSONParser.parse(data)
        else { return nil }
        return CacheRecord(key: key, fields: fields, receivedAt: Date(timeIntervalSince1970: received))
    }

    func save(_ records: [CacheRecord], removing keys: [String]) throws {
        try pool.write { db in
            let insert = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO apicore_records (key, fields, received_at) VALUES (?, ?, ?)")
            for record in records {
                try insert.execute(arguments: [record.key, JSONSerializer.data(.object(record.fields)), record.receivedAt.timeIntervalSince1970])
            }
            if !keys.isEmpty {
                let delete = try db.cachedStatement(sql: "DELETE FROM apicore_records WHERE key = ?")
                for key in keys { try delete.execute(arguments: [key]) }
            }
        }
    }

    /// Deletes every record so that no trace of them stays in the store's files: the deleted
    /// content is overwritten, `VACUUM` rebuilds the database without free pages, and a truncating
    /// checkpoint writes it back to the main file, which shrinks, and empties the WAL.
    func removeAll() throws {
        try pool.write { db in try db.execute(sql: "DELETE FROM apicore_records") }
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "VACUUM")
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }
}

/// What is at a cache path before SQLite may open it.
enum CacheFile: Equatable {
    /// Nothing: SQLite creates the database.
    case missing
    /// An empty regular file that this user can write.
    case empty
    /// An SQLite database that this user can read and write, with the `user_version` its header
    /// records (a database in WAL mode may have a newer one in its WAL).
    case database(userVersion: Int)

    /// Why a path cannot hold the cache.
    struct Unusable: Error, CustomStringConvertible {
        var description: String
    }

    /// Looks at `url` without changing anything: a device, a folder, a file this user cannot
    /// write, or a file that is not an SQLite database is refused before SQLite opens it (and
    /// creates its journal files beside it).
    static func check(_ url: URL) throws(Unusable) -> CacheFile {
        let manager = FileManager.default
        guard let attributes = try? manager.attributesOfItem(atPath: url.path) else { return .missing }
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw Unusable(description: "it is not a regular file")
        }
        guard manager.isReadableFile(atPath: url.path), manager.isWritableFile(atPath: url.path) else {
            throw Unusable(description: "this user cannot read and write it")
        }
        if (attributes[.size] as? NSNumber)?.intValue == 0 { return .empty }
        guard let handle = FileHandle(forReadingAtPath: url.path) else { throw Unusable(description: "it cannot be opened") }
        defer { try? handle.close() }
        let header = [UInt8]((try? handle.read(upToCount: 100)) ?? Data())
        guard header.count == 100, header.prefix(16).elementsEqual("SQLite format 3\u{0}".utf8) else {
            throw Unusable(description: "it is not an SQLite database")
        }
        return .database(userVersion: header[60..<64].reduce(0) { $0 << 8 | Int($1) })
    }
}
