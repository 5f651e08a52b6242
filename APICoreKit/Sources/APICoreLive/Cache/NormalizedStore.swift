@_spi(Generated) import APICore
import APICoreSupport
import Foundation
import Logging

/// The normalized cache: records in memory, in front of an optional persistent store, and the
/// watchers of those records.
///
/// Writes merge field by field; only the records whose fields really changed are reported, and
/// only the watchers that read those records are woken (an index from record key to watchers, not
/// a scan). If the persistent store fails, the cache says so once in the log and carries on in
/// memory; it never deletes a file.
///
/// With a memory limit, the least recently used records that no watcher reads are evicted from
/// memory (a persistent store still has them, and a read loads them again). A persistent store
/// with a size bound is told which records are used, and keeps those that watchers read. A root
/// record, which can hold a field for every query ever cached, is loaded from the persistent
/// store by the fields a read selects; it is loaded whole only when something needs all of it
/// (``record(_:)``, an update, a collection, a summary).
///
/// Optimistic layers lie over the records: reads see their fields on top, in the order the layers
/// were added, and say so (`optimistic`); the persistent store, collection and summary never see
/// them. A layer leaves when its mutation is answered (in the same step as the answer is merged,
/// so watchers wake once) or fails, and only that layer.
///
/// The actor holds the records; everything else it knows is in its parts, values each in a file
/// of its own: ``WatcherIndex`` (the watchers, what they read, and the memos of what they watch),
/// ``OptimisticLayers``, ``MemoryBudget``, ``PersistenceBridge`` (the persistent store, and what
/// memory knows of it: keys it lacks, roots held in part) and ``Collector`` (when to collect, the
/// collection under way). The work on the records is in extensions beside it: reads in
/// StoreReads.swift, garbage collection in GarbageCollection.swift, the summary and inspection in
/// CacheInspection.swift. Writes come through `CacheWriter`.
package actor NormalizedStore {
    /// A watcher's way to read again: it runs inside the store, with the store's records.
    package typealias Refresh = @Sendable (_ store: isolated NormalizedStore) -> ReadDependencies

    /// The records in memory and the optimistic layers, which synchronous reads share (see
    /// ``readInMemory(_:requestMaxAge:)``): every change holds their lock.
    let memory: RecordsInMemory
    var records: [String: CacheRecord] {
        get { memory.records }
        _modify {
            memory.lockForWriting()
            defer { memory.unlockAfterWriting() }
            yield &memory.records
        }
    }
    var layers: OptimisticLayers {
        get { memory.layers }
        _modify {
            memory.lockForWriting()
            defer { memory.unlockAfterWriting() }
            yield &memory.layers
        }
    }
    var persistence: PersistenceBridge
    let logger: Logger
    private let maxAgeByType: [String: Duration]
    let now: @Sendable () -> Date
    /// What the records in memory cost against the memory limit; only with a limit.
    private var budget: MemoryBudget?
    var watchers = WatcherIndex()
    /// When the store collects its garbage, and the collection under way.
    var collector: Collector
    /// What looks at other clients' writes while watchers watch (OtherWriters.swift).
    var follower: Task<Void, Never>?

    /// How many times watchers have read the store again after a write (for the benchmark).
    package private(set) var rereadCount = 0

    package init(
        persistent: (any PersistentRecordStore)?, readOnly: Bool = false, maxAgeByType: [String: Duration] = [:],
        garbageCollection: CacheWriter.AutomaticCollection? = nil, memoryLimit: CacheConfiguration.MemoryLimit? = nil,
        layers: [[String: JSONObject]] = [], logger: Logger, now: @escaping @Sendable () -> Date = Date.init
    ) {
        // The optimistic layers of queued mutations from an earlier launch, with ids 1, 2, … in order.
        self.memory = RecordsInMemory(layers: OptimisticLayers(restoring: layers))
        self.persistence = PersistenceBridge(persistent, readOnly: readOnly, logger: logger)
        self.budget = memoryLimit.map(MemoryBudget.init(limit:))
        self.maxAgeByType = maxAgeByType
        self.collector = Collector(garbageCollection)
        self.logger = logger
        self.now = now
    }

    deinit { follower?.cancel() }

    // MARK: Records

    /// The record with this key, from memory or the persistent store; a root whole.
    package func record(_ key: String) -> CacheRecord? {
        if persistence.othersLookDue() { takeInOthersChanges() }
        completeRoot(key)
        if let record = records[key] {
            noteUse(of: key)
            return record
        }
        guard persistence.mayHave(key) else { return nil }
        if let record = persistence.load([key])?[key] {
            keep(record)
            noteUse(of: key)
            return record
        }
        persistence.noteAbsent(key)
        return nil
    }

    /// One field of a record as the store has it. Of a root the persistent store holds, only that
    /// field is read (``record(_:)`` would read the whole root: every query's fields).
    package func storedField(_ name: String, of key: String) -> JSONValue? {
        guard CacheNaming.isRoot(key), persistence.isActive, records[key] == nil || persistence.isPartialRoot(key) else {
            return record(key)?.fields[name]
        }
        // What memory has of a root is newer than the persistent store's.
        return records[key]?.fields[name] ?? persistence.loadFields([name], of: key)?.fields[name]
    }

    /// Whether a record is older than the shorter of its type's and the request's maximum age,
    /// by more than `staleness`. (Fields with a server's expiry are checked one by one.)
    nonisolated package func isExpired(_ record: CacheRecord, requestMaxAge: Duration?, beyond staleness: Duration = .zero) -> Bool {
        let typeMaxAge = record.fields["__typename"]?.stringValue.flatMap { maxAgeByType[$0] }
        let maxAge: Duration
        switch (requestMaxAge, typeMaxAge) {
        case (nil, nil): return false
        case (let one?, nil), (nil, let one?): maxAge = one
        case (let request?, let type?): maxAge = min(request, type)
        }
        return now().timeIntervalSince(record.receivedAt) > (maxAge + staleness).seconds
    }

    /// Whether a record can turn stale with time alone: it has fields with an expiry, or a maximum
    /// age applies to it.
    nonisolated func mayExpire(_ record: CacheRecord, requestMaxAge: Duration?) -> Bool {
        requestMaxAge != nil || !record.expires.isEmpty
            || (!maxAgeByType.isEmpty && record.fields["__typename"]?.stringValue.map { maxAgeByType[$0] != nil } == true)
    }

    /// Merges records into the cache; answers the keys whose fields changed, and wakes their
    /// watchers. `expires` gives, by record and storage key, when the fields a server gave a
    /// maximum age expire; a field written without one loses any it had. `removingLayer` takes an
    /// optimistic layer away in the same step (the server's answer replacing it).
    @discardableResult
    package func merge(
        _ incoming: [String: JSONObject], expires: [String: [String: Date]] = [:], removingLayer layer: UInt64? = nil, by _: CacheWriter.Access
    ) -> Set<String> {
        // No query reads a mutation's or subscription's root: what it refers to is kept, not it.
        // (Records built from answers have none of them; records written as they are may.)
        let incoming = incoming.keys.contains(where: CacheNaming.isOperationOnly)
            ? incoming.filter { !CacheNaming.isOperationOnly($0.key) } : incoming
        collectIfOpening()
        let receivedAt = now()
        var changed: Set<String> = []
        var touched: [CacheRecord] = []
        var touchedRoots: [FieldChanges] = []
        if persistence.isActive {
            touched.reserveCapacity(incoming.count)
            preload(incoming.keys.filter { !CacheNaming.isRoot($0) })
        }
        for (key, fields) in incoming {
            let isRoot = CacheNaming.isRoot(key)
            let record: CacheRecord
            if let index = records.index(forKey: key) {
                // Changed where it is, field by field, in one hold of the lock: only what differs is written.
                let expiry = expires[key]
                let (updated, recordChanged) = memory.changeRecords { records in
                    var recordChanged = false
                    for (name, value) in fields {
                        if records.values[index].fields[name] != value {
                            records.values[index].fields[name] = value
                            recordChanged = true
                            // Watchers of a root depend on the fields they read, not on the whole root.
                            if isRoot { changed.insert(CacheNaming.fieldDependency(key, name)) }
                        }
                        if let date = expiry?[name] {
                            records.values[index].expires[name] = date
                        } else if !records.values[index].expires.isEmpty {
                            records.values[index].expires[name] = nil
                        }
                    }
                    records.values[index].receivedAt = receivedAt
                    return (records.values[index], recordChanged)
                }
                record = updated
                budget?.kept(record)
                if recordChanged { changed.insert(isRoot ? CacheNaming.anyField(of: key) : key) }
            } else {
                // A root is written to without loading what the store has of it.
                if isRoot { persistence.notePartialRoot(key) }
                // A record new to memory: its fields whole, without comparing them one by one.
                record = CacheRecord(key: key, fields: fields, receivedAt: receivedAt, expires: expires[key] ?? [:])
                keep(record)
                if isRoot {
                    for name in fields.keys { changed.insert(CacheNaming.fieldDependency(key, name)) }
                }
                changed.insert(isRoot ? CacheNaming.anyField(of: key) : key)
            }
            persistence.noteWritten(key)
            if persistence.isActive {
                if isRoot {
                    touchedRoots.append(PersistenceBridge.changes(of: record, setting: fields.keys))
                } else {
                    touched.append(record)
                }
            }
        }
        persist(touched, fields: touchedRoots, removing: [])
        collector.keep(incoming)
        if let layer { changed.formUnion(layers.remove(layer)) }
        notify(changed)
        if let reason = collector.countWritten(incoming.count) { collectAutomatically(because: reason) }
        evictIfOverLimit()
        return changed
    }

    /// Replaces one record's fields by what `update` makes of them.
    package func update(_ key: String, by _: CacheWriter.Access, _ update: (inout JSONObject) -> Void) {
        var fields = record(key)?.fields ?? [:]
        let before = fields
        update(&fields)
        guard fields != before else { return }
        let updated = CacheRecord(key: key, fields: fields, receivedAt: now())
        keep(updated)
        collector.keep([key: fields])
        persistence.noteWritten(key)
        if CacheNaming.isRoot(key) {
            let set = fields.filter { before[$0.key] != $0.value }.map(\.key)
            persist([], fields: [PersistenceBridge.changes(of: updated, setting: set, removing: before.keys.filter { fields[$0] == nil })], removing: [])
        } else {
            persist([updated], removing: [])
        }
        notify([key])
        evictIfOverLimit()
    }

    /// Removes one record.
    package func remove(_ key: String, by _: CacheWriter.Access) {
        drop(key)
        persistence.noteAbsent(key)
        persist([], removing: [key])
        notify([key])
    }

    /// Removes every record, in memory and in the persistent store.
    package func removeAll(by _: CacheWriter.Access) {
        let keys = Set(records.keys).union(watchers.dependencies).union(layers.keys)
        // A collection under way is called off: there is nothing left to collect.
        collector.underWay = nil
        records = [:]
        layers.removeAll()
        budget?.removeAll()
        persistence.removeAll()
        notify(keys)
    }

    // MARK: Memory

    /// Puts a record in memory, and counts it against the limit.
    func keep(_ record: CacheRecord) {
        records[record.key] = record
        budget?.kept(record)
    }

    /// Takes a record out of memory.
    func drop(_ key: String) {
        records[key] = nil
        persistence.forgetPartialRoot(key)
        budget?.dropped(key)
    }

    func noteUse(of key: String) {
        budget?.used(key)
        persistence.noteUse(of: key)
    }

    /// Past the memory limit, evicts the least recently used records that no watcher reads (and
    /// never a root, which holds every query's fields).
    func evictIfOverLimit() {
        guard let budget else { return }
        for key in budget.overLimit(keeping: { watchers.isWatched($0) || CacheNaming.isRoot($0) }) { drop(key) }
    }

    // MARK: Persistence

    /// Loads into memory the records of `keys` that the persistent store has and memory lacks, in
    /// one query (a read's lists load what they lead to with ``preload(_:reading:variables:)``).
    func preload(_ keys: [String]) {
        guard persistence.isActive else { return }
        _ = loadMissing(missing(among: keys))
    }

    /// Those of `keys` that memory lacks and the persistent store may have.
    func missing(among keys: [String]) -> [String] {
        keys.filter { records[$0] == nil && persistence.mayHave($0) }
    }

    /// Loads `keys` (which memory lacks) from the persistent store into memory, noting those it
    /// has not; answers how many it had, or `nil` when it failed.
    func loadMissing(_ keys: [String]) -> Int? {
        guard !keys.isEmpty else { return 0 }
        guard let loaded = persistence.load(keys) else { return nil }
        for record in loaded.values { keep(record) }
        for key in keys where loaded[key] == nil { persistence.noteAbsent(key) }
        return loaded.count
    }

    /// Saves and removes records in the persistent store (roots by their changed fields); a store
    /// over its size bound trims those no watcher reads. With `since`, a record to remove that
    /// was received after then (another client of the persistent store wrote it) stays.
    func persist(_ records: [CacheRecord], fields: [FieldChanges] = [], removing keys: [String], unlessWrittenSince since: Date? = nil) {
        persistence.save(records, fields: fields, removing: keys, unlessWrittenSince: since, keeping: KeptRecords(watchers.isWatchedNow))
    }

    // MARK: Roots

    /// Loads what the persistent store has of a root that memory holds only in part, under what
    /// memory has (memory is never older).
    func completeRoot(_ key: String) {
        guard persistence.forgetPartialRoot(key), let stored = persistence.load([key])?[key] else { return }
        var root = records[key] ?? stored
        root.fill(from: stored)
        keep(root)
    }

    // MARK: Optimistic layers

    /// Lays `records` (fields by record key) over the cache until ``removeLayer(_:)``; answers the
    /// layer's id. Watchers of those records are told.
    package func addLayer(_ records: [String: JSONObject], by _: CacheWriter.Access) -> UInt64 {
        collector.keep(records)
        let id = layers.add(records)
        notify(Set(records.keys))
        return id
    }

    /// Takes an optimistic layer away (the others and the records under them stay); watchers of
    /// its records are told. A layer already gone is no error.
    package func removeLayer(_ id: UInt64, by _: CacheWriter.Access) {
        notify(layers.remove(id))
    }

    /// How many optimistic layers lie over the cache.
    package var layerCount: Int { layers.count }

    /// How many watchers read the store and how many optimistic layers lie over it, in one step.
    func activity() -> (watchers: Int, layers: Int) { (watchers.counts.watchers, layerCount) }

    /// Returns once the persistent store has every write so far (they are written behind the store);
    /// a failure of the writer is said in the log then, not at the next use.
    package func persisted() async {
        let writer = persistence.writer
        await writer?.written()
        persistence.takeWriterOutcome()
    }

    // MARK: Transactions

    /// Runs `work` on the store with nothing else in between.
    package func transaction<T: Sendable>(_ work: @Sendable (isolated NormalizedStore) -> T) -> T {
        work(self)
    }

    /// Merges `incoming` if reading `selection` (without optimistic layers) still gives
    /// `expected`: the write of a read-change-write that no other write came into. Answers
    /// whether it merged.
    package func merge(_ incoming: [String: JSONObject], ifStill expected: JSONObject, at selection: CacheSelection, by access: CacheWriter.Access) -> Bool {
        guard read(selection, layered: false).data == expected else { return false }
        merge(incoming, by: access)
        return true
    }

    // MARK: Watchers

    /// Registers a watcher that depends on `dependencies`; `refresh` reads again and answers the
    /// new dependencies; `label` says what it watches (`query HeroName`), for inspection. With
    /// the `selection` it reads, reads of that selection keep a ``ReadMemo`` while it is watched.
    /// Answers the watcher's id.
    package func addWatcher(
        dependencies: Set<String>, label: String = "watcher", selection: ReadMemo.Selection? = nil, refresh: @escaping Refresh
    ) -> UInt64 {
        followOthersWhileWatched()
        return watchers.add(dependencies: dependencies, label: label, memo: selection, refresh: refresh)
    }

    /// Registers a watcher of `selection` and reads it in the same step, so that no write falls
    /// between the two; `initial` is handed the read. Answers the watcher's id.
    package func addWatcher(of selection: CacheSelection, label: String, refresh: @escaping Refresh, initial: @Sendable (CacheRead) -> Void) -> UInt64 {
        // Registered first, so that this read fills the selection's memo.
        let id = addWatcher(dependencies: [], label: label, selection: selection.memoKey, refresh: refresh)
        let read = read(selection)
        initial(read)
        setDependencies(read.dependencies, of: id)
        return id
    }

    /// Replaces a watcher's dependencies.
    package func setDependencies(_ dependencies: ReadDependencies, of id: UInt64) {
        watchers.setDependencies(dependencies, of: id)
    }

    /// What a watcher depends on, as the watcher index holds it and as its index of keys says.
    package func dependencies(ofWatcher id: UInt64) -> (held: Set<String>, indexed: Set<String>)? {
        watchers.dependencies(of: id)
    }

    /// Removes a watcher.
    package func removeWatcher(_ id: UInt64) {
        watchers.remove(id)
        stopFollowingUnlessWatched()
    }

    /// How many records are in memory, and what they cost against the memory limit (0 without one).
    package var memoryFootprint: (records: Int, cost: Int) { (records.count, budget?.cost ?? 0) }

    /// How many watchers are registered, and how many record keys the index holds.
    package var watcherCounts: (watchers: Int, indexedKeys: Int) { watchers.counts }

    /// Wakes the watchers of the keys changed, oldest first; each reads again (a watcher that an
    /// earlier one removed is skipped).
    func notify(_ changed: Set<String>) {
        let woken = watchers.woken(by: changed)
        // The memos forget what changed before any watcher reads again (a memo depends only on
        // what its watchers read, so theirs are the memos to tell).
        for id in woken { watchers.memo(of: id)?.forget(changed) }
        for id in woken {
            guard let refresh = watchers.refresh(of: id) else { continue }
            rereadCount += 1
            watchers.setDependencies(refresh(self), of: id)
        }
    }
}
