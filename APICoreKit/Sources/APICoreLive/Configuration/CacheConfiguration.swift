import APICore
import APICoreSupport
import Foundation

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
    /// (``CacheMaintenance/collectGarbage(maxStaleness:)``).
    public var garbageCollection: GarbageCollection?
    /// Whether a watched query that a cache change leaves incomplete (a record removed, evicted or
    /// collected) is fetched again from the server, once per loss, instead of yielding a cache miss
    /// (on by default, as Apollo's `refetchOnFailedUpdates`). A refetch that fails yields its
    /// error; one whose answer still leaves the query incomplete yields the miss.
    public var refetchesIncompleteWatches: Bool

    /// When the cache collects its garbage by itself, as ``CacheMaintenance/collectGarbage(maxStaleness:)``
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

extension APIClientConfiguration {
    /// Refuses `change` (a mutation, a write through `client.cache`) when the cache is read-only:
    /// the client would keep it in its memory alone, where no other process sees it.
    func refuseIfCacheReadOnly(_ change: @autoclosure () -> String) throws(APIError) {
        guard cache?.storage.isReadOnly == true else { return }
        throw .invalidRequest(
            "\(change()) is refused: this client opened the cache read-only (SQLiteCache.readOnlyStorage(at:)), to read and watch what other "
                + "processes write and write nothing; send changes from a client that opens it with SQLiteCache.storage(at:)")
    }
}
