@_spi(Generated) import APICore
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
package actor NormalizedStore {
    /// A watcher's way to read again: it runs inside the store, with the store's records.
    package typealias Refresh = @Sendable (_ store: isolated NormalizedStore) -> Set<String>

    private var records: [String: CacheRecord] = [:]
    /// Keys known to be in no store, so a miss does not ask SQLite again and again.
    private var absent: Set<String> = []
    /// Root records of which memory holds only some fields; the rest are in the persistent store.
    private var partialRoots: Set<String> = []
    private var persistent: (any PersistentRecordStore)?
    private let logger: Logger
    private let maxAgeByType: [String: Duration]
    private let now: @Sendable () -> Date
    private let garbageCollection: CacheConfiguration.GarbageCollection?
    /// Whether the collection on open is still to come.
    private var collectsOnOpen: Bool
    private var writesSinceCollection = 0

    private let memoryLimit: CacheConfiguration.MemoryLimit?
    /// When each record in memory was last used, and what it costs against the memory limit;
    /// kept only with a limit.
    private var usage: [String: (lastUse: UInt64, cost: Int)] = [:]
    private var useClock: UInt64 = 0
    private var memoryCost = 0
    /// The records used since the last save, for a persistent store that trims by use.
    private var usedSinceSave: Set<String> = []
    private var tracksUse: Bool

    private var watchers: [UInt64: (dependencies: Set<String>, refresh: Refresh)] = [:]
    private var index: [String: Set<UInt64>] = [:]
    private var nextWatcherID: UInt64 = 0
    /// Optimistic layers, oldest first, each with the records' fields it lays over the cache.
    private var layers: [(id: UInt64, records: [String: JSONObject])] = []
    /// How many layers touch each record key.
    private var layeredKeys: [String: Int] = [:]
    private var nextLayerID: UInt64 = 0

    /// How many times watchers have read the store again after a write (for the benchmark).
    package private(set) var rereadCount = 0

    package init(
        persistent: (any PersistentRecordStore)?, maxAgeByType: [String: Duration] = [:],
        garbageCollection: CacheConfiguration.GarbageCollection? = nil, memoryLimit: CacheConfiguration.MemoryLimit? = nil,
        layers: [[String: JSONObject]] = [], logger: Logger, now: @escaping @Sendable () -> Date = Date.init
    ) {
        // The optimistic layers of queued mutations from an earlier launch, with ids 1, 2, … in order.
        for records in layers {
            nextLayerID += 1
            self.layers.append((nextLayerID, records))
            for key in records.keys { layeredKeys[key, default: 0] += 1 }
        }
        self.persistent = persistent
        self.tracksUse = persistent?.tracksUse ?? false
        self.memoryLimit = memoryLimit
        self.maxAgeByType = maxAgeByType
        self.garbageCollection = garbageCollection
        self.collectsOnOpen = garbageCollection?.onOpen ?? false
        self.logger = logger
        self.now = now
    }

    // MARK: Records

    /// The record with this key, from memory or the persistent store; a root whole.
    package func record(_ key: String) -> CacheRecord? {
        completeRoot(key)
        if let record = records[key] {
            noteUse(of: key)
            return record
        }
        if absent.contains(key) { return nil }
        guard let persistent else { return nil }
        do {
            if let record = try persistent.load([key])[key] {
                keep(record)
                noteUse(of: key)
                return record
            }
        } catch {
            persistenceFailed(error, while: "reading")
        }
        absent.insert(key)
        return nil
    }

    /// Whether a record is older than the shorter of its type's and the request's maximum age,
    /// by more than `staleness`. (Fields with a server's expiry are checked one by one.)
    package func isExpired(_ record: CacheRecord, requestMaxAge: Duration?, beyond staleness: Duration = .zero) -> Bool {
        let typeMaxAge = record.fields["__typename"]?.stringValue.flatMap { maxAgeByType[$0] }
        let maxAge: Duration
        switch (requestMaxAge, typeMaxAge) {
        case (nil, nil): return false
        case (let one?, nil), (nil, let one?): maxAge = one
        case (let request?, let type?): maxAge = min(request, type)
        }
        return now().timeIntervalSince(record.receivedAt) > (maxAge + staleness).seconds
    }

    /// Merges records into the cache; answers the keys whose fields changed, and wakes their
    /// watchers. `expires` gives, by record and storage key, when the fields a server gave a
    /// maximum age expire; a field written without one loses any it had. `removingLayer` takes an
    /// optimistic layer away in the same step (the server's answer replacing it).
    @discardableResult
    package func merge(_ incoming: [String: JSONObject], expires: [String: [String: Date]] = [:], removingLayer layer: UInt64? = nil)
        -> Set<String>
    {
        collectIfOpening()
        let receivedAt = now()
        var changed: Set<String> = []
        var touched: [CacheRecord] = []
        var touchedRoots: [FieldChanges] = []
        if persistent != nil {
            touched.reserveCapacity(incoming.count)
            preload(incoming.keys.filter { !CacheNaming.isRoot($0) })
        }
        for (key, fields) in incoming {
            let isRoot = CacheNaming.isRoot(key)
            let record: CacheRecord
            if var current = records[key] {
                var recordChanged = false
                let expiry = expires[key]
                for (name, value) in fields {
                    if current.fields[name] != value {
                        current.fields[name] = value
                        recordChanged = true
                        // Watchers of a root depend on the fields they read, not on the whole root.
                        if isRoot { changed.insert(CacheNaming.fieldDependency(key, name)) }
                    }
                    if let date = expiry?[name] {
                        current.expires[name] = date
                    } else if !current.expires.isEmpty {
                        current.expires[name] = nil
                    }
                }
                current.receivedAt = receivedAt
                record = current
                if recordChanged { changed.insert(isRoot ? CacheNaming.anyField(of: key) : key) }
            } else {
                // A root is written to without loading what the store has of it.
                if isRoot, persistent != nil, !absent.contains(key) { partialRoots.insert(key) }
                // A record new to memory: its fields whole, without comparing them one by one.
                record = CacheRecord(key: key, fields: fields, receivedAt: receivedAt, expires: expires[key] ?? [:])
                if isRoot {
                    for name in fields.keys { changed.insert(CacheNaming.fieldDependency(key, name)) }
                }
                changed.insert(isRoot ? CacheNaming.anyField(of: key) : key)
            }
            keep(record)
            if !absent.isEmpty { absent.remove(key) }
            if persistent != nil {
                if isRoot {
                    touchedRoots.append(Self.changes(of: record, setting: fields.keys))
                } else {
                    touched.append(record)
                }
            }
        }
        persist(touched, fields: touchedRoots, removing: [])
        if let layer { changed.formUnion(dropLayer(layer)) }
        notify(changed)
        writesSinceCollection += incoming.count
        if let policy = garbageCollection, let limit = policy.afterWrites, writesSinceCollection >= limit {
            collectAutomatically(policy, because: "after \(writesSinceCollection) records written")
        }
        evictIfOverLimit()
        return changed
    }

    /// Replaces one record's fields by what `update` makes of them.
    package func update(_ key: String, _ update: (inout JSONObject) -> Void) {
        var fields = record(key)?.fields ?? [:]
        let before = fields
        update(&fields)
        guard fields != before else { return }
        let updated = CacheRecord(key: key, fields: fields, receivedAt: now())
        keep(updated)
        absent.remove(key)
        if CacheNaming.isRoot(key) {
            let set = fields.filter { before[$0.key] != $0.value }.map(\.key)
            persist([], fields: [Self.changes(of: updated, setting: set, removing: before.keys.filter { fields[$0] == nil })], removing: [])
        } else {
            persist([updated], removing: [])
        }
        notify([key])
        evictIfOverLimit()
    }

    /// Removes one record.
    package func remove(_ key: String) {
        drop(key)
        absent.insert(key)
        persist([], removing: [key])
        notify([key])
    }

    /// Removes every record, in memory and in the persistent store.
    package func removeAll() {
        let keys = Set(records.keys).union(index.keys).union(layeredKeys.keys)
        records = [:]
        layers = []
        layeredKeys = [:]
        partialRoots = []
        usage = [:]
        memoryCost = 0
        usedSinceSave = []
        absent = []
        if let persistent {
            do {
                try persistent.removeAll()
            } catch {
                persistenceFailed(error, while: "clearing")
            }
        }
        notify(keys)
    }

    // MARK: Garbage collection

    /// Removes records past their type's maximum age by more than `maxStaleness`, and fields past
    /// the maximum age their server gave them by as much; then fields that refer to records that
    /// do not exist (those just removed included), then records that no root record (query,
    /// mutation, subscription) reaches. Records that watchers read, and those optimistic layers lie
    /// over, are roots too: they are never removed and keep their expired fields (a dangling
    /// reference goes from them too). In memory
    /// and in the persistent store, whose records are all read first; watchers of records that
    /// lost a field are told.
    package func collectGarbage(maxStaleness: Duration) -> CacheCollection {
        collectsOnOpen = false
        writesSinceCollection = 0
        for key in partialRoots { completeRoot(key) }
        if let persistent {
            do {
                for record in try persistent.loadAll() where records[record.key] == nil { keep(record) }
            } catch {
                persistenceFailed(error, while: "collecting garbage")
            }
        }
        absent = []
        var collection = CacheCollection()
        // What watchers read, and what optimistic layers lie over (a queued mutation's, perhaps
        // for days), is kept as roots are.
        let watched = Set(watchers.values.lazy.flatMap(\.dependencies)).union(layeredKeys.keys)
        var removed: [String] = []
        /// The fields each changed record lost.
        var lost: [String: [String]] = [:]

        let deadline = now().addingTimeInterval(-maxStaleness.seconds)
        for (key, record) in records where !watched.contains(key) {
            if isExpired(record, requestMaxAge: nil, beyond: maxStaleness) {
                removed.append(key)
                continue
            }
            guard !record.expires.isEmpty else { continue }
            let expiredFields = record.expires.filter { $0.value < deadline }.map(\.key)
            if !expiredFields.isEmpty { lost[key] = expiredFields }
        }
        // Changed after the loops over `records`, which would otherwise copy it.
        for key in removed { drop(key) }
        collection.expiredRecords = removed.count
        collection.expiredFields = stripFields(lost)

        // One walk from the roots (and what watchers read) finds both what is reachable and the
        // fields that refer to a record that does not exist; such a field goes whole, and what
        // else it referred to is not reached through it. (Records the walk does not reach go
        // anyway, so their dangling fields do not matter.)
        var dangling: [String: [String]] = [:]
        var reachable = Set<String>(minimumCapacity: records.count)
        var pending = RootRecordKey.all + Array(watched)
        var referred: [String] = []
        while let key = pending.popLast() {
            guard reachable.insert(key).inserted, let record = records[key] else { continue }
            for (name, value) in record.fields {
                referred.removeAll(keepingCapacity: true)
                Self.collectReferences(value, into: &referred)
                if referred.allSatisfy({ records[$0] != nil }) {
                    pending += referred
                } else {
                    dangling[key, default: []].append(name)
                }
            }
        }
        collection.danglingReferences = stripFields(dangling)
        lost.merge(dangling) { $0 + $1 }
        let unreachable = records.keys.filter { !reachable.contains($0) }
        for key in unreachable { drop(key) }
        collection.unreachableRecords = unreachable.count
        removed += unreachable

        let changedRecords = lost.keys.filter { !CacheNaming.isRoot($0) }.compactMap { records[$0] }
        let changedRoots = lost.compactMap { key, fields in
            records[key].flatMap { CacheNaming.isRoot(key) ? Self.changes(of: $0, setting: [], removing: fields) : nil }
        }
        persist(changedRecords, fields: changedRoots, removing: removed)
        notify(Set(lost.keys))
        evictIfOverLimit()
        return collection
    }

    /// Takes these fields, by record, out of the records in memory with their expiry; answers
    /// how many.
    private func stripFields(_ fields: [String: [String]]) -> Int {
        for (key, names) in fields {
            for name in names {
                records[key]?.fields[name] = nil
                records[key]?.expires[name] = nil
            }
        }
        return fields.values.reduce(0) { $0 + $1.count }
    }

    // MARK: Summary

    /// How many records there are, by type, the oldest, and the sizes in memory and on disk; the
    /// persistent store's records are all read (not kept in memory).
    package func summary() -> CacheSummary {
        var count = 0
        var byType: [String: Int] = [:]
        var oldest: Date?
        for key in partialRoots { completeRoot(key) }
        func add(_ record: CacheRecord) {
            count += 1
            byType[record.fields["__typename"]?.stringValue ?? (CacheNaming.isRoot(record.key) ? record.key : "(untyped)"), default: 0] += 1
            if oldest.map({ record.receivedAt < $0 }) ?? true { oldest = record.receivedAt }
        }
        if let persistent {
            do {
                for record in try persistent.loadAll() where records[record.key] == nil { add(record) }
            } catch {
                persistenceFailed(error, while: "reading")
            }
        }
        var bytesInMemory = 0
        for record in records.values {
            add(record)
            bytesInMemory += Self.estimatedBytes(of: record)
        }
        return CacheSummary(
            records: count, recordsByType: byType, oldest: oldest, bytesOnDisk: persistent?.bytesOnDisk(), bytesInMemory: bytesInMemory)
    }

    // MARK: Memory

    /// Puts a record in memory, and counts it against the limit.
    private func keep(_ record: CacheRecord) {
        records[record.key] = record
        guard let memoryLimit else { return }
        let cost = memoryLimit.cost(of: record)
        useClock += 1
        memoryCost += cost - (usage[record.key]?.cost ?? 0)
        usage[record.key] = (useClock, cost)
    }

    /// Takes a record out of memory.
    private func drop(_ key: String) {
        records[key] = nil
        partialRoots.remove(key)
        if let cost = usage.removeValue(forKey: key)?.cost { memoryCost -= cost }
    }

    private func noteUse(of key: String) {
        if memoryLimit != nil {
            useClock += 1
            usage[key]?.lastUse = useClock
        }
        if tracksUse { usedSinceSave.insert(key) }
    }

    /// Past the memory limit, evicts the least recently used records that no watcher reads until
    /// a tenth of the limit is free, so that eviction's sort is paid once per many writes.
    private func evictIfOverLimit() {
        guard let limit = memoryLimit?.maximum, memoryCost > limit else { return }
        let target = limit - limit / 10
        // Roots hold every query's fields, and watchers depend on them field by field: never evicted.
        let candidates = usage.filter { index[$0.key] == nil && !CacheNaming.isRoot($0.key) }.sorted { $0.value.lastUse < $1.value.lastUse }
        for (key, _) in candidates {
            guard memoryCost > target else { break }
            drop(key)
        }
    }

    /// A cheap estimate of what a record takes in memory: its key, field names and values, with
    /// a fixed overhead per record and per value.
    static func estimatedBytes(of record: CacheRecord) -> Int {
        var bytes = 96 + record.key.utf8.count + record.expires.count * 48
        for (name, value) in record.fields { bytes += 32 + name.utf8.count + estimatedBytes(of: value) }
        return bytes
    }

    private static func estimatedBytes(of value: JSONValue) -> Int {
        switch value {
        case .string(let string): return 16 + string.utf8.count
        case .array(let items): return items.reduce(32) { $0 + estimatedBytes(of: $1) }
        case .object(let object): return object.reduce(64) { $0 + 32 + $1.key.utf8.count + estimatedBytes(of: $1.value) }
        default: return 16
        }
    }

    /// The collection on open, the first time the cache is used.
    private func collectIfOpening() {
        guard collectsOnOpen, let policy = garbageCollection else { return }
        collectAutomatically(policy, because: "on open")
    }

    private func collectAutomatically(_ policy: CacheConfiguration.GarbageCollection, because reason: String) {
        let collection = collectGarbage(maxStaleness: policy.maxStaleness)
        logger.debug("cache garbage collection \(reason): \(collection)")
    }

    /// The keys a field's value refers to, at any depth of lists.
    private static func collectReferences(_ value: JSONValue, into keys: inout [String]) {
        if let key = CacheNaming.referencedKey(value) {
            keys.append(key)
        } else if case .array(let items) = value {
            for item in items { collectReferences(item, into: &keys) }
        }
    }

    /// Loads into memory the records of `keys` that the persistent store has, and with
    /// `followingReferences` the records those refer to: for a read, two queries for a list of
    /// objects and their children, not one per object.
    private func preload(_ keys: [String], followingReferences: Bool = false) {
        guard let persistent else { return }
        var missing = keys.filter { records[$0] == nil && !absent.contains($0) }
        for level in 0..<(followingReferences ? 2 : 1) where !missing.isEmpty {
            do {
                let loaded = try persistent.load(missing)
                for record in loaded.values { keep(record) }
                for key in missing where loaded[key] == nil { absent.insert(key) }
                guard followingReferences, level == 0 else { break }
                var referred: [String] = []
                for record in loaded.values {
                    for value in record.fields.values { Self.collectReferences(value, into: &referred) }
                }
                missing = referred.filter { records[$0] == nil && !absent.contains($0) }
            } catch {
                persistenceFailed(error, while: "reading")
                return
            }
        }
    }

    /// A root record's change for the persistent store, which keeps roots field by field: the
    /// fields `set` with their values and expiry, and the fields removed.
    private static func changes(of record: CacheRecord, setting set: some Sequence<String>, removing removed: [String] = []) -> FieldChanges {
        var changes = FieldChanges(key: record.key, set: [:], removed: removed, receivedAt: record.receivedAt)
        for name in set {
            guard let value = record.fields[name] else { continue }
            changes.set[name] = value
            if let expiry = record.expires[name] { changes.expires[name] = expiry }
        }
        return changes
    }

    /// Saves and removes records in the persistent store (roots by their changed fields), with the
    /// records used since the last save; a store over its size bound trims those no watcher reads.
    private func persist(_ records: [CacheRecord], fields: [FieldChanges] = [], removing keys: [String]) {
        guard let persistent, !(records.isEmpty && fields.isEmpty && keys.isEmpty && usedSinceSave.isEmpty) else { return }
        let used = Array(usedSinceSave)
        usedSinceSave = []
        let watched = index
        do {
            let trimmed = try persistent.save(records, fields: fields, removing: keys, used: used, keeping: KeptRecords { watched[$0] != nil })
            if trimmed > 0 { logger.debug("the persistent cache trimmed \(trimmed) least recently used records to stay within its size") }
        } catch {
            persistenceFailed(error, while: "writing")
        }
    }

    private func persistenceFailed(_ error: any Error, while action: String) {
        logger.warning(
            "The persistent cache failed while \(action) and is set aside; the cache goes on in memory only.",
            metadata: ["error": "\(error)"])
        persistent = nil
        tracksUse = false
    }

    // MARK: Roots

    /// Loads what the persistent store has of a root that memory holds only in part, under what
    /// memory has (memory is never older).
    private func completeRoot(_ key: String) {
        guard partialRoots.remove(key) != nil, let persistent else { return }
        do {
            guard let stored = try persistent.load([key])[key] else { return }
            var root = records[key] ?? stored
            root.fill(from: stored)
            keep(root)
        } catch {
            persistenceFailed(error, while: "reading")
        }
    }

    /// Before a read from a root: the fields its selections name that memory lacks, from the
    /// persistent store (a root not in memory at all starts as an empty part).
    private func loadRootFields(_ key: String, selections: [Selection], variables: JSONObject) {
        guard let persistent, !absent.contains(key) else { return }
        if records[key] == nil {
            keep(CacheRecord(key: key, fields: [:], receivedAt: .distantPast))
            partialRoots.insert(key)
        }
        guard partialRoots.contains(key), var root = records[key] else { return }
        // Every field the selections could select at the root (loading one too many costs little;
        // one too few would be a miss).
        let missing = Selection.fields(of: selections).map { CacheNaming.storageKey($0, variables: variables) }.filter { root.fields[$0] == nil }
        guard !missing.isEmpty else { return }
        do {
            guard let found = try persistent.loadFields(missing, of: key) else { return }
            root.fill(from: found)
            keep(root)
        } catch {
            persistenceFailed(error, while: "reading")
        }
    }

    /// A record for a read: a root as far as memory has it (``loadRootFields`` brought what the
    /// read selects), any other record as ``record(_:)`` finds it.
    private func readRecord(_ key: String) -> CacheRecord? {
        if CacheNaming.isRoot(key), let root = records[key] {
            noteUse(of: key)
            return root
        }
        return record(key)
    }

    // MARK: Optimistic layers

    /// Lays `records` (fields by record key) over the cache until ``removeLayer(_:)``; answers the
    /// layer's id. Watchers of those records are told.
    package func addLayer(_ records: [String: JSONObject]) -> UInt64 {
        nextLayerID += 1
        layers.append((nextLayerID, records))
        for key in records.keys { layeredKeys[key, default: 0] += 1 }
        notify(Set(records.keys))
        return nextLayerID
    }

    /// Takes an optimistic layer away (the others and the records under them stay); watchers of
    /// its records are told. A layer already gone is no error.
    package func removeLayer(_ id: UInt64) {
        notify(dropLayer(id))
    }

    /// How many optimistic layers lie over the cache.
    package var layerCount: Int { layers.count }

    /// Takes a layer out; answers the keys it touched.
    private func dropLayer(_ id: UInt64) -> Set<String> {
        guard let position = layers.firstIndex(where: { $0.id == id }) else { return [] }
        let keys = Set(layers.remove(at: position).records.keys)
        for key in keys {
            layeredKeys[key]? -= 1
            if layeredKeys[key] == 0 { layeredKeys[key] = nil }
        }
        return keys
    }

    /// A record as reads see it: the cache's, with the fields of every layer that touches it on
    /// top, oldest layer first.
    private func layeredRecord(_ key: String) -> CacheRecord? {
        let base = readRecord(key)
        guard !layeredKeys.isEmpty, layeredKeys[key] != nil else { return base }
        var record = base ?? CacheRecord(key: key, fields: [:], receivedAt: now())
        for layer in layers {
            if let fields = layer.records[key] { record.fields.merge(fields) { _, layered in layered } }
        }
        return record
    }

    // MARK: Transactions

    /// Runs `work` on the store with nothing else in between.
    package func transaction<T: Sendable>(_ work: @Sendable (isolated NormalizedStore) -> T) -> T {
        work(self)
    }

    /// Merges `incoming` if reading `selection` (without optimistic layers) still gives
    /// `expected`: the write of a read-change-write that no other write came into. Answers
    /// whether it merged.
    package func merge(_ incoming: [String: JSONObject], ifStill expected: JSONObject, at selection: CacheSelection) -> Bool {
        guard read(selection, layered: false).data == expected else { return false }
        merge(incoming)
        return true
    }

    // MARK: Reading

    /// Reads `selections` from the record at `key`; `nil` on a miss. With `requestMaxAge`
    /// (or per-type maximum ages) it also says whether any record read was expired, and whether
    /// an optimistic layer lay over any (without `layered`, layers are not read).
    package func read(
        key: String, selections: [Selection], parent: ParentType, variables: JSONObject, requestMaxAge: Duration?, layered: Bool = true
    ) -> CacheRead {
        collectIfOpening()
        if CacheNaming.isRoot(key) { loadRootFields(key, selections: selections, variables: variables) }
        let withLayers = layered && !layers.isEmpty
        var reader = CacheReader(
            variables: variables, now: now(), lookup: { withLayers ? self.layeredRecord($0) : self.readRecord($0) },
            prefetch: { self.preload($0, followingReferences: true) }, isExpired: { self.isExpired($0, requestMaxAge: requestMaxAge) })
        defer {
            // Uses are saved with the next write, or now when many have gathered.
            if usedSinceSave.count >= 1_000 { persist([], removing: []) }
            evictIfOverLimit()
        }
        let data = try? reader.read(key: key, selections: selections, parent: parent)
        let optimistic = withLayers && reader.dependencies.contains { layeredKeys[CacheNaming.recordKey(ofDependency: $0)] != nil }
        return CacheRead(data: data, dependencies: reader.dependencies, stale: reader.sawExpired, optimistic: optimistic)
    }

    /// Reads a selection from its record.
    package func read(_ selection: CacheSelection, layered: Bool = true) -> CacheRead {
        read(
            key: selection.key, selections: selection.selections, parent: selection.parent, variables: selection.variables, requestMaxAge: nil,
            layered: layered)
    }

    /// Reads an operation's data from its root record: `read(key:…)` for a whole operation.
    package func read<Operation: GraphQLOperation>(_ operation: Operation.Type, variables: JSONObject, requestMaxAge: Duration?)
        -> CacheRead
    {
        read(
            key: CacheNaming.rootKey(for: Operation.operationType), selections: Operation.Data.__selections,
            parent: Operation.Data.__parentType, variables: variables, requestMaxAge: requestMaxAge)
    }

    // MARK: Watchers

    /// Registers a watcher that depends on `dependencies`; `refresh` reads again and answers the
    /// new dependencies. Answers the watcher's id.
    package func addWatcher(dependencies: Set<String>, refresh: @escaping Refresh) -> UInt64 {
        nextWatcherID += 1
        let id = nextWatcherID
        watchers[id] = (dependencies, refresh)
        for key in dependencies { index[key, default: []].insert(id) }
        return id
    }

    /// Replaces a watcher's dependencies.
    package func setDependencies(_ dependencies: Set<String>, of id: UInt64) {
        guard let watcher = watchers[id] else { return }
        for key in watcher.dependencies.subtracting(dependencies) {
            index[key]?.remove(id)
            if index[key]?.isEmpty == true { index[key] = nil }
        }
        for key in dependencies.subtracting(watcher.dependencies) { index[key, default: []].insert(id) }
        watchers[id]?.dependencies = dependencies
    }

    /// Removes a watcher.
    package func removeWatcher(_ id: UInt64) {
        guard let watcher = watchers.removeValue(forKey: id) else { return }
        for key in watcher.dependencies {
            index[key]?.remove(id)
            if index[key]?.isEmpty == true { index[key] = nil }
        }
    }

    /// How many records are in memory, and what they cost against the memory limit (0 without one).
    package var memoryFootprint: (records: Int, cost: Int) { (records.count, memoryCost) }

    /// How many watchers are registered, and how many record keys the index holds.
    package var watcherCounts: (watchers: Int, indexedKeys: Int) { (watchers.count, index.count) }

    /// Wakes the watchers of the keys changed. A root record named whole (an update, a removal,
    /// a collection) wakes every watcher of any of its fields.
    private func notify(_ changed: Set<String>) {
        guard !changed.isEmpty, !index.isEmpty else { return }
        var woken: Set<UInt64> = []
        for key in changed {
            if let ids = index[key] { woken.formUnion(ids) }
            if CacheNaming.isRoot(key) {
                let prefix = CacheNaming.fieldDependency(key, "")
                for (dependency, ids) in index where dependency.hasPrefix(prefix) { woken.formUnion(ids) }
            }
        }
        for id in woken.sorted() {
            guard let watcher = watchers[id] else { continue }
            rereadCount += 1
            setDependencies(watcher.refresh(self), of: id)
        }
    }
}

/// What to read from the cache: selections on the record with a key, under variables.
package struct CacheSelection: Sendable {
    package var key: String
    package var selections: [Selection]
    package var parent: ParentType
    package var variables: JSONObject
}

/// What a read of the cache found.
package struct CacheRead: Sendable {
    /// The data, or `nil` on a miss.
    package var data: JSONObject?
    /// The keys of the records read (or missed), which a watcher depends on.
    package var dependencies: Set<String>
    /// Whether a record read was past its maximum age, or a field past its server's.
    package var stale: Bool
    /// Whether an optimistic layer lay over a record read.
    package var optimistic: Bool
}

extension CacheConfiguration.MemoryLimit {
    /// The most records, or bytes, the memory layer holds.
    var maximum: Int {
        switch self {
        case .records(let count): return count
        case .bytes(let bytes): return bytes
        }
    }

    /// What a record counts against this limit.
    func cost(of record: CacheRecord) -> Int {
        switch self {
        case .records: return 1
        case .bytes: return NormalizedStore.estimatedBytes(of: record)
        }
    }
}
