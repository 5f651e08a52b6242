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
    /// How many records are in memory now (at most the `CacheConfiguration/memoryLimit`, when
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
