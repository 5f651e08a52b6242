@_spi(Generated) import APICore
import Foundation

// The normalized store's upkeep: garbage collection (on demand, on open, after a number of writes)
// and the summary of what it holds.
extension NormalizedStore {
    /// Removes records past their type's maximum age by more than `maxStaleness`, and fields past
    /// the maximum age their server gave them by as much; then fields that refer to records that
    /// do not exist (those just removed included), then records that the query root does not
    /// reach. Records that watchers read, and those optimistic layers lie
    /// over, are roots too: they are never removed and keep their expired fields (a dangling
    /// reference goes from them too). In memory
    /// and in the persistent store, whose records are all read first; watchers of records that
    /// lost a field are told.
    package func collectGarbage(maxStaleness: Duration) -> CacheCollection {
        collectsOnOpen = false
        writesSinceCollection = 0
        for key in partialRoots { completeRoot(key) }
        for record in persistence.loadAll(while: "collecting garbage") where records[record.key] == nil { keep(record) }
        absent = []
        var collection = CacheCollection()
        // What watchers read, and what optimistic layers lie over (a queued mutation's, perhaps
        // for days), is kept as roots are.
        let watched = Set(watchers.dependencies).union(layers.keys)
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
        // The query root only: nothing reads the mutation and subscription roots, which the cache
        // no longer keeps (a store an earlier version wrote may hold them: they go now).
        var pending = [RootRecordKey.query] + Array(watched)
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
            records[key].flatMap { CacheNaming.isRoot(key) ? PersistenceBridge.changes(of: $0, setting: [], removing: fields) : nil }
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
        for record in persistence.loadAll(while: "reading") where records[record.key] == nil { add(record) }
        var bytesInMemory = 0
        for record in records.values {
            add(record)
            bytesInMemory += MemoryBudget.estimatedBytes(of: record)
        }
        return CacheSummary(
            records: count, recordsByType: byType, oldest: oldest, bytesOnDisk: persistence.bytesOnDisk(), bytesInMemory: bytesInMemory,
            recordsInMemory: records.count, watchers: watchers.counts.watchers)
    }

    // MARK: Inspection

    /// One record with its expiry and watchers, for ``GraphQLCache/inspect(_:)``; reading it
    /// counts as a use.
    package func inspect(_ key: String) -> CacheRecordDetails? {
        guard let record = record(key) else { return nil }
        return CacheRecordDetails(
            key: key, typename: record.fields["__typename"]?.stringValue, fields: record.fields, receivedAt: record.receivedAt,
            expires: record.expires, watchers: watchers.labels(ofWatchersOf: key))
    }

    /// The keys `pattern` names (a type name, or a key pattern with `*`), sorted, at most `limit`.
    package func keys(matching pattern: String, limit: Int) -> [String] {
        for key in partialRoots { completeRoot(key) }
        let matches: (CacheRecord) -> Bool
        if pattern.contains("*") || pattern.contains(":") {
            let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
            matches = { Self.key($0.key, matches: parts) }
        } else {
            matches = { $0.fields["__typename"]?.stringValue == pattern || $0.key == pattern }
        }
        var found = Set(records.values.lazy.filter(matches).map(\.key))
        for record in persistence.loadAll(while: "reading") where records[record.key] == nil && matches(record) { found.insert(record.key) }
        return Array(found.sorted().prefix(max(0, limit)))
    }

    /// Whether `key` is the parts of a pattern (split at its `*`s) with anything between them.
    static func key(_ key: String, matches parts: [String]) -> Bool {
        guard let first = parts.first, let last = parts.last, key.hasPrefix(first) else { return false }
        if parts.count == 1 { return key == first }
        var rest = key.dropFirst(first.count)
        for middle in parts.dropFirst().dropLast() {
            guard let range = rest.range(of: middle) else { return false }
            rest = rest[range.upperBound...]
        }
        return rest.hasSuffix(last)
    }

    /// The collection on open, the first time the cache is used.
    func collectIfOpening() {
        guard collectsOnOpen, let policy = garbageCollection else { return }
        collectAutomatically(policy, because: "on open")
    }

    func collectAutomatically(_ policy: CacheConfiguration.GarbageCollection, because reason: String) {
        let collection = collectGarbage(maxStaleness: policy.maxStaleness)
        logger.debug("cache garbage collection \(reason): \(collection)")
    }

    /// The keys a field's value refers to, at any depth of lists.
    static func collectReferences(_ value: JSONValue, into keys: inout [String]) {
        if let key = CacheNaming.referencedKey(value) {
            keys.append(key)
        } else if case .array(let items) = value {
            for item in items { collectReferences(item, into: &keys) }
        }
    }
}
