import APICore
import Foundation

/// What the app's composition root does to the normalized cache as a whole: look into it
/// (``summary()``, ``inspect(_:)``, ``keys(matching:limit:)``) and collect its garbage. Kits read,
/// write and edit records through `GraphQLCache` (`client.cache`); this side is the app's, and
/// tools' (`pantry cache`), and reaches it through ``APICore/APIClient/cacheMaintenance``.
///
/// Every method throws `APIError` only; a client without a cache answers
/// `APIError.invalidRequest(_:)`.
public protocol CacheMaintenance: Sendable {
    /// Removes from the normalized cache, in memory and in its persistent store, what nothing needs
    /// any more: records older than their type's maximum age by more than `maxStaleness`, fields
    /// that refer to records that no longer exist, and records that the query root does not
    /// reach. Records that an active watcher reads are always kept. It runs in slices of a few
    /// milliseconds, letting reads, writes and watchers through between them; what is written
    /// meanwhile stays. Answers what was removed.
    func collectGarbage(maxStaleness: Duration) async throws(APIError) -> CacheCollection

    /// How many records the normalized cache holds, of which types, the oldest, and its sizes in
    /// memory and on disk (a persistent store counts its records without reading them out).
    func summary() async throws(APIError) -> CacheSummary

    /// One record as the cache holds it (in memory or in its persistent store): its fields, their
    /// expiry, when it was received, and how many watchers read it; `nil` when there is none with
    /// this key. For debugging tools (`pantry cache show <key>`).
    func inspect(_ key: String) async throws(APIError) -> CacheRecordDetails?

    /// The keys of the records that `pattern` names, sorted, at most `limit`: a type name
    /// (`Household`, the records whose `__typename` it is) or a key pattern where `*` stands for any
    /// run of characters (`Household:hh-*`, `*ROOT`). The persistent store's records are all read.
    func keys(matching pattern: String, limit: Int) async throws(APIError) -> [String]

    /// Returns once every cache write so far is in the persistent store. A write returns (and its
    /// watchers see it) as soon as memory holds it, and reaches the persistent store a moment
    /// later, in order; a process killed in between loses that moment's writes, never the file.
    /// Call it before a process that wrote exits, or when an app goes to the background.
    func persisted() async
}

extension CacheMaintenance {
    /// Nothing to wait for: a cache without a persistent store, or one that writes at once.
    public func persisted() async {}

    /// Collects garbage allowing no staleness: every record past its type's maximum age goes.
    public func collectGarbage() async throws(APIError) -> CacheCollection {
        try await collectGarbage(maxStaleness: .zero)
    }
}

extension APIClient {
    /// The maintenance side of the client's normalized cache (``CacheMaintenance``): the engine's
    /// own cache has one; `nil` for a client that has none of its own (a mock, say). A client that
    /// wraps another and hands out its `cache` hands out this too.
    public var cacheMaintenance: (any CacheMaintenance)? { cache as? any CacheMaintenance }
}

/// What a garbage collection removed from the normalized cache (``CacheMaintenance/collectGarbage(maxStaleness:)``).
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
    init() {}

    /// Every record removed.
    public var removedRecords: Int { expiredRecords + unreachableRecords }

    /// `N expired and N unreachable records, N expired fields, N dangling references removed`.
    public var description: String {
        "\(expiredRecords) expired and \(unreachableRecords) unreachable records, \(expiredFields) expired fields, "
            + "\(danglingReferences) dangling references removed"
    }
}

/// One record as the normalized cache holds it (``CacheMaintenance/inspect(_:)``): for looking into the
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
    init(key: String, typename: String?, fields: JSONObject, receivedAt: Date, expires: [String: Date], watchers: [String]) {
        self.key = key
        self.typename = typename
        self.fields = fields
        self.receivedAt = receivedAt
        self.expires = expires
        self.watchers = watchers
    }
}

/// What the normalized cache holds (``CacheMaintenance/summary()``).
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
    init(
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
