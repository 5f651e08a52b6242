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
package actor NormalizedStore {
    /// A watcher's way to read again: it runs inside the store, with the store's records.
    package typealias Refresh = @Sendable (_ store: isolated NormalizedStore) -> Set<String>

    private var records: [String: CacheRecord] = [:]
    /// Keys known to be in no store, so a miss does not ask SQLite again and again.
    private var absent: Set<String> = []
    private var persistent: (any PersistentRecordStore)?
    private let logger: Logger
    private let maxAgeByType: [String: Duration]
    private let now: @Sendable () -> Date
    private let garbageCollection: CacheConfiguration.GarbageCollection?
    /// Whether the collection on open is still to come.
    private var collectsOnOpen: Bool
    private var writesSinceCollection = 0

    private var watchers: [UInt64: (dependencies: Set<String>, refresh: Refresh)] = [:]
    private var index: [String: Set<UInt64>] = [:]
    private var nextWatcherID: UInt64 = 0
    /// How many times watchers have read the store again after a write (for the benchmark).
    package private(set) var rereadCount = 0

    package init(
        persistent: (any PersistentRecordStore)?, maxAgeByType: [String: Duration] = [:],
        garbageCollection: CacheConfiguration.GarbageCollection? = nil, logger: Logger, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.persistent = persistent
        self.maxAgeByType = maxAgeByType
        self.garbageCollection = garbageCollection
        self.collectsOnOpen = garbageCollection?.onOpen ?? false
        self.logger = logger
        self.now = now
    }

    // MARK: Records

    /// The record with this key, from memory or the persistent store.
    package func record(_ key: String) -> CacheRecord? {
        if let record = records[key] { return record }
        if absent.contains(key) { return nil }
        guard let persistent else { return nil }
        do {
            if let record = try persistent.load([key])[key] {
                records[key] = record
                return record
            }
        } catch {
            persistenceFailed(error, while: "reading")
        }
        absent.insert(key)
        return nil
    }

    /// Whether a record is older than its type's (or the request's) maximum age, by more than
    /// `staleness`.
    package func isExpired(_ record: CacheRecord, requestMaxAge: Duration?, beyond staleness: Duration = .zero) -> Bool {
        let typename = record.fields["__typename"]?.stringValue
        guard let maxAge = requestMaxAge ?? typename.flatMap({ maxAgeByType[$0] }) else { return false }
        let limit = maxAge + staleness
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        return now().timeIntervalSince(record.receivedAt) > seconds
    }

    /// Merges records into the cache; answers the keys whose fields changed, and wakes their watchers.
    @discardableResult
    package func merge(_ incoming: [String: JSONObject]) -> Set<String> {
        collectIfOpening()
        let receivedAt = now()
        var changed: Set<String> = []
        var touched: [CacheRecord] = []
        touched.reserveCapacity(incoming.count)
        preload(Array(incoming.keys))
        for (key, fields) in incoming {
            var record = records[key] ?? CacheRecord(key: key, fields: [:], receivedAt: receivedAt)
            var recordChanged = records[key] == nil
            for (name, value) in fields where record.fields[name] != value {
                record.fields[name] = value
                recordChanged = true
            }
            record.receivedAt = receivedAt
            records[key] = record
            absent.remove(key)
            touched.append(record)
            if recordChanged { changed.insert(key) }
        }
        persist(touched, removing: [])
        notify(changed)
        writesSinceCollection += touched.count
        if let policy = garbageCollection, let limit = policy.afterWrites, writesSinceCollection >= limit {
            collectAutomatically(policy, because: "after \(writesSinceCollection) records written")
        }
        return changed
    }

    /// Replaces one record's fields by what `update` makes of them.
    package func update(_ key: String, _ update: (inout JSONObject) -> Void) {
        var fields = record(key)?.fields ?? [:]
        let before = fields
        update(&fields)
        guard fields != before else { return }
        let updated = CacheRecord(key: key, fields: fields, receivedAt: now())
        records[key] = updated
        absent.remove(key)
        persist([updated], removing: [])
        notify([key])
    }

    /// Removes one record.
    package func remove(_ key: String) {
        records[key] = nil
        absent.insert(key)
        persist([], removing: [key])
        notify([key])
    }

    /// Removes every record, in memory and in the persistent store.
    package func removeAll() {
        let keys = Set(records.keys).union(index.keys)
        records = [:]
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

    /// Removes records past their type's maximum age by more than `maxStaleness`, then fields that
    /// refer to records that do not exist (those just removed included), then records that no
    /// root record (query, mutation, subscription) reaches; records that watchers read are roots
    /// too, and are never removed. In memory and in the persistent store, whose records are all
    /// read first; watchers of records that lost a field are told.
    package func collectGarbage(maxStaleness: Duration) -> CacheCollection {
        collectsOnOpen = false
        writesSinceCollection = 0
        if let persistent {
            do {
                for record in try persistent.loadAll() where records[record.key] == nil { records[record.key] = record }
            } catch {
                persistenceFailed(error, while: "collecting garbage")
            }
        }
        absent = []
        var collection = CacheCollection()
        let watched = Set(watchers.values.lazy.flatMap(\.dependencies))
        var removed: [String] = []

        for (key, record) in records where !watched.contains(key) && isExpired(record, requestMaxAge: nil, beyond: maxStaleness) {
            removed.append(key)
        }
        for key in removed { records[key] = nil }
        collection.expiredRecords = removed.count

        var changed: [String] = []
        for (key, record) in records {
            let dangling = record.fields.filter { Self.refersToMissing($0.value, in: records) }.map(\.key)
            guard !dangling.isEmpty else { continue }
            for name in dangling { records[key]?.fields[name] = nil }
            collection.danglingReferences += dangling.count
            changed.append(key)
        }

        var reachable: Set<String> = []
        var pending = [CacheNaming.queryRoot, CacheNaming.mutationRoot, CacheNaming.subscriptionRoot] + Array(watched)
        while let key = pending.popLast() {
            guard reachable.insert(key).inserted, let record = records[key] else { continue }
            for value in record.fields.values { Self.collectReferences(value, into: &pending) }
        }
        let unreachable = records.keys.filter { !reachable.contains($0) }
        for key in unreachable { records[key] = nil }
        collection.unreachableRecords = unreachable.count
        removed += unreachable

        persist(changed.compactMap { records[$0] }, removing: removed)
        notify(Set(changed))
        return collection
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

    /// Whether a field's value holds a reference, at any depth of lists, to a record not in `records`.
    private static func refersToMissing(_ value: JSONValue, in records: [String: CacheRecord]) -> Bool {
        if let key = CacheNaming.referencedKey(value) { return records[key] == nil }
        guard case .array(let items) = value else { return false }
        return items.contains { refersToMissing($0, in: records) }
    }

    /// The keys a field's value refers to, at any depth of lists.
    private static func collectReferences(_ value: JSONValue, into keys: inout [String]) {
        if let key = CacheNaming.referencedKey(value) {
            keys.append(key)
        } else if case .array(let items) = value {
            for item in items { collectReferences(item, into: &keys) }
        }
    }

    /// Loads into memory the records of `keys` that the persistent store has, in one query.
    private func preload(_ keys: [String]) {
        guard let persistent else { return }
        let missing = keys.filter { records[$0] == nil && !absent.contains($0) }
        guard !missing.isEmpty else { return }
        do {
            let loaded = try persistent.load(missing)
            for (key, record) in loaded { records[key] = record }
            for key in missing where loaded[key] == nil { absent.insert(key) }
        } catch {
            persistenceFailed(error, while: "reading")
        }
    }

    private func persist(_ records: [CacheRecord], removing keys: [String]) {
        guard let persistent, !(records.isEmpty && keys.isEmpty) else { return }
        do {
            try persistent.save(records, removing: keys)
        } catch {
            persistenceFailed(error, while: "writing")
        }
    }

    private func persistenceFailed(_ error: any Error, while action: String) {
        logger.warning(
            "The persistent cache failed while \(action) and is set aside; the cache goes on in memory only.",
            metadata: ["error": "\(error)"])
        persistent = nil
    }

    // MARK: Reading

    /// Reads `selections` from the record at `key`; `nil` on a miss. With `requestMaxAge`
    /// (or per-type maximum ages) it also says whether any record read was expired.
    package func read(
        key: String, selections: [Selection], parent: ParentType, variables: JSONObject, requestMaxAge: Duration?
    ) -> (data: JSONObject?, dependencies: Set<String>, stale: Bool) {
        collectIfOpening()
        var reader = CacheReader(
            variables: variables, lookup: { self.record($0) }, prefetch: { self.preload($0) },
            isExpired: { self.isExpired($0, requestMaxAge: requestMaxAge) })
        do {
            let data = try reader.read(key: key, selections: selections, parent: parent)
            return (data, reader.dependencies, reader.sawExpired)
        } catch {
            return (nil, reader.dependencies, reader.sawExpired)
        }
    }

    /// Reads an operation's data from its root record: `read(key:…)` for a whole operation.
    package func read<Operation: GraphQLOperation>(_ operation: Operation.Type, variables: JSONObject, requestMaxAge: Duration?)
        -> (data: JSONObject?, dependencies: Set<String>, stale: Bool)
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

    /// How many watchers are registered, and how many record keys the index holds.
    package var watcherCounts: (watchers: Int, indexedKeys: Int) { (watchers.count, index.count) }

    private func notify(_ changed: Set<String>) {
        guard !changed.isEmpty, !index.isEmpty else { return }
        var woken: Set<UInt64> = []
        for key in changed {
            if let ids = index[key] { woken.formUnion(ids) }
        }
        for id in woken.sorted() {
            guard let watcher = watchers[id] else { continue }
            rereadCount += 1
            setDependencies(watcher.refresh(self), of: id)
        }
    }
}
