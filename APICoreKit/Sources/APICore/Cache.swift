import Foundation

/// Where a query's data may come from, with Apollo's meanings.
public enum CachePolicy: Sendable, Hashable {
    /// The cache when it has every field (and none is expired), else the server. The default.
    case cacheElseNetwork
    /// Always the server; the answer is still written to the cache.
    case networkOnly
    /// Always the server; the cache is neither read nor written.
    case noCache
    /// Only the cache; a miss is an error, and expired data is returned flagged as stale.
    case cacheOnly
    /// The cache first when it has the data, then the server: up to two results.
    case cacheAndNetwork

    /// `cacheElseNetwork`.
    public static let `default` = CachePolicy.cacheElseNetwork
}

/// Where the normalized cache keeps its records: in memory only, or in memory in front of a
/// persistent store (see `APICoreSQLite`).
public struct NormalizedCacheStorage: Sendable {
    package let persistent: (any PersistentRecordStore)?

    package init(persistent: (any PersistentRecordStore)?) {
        self.persistent = persistent
    }

    /// Records in memory, for the life of the client.
    public static let inMemory = NormalizedCacheStorage(persistent: nil)
}

/// How the normalized cache identifies objects and how long it trusts them.
public struct CacheConfiguration: Sendable {
    /// Computes the cache key of an object of one type from its JSON, or `nil` for none.
    public typealias KeyFunction = @Sendable (_ object: JSONObject) -> String?

    /// Where records live.
    public var storage: NormalizedCacheStorage
    /// Cache keys by type name, for types whose key is not their `@typePolicy(keyFields:)` or `id`.
    public var keys: [String: KeyFunction]
    /// The longest a record of a type is trusted after it was received; older records are misses
    /// for `cacheElseNetwork` and stale for `cacheOnly`. A request can set its own.
    public var maxAge: [String: Duration]
    /// Whether the data of a response that also has errors is written: every field with a value,
    /// never a field an error's path names nor a `null` on the way to one (on by default).
    public var writesPartialData: Bool
    /// When the cache collects its garbage by itself; `nil` (the default) only when asked
    /// (``APIClient/collectGarbage(maxStaleness:)``).
    public var garbageCollection: GarbageCollection?

    /// When the cache collects its garbage by itself, as ``APIClient/collectGarbage(maxStaleness:)``
    /// does on demand.
    public struct GarbageCollection: Sendable, Hashable {
        /// Collect when the cache is first used after it was opened (what earlier launches left
        /// in a persistent store).
        public var onOpen: Bool
        /// Collect each time this many records have been written since the last collection;
        /// `nil` never.
        public var afterWrites: Int?
        /// How long past its type's maximum age a record may stay.
        public var maxStaleness: Duration

        /// A policy; by default on open and after every 10,000 records written, no staleness.
        public init(onOpen: Bool = true, afterWrites: Int? = 10_000, maxStaleness: Duration = .zero) {
            self.onOpen = onOpen
            self.afterWrites = afterWrites
            self.maxStaleness = maxStaleness
        }
    }

    /// A configuration.
    public init(
        storage: NormalizedCacheStorage = .inMemory, keys: [String: KeyFunction] = [:], maxAge: [String: Duration] = [:],
        writesPartialData: Bool = true, garbageCollection: GarbageCollection? = nil
    ) {
        self.storage = storage
        self.keys = keys
        self.maxAge = maxAge
        self.writesPartialData = writesPartialData
        self.garbageCollection = garbageCollection
    }
}

/// One normalized record: an object's fields by storage key (`name` or `name(arg:value)`),
/// references to other records as `{"__ref": key}`, and when it was last received.
package struct CacheRecord: Sendable, Equatable {
    package var key: String
    package var fields: JSONObject
    package var receivedAt: Date

    package init(key: String, fields: JSONObject, receivedAt: Date) {
        self.key = key
        self.fields = fields
        self.receivedAt = receivedAt
    }
}

/// What a garbage collection removed from the normalized cache (``APIClient/collectGarbage(maxStaleness:)``).
public struct CacheCollection: Sendable, Hashable, CustomStringConvertible {
    /// Records older than their type's maximum age by more than the staleness allowed.
    public var expiredRecords = 0
    /// Fields removed because they referred to records that no longer exist.
    public var danglingReferences = 0
    /// Records that no operation's root record, and no active watcher, reaches any more.
    public var unreachableRecords = 0

    /// Nothing removed.
    public init() {}

    /// Every record removed.
    public var removedRecords: Int { expiredRecords + unreachableRecords }

    /// `N expired, N unreachable records; N dangling references`.
    public var description: String {
        "\(expiredRecords) expired and \(unreachableRecords) unreachable records, \(danglingReferences) dangling references removed"
    }
}

/// A store that keeps records across launches. The engine keeps every record it uses in memory
/// in front of it, merges there, and hands the store whole records to save.
package protocol PersistentRecordStore: Sendable {
    /// The records with these keys that exist.
    func load(_ keys: [String]) throws -> [String: CacheRecord]
    /// Saves these records (replacing same keys) and removes those keys, in one transaction.
    func save(_ records: [CacheRecord], removing: [String]) throws
    /// Removes every record.
    func removeAll() throws
    /// Every record (for garbage collection).
    func loadAll() throws -> [CacheRecord]
}
