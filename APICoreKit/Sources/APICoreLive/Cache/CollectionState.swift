@_spi(Engine) @_spi(Generated) import APICore
import APICoreSupport
import Foundation

/// The store's collecting part: when it collects on its own (on open, after so many records
/// written, as its configuration says), the collection under way, the task that runs its slices,
/// and how long a slice may hold the store. The store's extension in GarbageCollection.swift does
/// the work on the records; what it needs to remember between slices and collections is here.
struct Collector {
    /// The collections the configuration asks for, with the writer's access; `nil`: only on demand.
    let automatic: CacheWriter.AutomaticCollection?
    private var policy: CacheConfiguration.GarbageCollection? { automatic?.policy }
    /// Whether the collection on open is still to come.
    private var collectsOnOpen: Bool
    /// Records written since the last collection began.
    private var writesSinceCollection = 0
    /// The collection under way (taken out while a slice runs), and the task that runs its slices.
    var underWay: IncrementalCollection?
    var run: Task<CacheCollection, Never>?
    /// How long a slice of a collection may hold the store.
    var slice = CollectionSlice()

    init(_ automatic: CacheWriter.AutomaticCollection?) {
        self.automatic = automatic
        self.collectsOnOpen = automatic?.policy.onOpen ?? false
    }

    /// Whether the collection on open is due (the cache's first use).
    var isDueOnOpen: Bool { collectsOnOpen && policy != nil }

    /// A collection begins: what was due is no longer.
    mutating func begin(_ collection: IncrementalCollection) {
        collectsOnOpen = false
        writesSinceCollection = 0
        underWay = collection
    }

    /// `written` went into the cache (or over it, in an optimistic layer): during a collection's
    /// marking or sweep it stays, with what it refers to.
    mutating func keep(_ written: [String: JSONObject]) {
        underWay?.keep(written)
    }

    /// `count` records were written: answers why to collect now, when the policy asks for a
    /// collection after so many.
    mutating func countWritten(_ count: Int) -> String? {
        writesSinceCollection += count
        guard let limit = policy?.afterWrites, writesSinceCollection >= limit else { return nil }
        return "after \(writesSinceCollection) records written"
    }
}

/// A garbage collection under way (``NormalizedStore/collectGarbage(maxStaleness:)``): expired
/// records and fields go, then what is reachable is marked, then the rest is swept; each phase
/// goes through memory and then the persistent store a page at a time, across slices.
struct IncrementalCollection {
    enum Phase { case expiry, marking, sweep }

    /// How many records or keys of the persistent store are read at once. A slice ends between
    /// pages, so a page is what it may run over its budget: 256 records parsed took up to 8 ms with
    /// every core busy, and the longest pause of a collection of 1 M records in SQLite was
    /// 16-19 ms; with 128, 12.5 ms (`APICOREKIT_SCALE_UNDER_LOAD=1 scripts/bench.sh cache-scale`).
    static let page = 128

    var phase = Phase.expiry
    /// When it began, by the clock records are stamped with when received.
    let startedAt: Date
    let maxStaleness: Duration
    /// Fields whose expiry is before this go.
    let fieldDeadline: Date
    /// The keys in memory when the phase began, and how far the phase went through them.
    var memoryKeys: [String]
    var memoryPosition = 0
    /// How far the phase went through the persistent store (the last key read), and whether to its end.
    var persistentAfter: String?
    var persistentDone: Bool
    /// Keys whose records are still to be marked, and those marked.
    var pending: [String] = []
    var reachable = KeySet()
    /// The records of the batch being marked, the roots being marked field by field, and keys
    /// the persistent store was found to have, for the checks.
    var batch: [CacheRecord] = []
    var roots: [RootMarking] = []
    var existing: Set<String> = []
    /// What the slice removed, and the fields records lost, saved at its end.
    var removed: [String] = []
    var lost: [String: [String]] = [:]
    var result = CacheCollection()

    /// A root being marked, field by field: the fields still to check, and the last few read
    /// from the persistent store.
    struct RootMarking {
        let key: String
        var fields: [String]
        var chunk: JSONObject = [:]
    }

    /// What a write put in the cache during the marking or the sweep stays, with what it refers
    /// to: marked (again: a record reached before the write may refer to new records now) before
    /// anything more is swept. During the expiry phase nothing is marked yet.
    mutating func keep(_ written: [String: JSONObject]) {
        guard phase != .expiry else { return }
        for (key, fields) in written {
            pending.append(key)
            for value in fields.values { CacheNaming.collectReferences(value, into: &pending) }
            reachable.remove(key)
        }
    }

    init(startedAt: Date, maxStaleness: Duration, fieldDeadline: Date, memoryKeys: [String], persistent: Bool) {
        self.startedAt = startedAt
        self.maxStaleness = maxStaleness
        self.fieldDeadline = fieldDeadline
        self.memoryKeys = memoryKeys
        self.persistentDone = !persistent
    }
}

/// How long a slice of a collection may hold the store: `budget`, or (for tests) at most
/// `maxUnits` records or keys.
package struct CollectionSlice: Sendable {
    package var budget: Duration
    package var maxUnits: Int?

    package init(budget: Duration = .milliseconds(3), maxUnits: Int? = nil) {
        self.budget = budget
        self.maxUnits = maxUnits
    }
}

/// The time (or work) a slice has left.
struct SliceClock {
    private let deadline: ContinuousClock.Instant
    private let maxUnits: Int?
    private var units = 0

    init(_ slice: CollectionSlice) {
        deadline = .now + slice.budget
        maxUnits = slice.maxUnits
    }

    mutating func count(_ done: Int) { units += done }

    /// Whether the slice should end (checked before each unit of work).
    var isUp: Bool {
        if let maxUnits { return units >= maxUnits }
        return ContinuousClock.now >= deadline
    }
}

/// A set of keys that grows without stopping: 256 sets by hash, each rehashed on its own as it
/// grows, where one set of a million keys would rehash them all at once, holding the store for
/// a hundred milliseconds.
struct KeySet {
    private var shards = [Set<String>](repeating: [], count: 256)

    private static func shard(of key: String) -> Int { key.hashValue & 255 }

    @discardableResult
    mutating func insert(_ key: String) -> (inserted: Bool, memberAfterInsert: String) { shards[Self.shard(of: key)].insert(key) }

    func contains(_ key: String) -> Bool { shards[Self.shard(of: key)].contains(key) }

    mutating func remove(_ key: String) { shards[Self.shard(of: key)].remove(key) }
}
