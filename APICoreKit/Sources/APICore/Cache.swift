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
    /// Where the offline queue keeps its mutations; `nil`: in memory, for the life of the client.
    package let queue: (any PersistentMutationQueue)?

    package init(persistent: (any PersistentRecordStore)?, queue: (any PersistentMutationQueue)? = nil) {
        self.persistent = persistent
        self.queue = queue
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
    /// for `cacheElseNetwork` and stale for `cacheOnly`. A request can set its own, and a server
    /// can say less (`Cache-Control: max-age`, Apollo cache hints): the shortest of them wins.
    public var maxAge: [String: Duration]
    /// The most the memory layer holds; past it, the least recently used records that no active
    /// watcher reads are evicted (a persistent store still has them). `nil`: no bound.
    public var memoryLimit: MemoryLimit?
    /// Whether the data of a response that also has errors is written: every field with a value,
    /// never a field an error's path names nor a `null` on the way to one (on by default).
    public var writesPartialData: Bool
    /// When the cache collects its garbage by itself; `nil` (the default) only when asked
    /// (``GraphQLCache/collectGarbage(maxStaleness:)``).
    public var garbageCollection: GarbageCollection?
    /// Whether a watched query that a cache change leaves incomplete (a record removed, evicted or
    /// collected) is fetched again from the server, once per loss, instead of yielding a cache miss
    /// (on by default, as Apollo's `refetchOnFailedUpdates`). A refetch that fails yields its
    /// error; one whose answer still leaves the query incomplete yields the miss.
    public var refetchesIncompleteWatches: Bool

    /// When the cache collects its garbage by itself, as ``GraphQLCache/collectGarbage(maxStaleness:)``
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

    /// A bound on the memory layer of the cache, in records or in estimated bytes (keys, field
    /// names and values, with a fixed overhead per record and per value; within a factor of two
    /// of what the records really take).
    public enum MemoryLimit: Sendable, Hashable {
        /// At most this many records.
        case records(Int)
        /// At most about this many bytes.
        case bytes(Int)
    }

    /// A configuration.
    public init(
        storage: NormalizedCacheStorage = .inMemory, keys: [String: KeyFunction] = [:], maxAge: [String: Duration] = [:],
        writesPartialData: Bool = true, garbageCollection: GarbageCollection? = nil, memoryLimit: MemoryLimit? = nil,
        refetchesIncompleteWatches: Bool = true
    ) {
        self.refetchesIncompleteWatches = refetchesIncompleteWatches
        self.storage = storage
        self.keys = keys
        self.maxAge = maxAge
        self.writesPartialData = writesPartialData
        self.garbageCollection = garbageCollection
        self.memoryLimit = memoryLimit
    }
}

/// One normalized record: an object's fields by storage key (`name` or `name(arg:value)`),
/// references to other records as `{"__ref": key}`, when it was last received, and when the
/// fields a server gave a maximum age expire.
package struct CacheRecord: Sendable, Equatable {
    package var key: String
    package var fields: JSONObject
    package var receivedAt: Date
    /// Expiry by storage key, for the fields whose server said how long they may be cached.
    package var expires: [String: Date]

    package init(key: String, fields: JSONObject, receivedAt: Date, expires: [String: Date] = [:]) {
        self.key = key
        self.fields = fields
        self.receivedAt = receivedAt
        self.expires = expires
    }
}

extension Duration {
    /// The duration in seconds.
    package var seconds: TimeInterval { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// The keys of the operation types' root records, which gain a field with every new query: the
/// engine names records with them and a persistent store keeps these records field by field.
package enum RootRecordKey {
    package static let query = "QUERY_ROOT"
    package static let mutation = "MUTATION_ROOT"
    package static let subscription = "SUBSCRIPTION_ROOT"
    package static let all = [query, mutation, subscription]
}

extension CacheRecord {
    /// Fills in, from `stored`, the fields this record (what memory has, never older) lacks,
    /// with their expiry; the later of the two receipts is kept.
    package mutating func fill(from stored: CacheRecord) {
        fields.merge(stored.fields) { memory, _ in memory }
        expires.merge(stored.expires) { memory, _ in memory }
        receivedAt = max(receivedAt, stored.receivedAt)
    }
}

/// What a garbage collection removed from the normalized cache (``GraphQLCache/collectGarbage(maxStaleness:)``).
public struct CacheCollection: Sendable, Hashable, CustomStringConvertible {
    /// Records older than their type's maximum age by more than the staleness allowed.
    public var expiredRecords = 0
    /// Fields of records that stay, past the maximum age their server gave them by more than the
    /// staleness allowed.
    public var expiredFields = 0
    /// Fields removed because they referred to records that no longer exist.
    public var danglingReferences = 0
    /// Records that no operation's root record, and no active watcher, reaches any more.
    public var unreachableRecords = 0

    /// Nothing removed.
    public init() {}

    /// Every record removed.
    public var removedRecords: Int { expiredRecords + unreachableRecords }

    /// `N expired and N unreachable records, N expired fields, N dangling references removed`.
    public var description: String {
        "\(expiredRecords) expired and \(unreachableRecords) unreachable records, \(expiredFields) expired fields, "
            + "\(danglingReferences) dangling references removed"
    }
}

/// One record as the normalized cache holds it (``GraphQLCache/inspect(_:)``): for looking into the
/// cache while debugging, never for an app's logic (read data through operations and fragments).
public struct CacheRecordDetails: Sendable, Hashable {
    /// The record's key (`Household:hh-1`, `QUERY_ROOT`).
    public var key: String
    /// Its `__typename`, when it has one.
    public var typename: String?
    /// Its fields by storage key (`members({"first":10})`); references are `{"__ref": key}`.
    public var fields: JSONObject
    /// When its latest field was received.
    public var receivedAt: Date
    /// When each field with a server-given lifetime stops being fresh, by storage key.
    public var expires: [String: Date]
    /// What each of this client's watchers that read the record (a root record's: any of its
    /// fields) watches, sorted: `query HeroName`, `fragment CharacterNameFragment at Human:1000`.
    public var watchers: [String]

    /// Details of one record.
    public init(key: String, typename: String?, fields: JSONObject, receivedAt: Date, expires: [String: Date], watchers: [String]) {
        self.key = key
        self.typename = typename
        self.fields = fields
        self.receivedAt = receivedAt
        self.expires = expires
        self.watchers = watchers
    }
}

/// What the normalized cache holds (``GraphQLCache/summary()``).
public struct CacheSummary: Sendable, Hashable {
    /// How many records there are, in memory and in the persistent store together.
    public var records: Int
    /// How many records there are of each type (`__typename`); root records under their key
    /// (`QUERY_ROOT`…), other records without a `__typename` under `(untyped)`.
    public var recordsByType: [String: Int]
    /// When the record received longest ago was received; `nil` for an empty cache.
    public var oldest: Date?
    /// The size of the persistent store's files in bytes; `nil` without one.
    public var bytesOnDisk: Int?
    /// The estimated size of the records in memory, in bytes.
    public var bytesInMemory: Int
    /// How many records are in memory now (at most the ``CacheConfiguration/memoryLimit``, when
    /// it is a number of records, once a write has trimmed).
    public var recordsInMemory: Int
    /// How many watchers read the cache now: `watch`es, watched fragments, pagers' pages and
    /// observable models that have not stopped. Back to zero when they all have, so a count that
    /// only grows is a watch nobody ends.
    public var watchers: Int

    /// A summary.
    public init(
        records: Int, recordsByType: [String: Int], oldest: Date?, bytesOnDisk: Int?, bytesInMemory: Int, recordsInMemory: Int = 0,
        watchers: Int = 0
    ) {
        self.records = records
        self.recordsByType = recordsByType
        self.oldest = oldest
        self.bytesOnDisk = bytesOnDisk
        self.bytesInMemory = bytesInMemory
        self.recordsInMemory = recordsInMemory
        self.watchers = watchers
    }
}

/// A store that keeps records across launches. The engine keeps the records it uses in memory
/// in front of it, merges there, and hands the store whole records to save, and for root records
/// (``RootRecordKey``) the fields that changed.
package protocol PersistentRecordStore: Sendable {
    /// Whether the store has a size bound and so wants to know which records are used
    /// (``save(_:fields:removing:unlessWrittenSince:used:keeping:)``'s `used`).
    var tracksUse: Bool { get }
    /// The records with these keys that exist.
    func load(_ keys: [String]) throws -> [String: CacheRecord]
    /// Saves these records (replacing same keys) and these changes to records kept field by
    /// field, removes those keys and marks the `used` ones as just used, in one transaction; a
    /// store over its size bound then removes the least recently used records that `keeping`
    /// does not keep. Answers how many it removed so.
    ///
    /// With `unlessWrittenSince`, a key to remove stays when its record was received after that
    /// time (another client of the store, such as another process on the same file, wrote it
    /// since): garbage collection removes only what was there when it began.
    @discardableResult
    func save(
        _ records: [CacheRecord], fields: [FieldChanges], removing: [String], unlessWrittenSince: Date?, used: [String], keeping: KeptRecords
    ) throws -> Int
    /// Those of `names` that the root record `key` has; `nil` when the store has none of them.
    func loadFields(_ names: [String], of key: String) throws -> CacheRecord?
    /// Removes every record.
    func removeAll() throws
    /// Every record (to find keys by pattern).
    func loadAll() throws -> [CacheRecord]
    /// How many records there are of each type (`__typename`; a root under its key, a record
    /// without one under `(untyped)`), and when the one received longest ago was: counted by the
    /// store, not read into memory.
    func typeCounts() throws -> (byType: [String: Int], oldest: Date?)
    /// Up to `limit` of the records kept whole, in key order, after `key` (from the first when
    /// `nil`): garbage collection reads the store a page at a time.
    func records(after key: String?, limit: Int) throws -> [CacheRecord]
    /// Up to `limit` keys of the records kept whole that were received at `receivedBy` or
    /// before, in key order, after `key`.
    func keys(after key: String?, receivedBy: Date, limit: Int) throws -> [String]
    /// The keys of the records kept field by field (the roots).
    func rootKeys() throws -> [String]
    /// The names of the fields of a record kept field by field.
    func fieldNames(of key: String) throws -> [String]
    /// The fields of a record kept field by field whose expiry is before `date`.
    func fieldsExpired(of key: String, before date: Date) throws -> [String]
    /// Those of `keys` that the store has.
    func existing(_ keys: [String]) throws -> Set<String>
    /// The size of the store's files in bytes.
    func bytesOnDisk() -> Int
}

/// A change to some fields of a root record, which the store keeps field by field so that a
/// write costs what it changes rather than the whole root. A store answers such a record, assembled, from ``PersistentRecordStore/load(_:)``.
package struct FieldChanges: Sendable, Equatable {
    package var key: String
    /// The fields written, by storage key.
    package var set: JSONObject
    /// The expiry of those written fields that have one.
    package var expires: [String: Date]
    /// The fields removed.
    package var removed: [String]
    package var receivedAt: Date

    package init(key: String, set: JSONObject, expires: [String: Date] = [:], removed: [String] = [], receivedAt: Date) {
        self.key = key
        self.set = set
        self.expires = expires
        self.removed = removed
        self.receivedAt = receivedAt
    }
}

/// The records a store must not trim: those active watchers read.
package struct KeptRecords: Sendable {
    package let contains: @Sendable (String) -> Bool

    package init(_ contains: @escaping @Sendable (String) -> Bool) { self.contains = contains }

    /// None.
    package static let none = KeptRecords { _ in false }
}
