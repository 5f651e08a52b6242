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
    /// If the file cannot be opened or is not a database, this logs a warning and answers storage
    /// in memory: the client never crashes on a bad cache file, and never deletes it.
    public static func storage(at url: URL, logger: Logger = Logger(label: "APICoreKit.SQLiteCache")) -> NormalizedCacheStorage {
        do {
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
final class SQLiteRecordStore: PersistentRecordStore {
    private let pool: DatabasePool
    private static let batch = 500

    init(url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.label = "APICoreKit.SQLiteCache"
        pool = try DatabasePool(path: url.path, configuration: configuration)
        try pool.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS apicore_records (
                    key TEXT PRIMARY KEY NOT NULL,
                    fields BLOB NOT NULL,
                    received_at DOUBLE NOT NULL
                ) WITHOUT ROWID
                """)
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
                    let key: String = row[0]
                    let data: Data = row[1]
                    // A row that is not a JSON object is skipped: it reads as missing, never as a crash.
                    guard case .object(let fields)? = try? JSONParser.parse(data) else { continue }
                    result[key] = CacheRecord(key: key, fields: fields, receivedAt: Date(timeIntervalSince1970: row[2]))
                }
            }
            return result
        }
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

    func removeAll() throws {
        try pool.write { db in try db.execute(sql: "DELETE FROM apicore_records") }
    }
}
