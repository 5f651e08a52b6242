@_spi(Tools) import APICore
import APICoreSupport
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
    /// With `maxBytes`, the database never stays larger than that: a write that takes it past the
    /// bound also removes the least recently used records (read or written), never those an active
    /// watcher reads, until it is at `trimmingTo` of the bound, and gives the space back to the file
    /// system. Its write-ahead log then holds at most about a quarter of the bound between
    /// checkpoints.
    ///
    /// If the file cannot be used (it is not a regular file, this user cannot read and write it,
    /// it is not an SQLite database, it holds another format version of this cache (an app of
    /// another version wrote it), or SQLite fails to open it), this logs a warning and answers
    /// storage in memory: the client never crashes on a bad cache file, never deletes or changes
    /// it, and creates no `-wal`/`-shm` files beside it. An existing empty file is made the
    /// database, with a notice saying so.
    public static func storage(
        at url: URL, maxBytes: Int? = nil, trimmingTo fraction: Double = 0.75, logger: Logger = Logger(label: "APICoreKit.SQLiteCache")
    ) -> NormalizedCacheStorage {
        do {
            switch try CacheFile.check(url) {
            case .empty:
                logger.notice("The empty file at \(url.path) becomes the SQLite cache.")
            case .database(let version) where !SQLiteRecordStore.readableVersions.contains(version):
                // Refused before SQLite opens it, which would switch it to WAL mode.
                throw SQLiteRecordStore.OtherFormat(version: version)
            case .missing, .database:
                break
            }
            let bound = try maxBytes.map { bytes throws(CacheFile.Unusable) in
                guard bytes >= 64 * 1024, fraction > 0, fraction < 1 else {
                    throw CacheFile.Unusable(description: "its size bound must be at least 64 KiB and be trimmed to a fraction between 0 and 1")
                }
                return SQLiteRecordStore.SizeBound(maxBytes: bytes, trimTo: Int(Double(bytes) * fraction))
            }
            let store = try SQLiteRecordStore(url: url, bound: bound)
            return NormalizedCacheStorage(persistent: store, queue: store)
        } catch {
            logger.warning(
                "The SQLite cache at \(url.path) cannot be used; the cache stays in memory. The file is left as it is.",
                metadata: ["error": "\(error)"])
            return .inMemory
        }
    }

    /// Storage that reads the SQLite file at `url`, which another client writes (the app, for
    /// one of its extensions or widgets): the client reads and watches its records and hears of
    /// every change the others make, keeps what its own fetches answer in memory only, and never
    /// writes the file, collects it or takes its write lock, so that a process the system
    /// suspends holds nothing the writer waits for. Mutations, the offline queue and writes
    /// through `client.cache` are refused with ``APIError/invalidRequest(_:)``
    /// (``NormalizedCacheStorage/isReadOnly``).
    ///
    /// The file must exist and have this version's layout: a missing file, an empty one, or one
    /// another version of the app wrote (which the app brings up to date when it opens it with
    /// ``storage(at:maxBytes:trimmingTo:logger:)``) gives a read-only cache in memory, said in the
    /// log; nothing is created or changed.
    public static func readOnlyStorage(at url: URL, logger: Logger = Logger(label: "APICoreKit.SQLiteCache")) -> NormalizedCacheStorage {
        let inMemory = NormalizedCacheStorage(persistent: nil, readOnly: true)
        do {
            switch try CacheFile.check(url, writing: false) {
            case .missing, .empty:
                logger.notice("There is no SQLite cache at \(url.path) yet; this read-only cache stays in memory.")
                return inMemory
            case .database(let version) where version != SQLiteRecordStore.formatVersion && !CacheFile.hasWriteAheadLog(url):
                // The header says it all (no write-ahead log holds a later one): refused before SQLite opens it.
                throw SQLiteRecordStore.NotCurrent(version: version)
            case .database:
                // Opened, the file's version is checked again (the header may be behind the write-ahead log).
                return NormalizedCacheStorage(persistent: try SQLiteRecordStore(url: url, readOnly: true), readOnly: true)
            }
        } catch {
            logger.warning(
                "The SQLite cache at \(url.path) cannot be read; this read-only cache stays in memory. The file is left as it is.",
                metadata: ["error": "\(error)"])
            return inMemory
        }
    }
}

/// What is at a cache path before SQLite may open it.
enum CacheFile: Equatable {
    /// Nothing: SQLite creates the database.
    case missing
    /// An empty regular file (that this user can write, when checked for writing).
    case empty
    /// An SQLite database that this user can read (and write, when checked so), with the `user_version` its header
    /// records (a database in WAL mode may have a newer one in its WAL).
    case database(userVersion: Int)

    /// Why a path cannot hold the cache.
    struct Unusable: Error, CustomStringConvertible {
        var description: String
    }

    /// Looks at `url` without changing anything: a device, a folder, a file this user cannot
    /// read (or, `writing`, write), or a file that is not an SQLite database is refused before
    /// SQLite opens it (and creates its journal files beside it).
    static func check(_ url: URL, writing: Bool = true) throws(Unusable) -> CacheFile {
        let manager = FileManager.default
        guard let attributes = try? manager.attributesOfItem(atPath: url.path) else { return .missing }
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw Unusable(description: "it is not a regular file")
        }
        guard manager.isReadableFile(atPath: url.path), !writing || manager.isWritableFile(atPath: url.path) else {
            throw Unusable(description: writing ? "this user cannot read and write it" : "this user cannot read it")
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

    /// Whether the database at `url` has a write-ahead log that is not empty: its pages, a later
    /// `user_version` among them, are not all in the main file yet.
    static func hasWriteAheadLog(_ url: URL) -> Bool {
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? NSNumber)?.intValue
        return (size ?? 0) > 0
    }
}
