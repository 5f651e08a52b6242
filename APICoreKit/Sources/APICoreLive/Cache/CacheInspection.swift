@_spi(Engine) @_spi(Generated) import APICore
import APICoreSupport
import Foundation

// What the normalized store holds, for people and tools: the summary, one record with its
// watchers, the keys a pattern names.
extension NormalizedStore {
    // MARK: Summary

    /// How many records there are, by type, the oldest, and the sizes in memory and on disk; a
    /// persistent store counts its records itself (none is read into memory).
    package func summary() -> CacheSummary {
        var byType: [String: Int] = [:]
        var oldest: Date?
        var bytesInMemory = 0
        // Memory writes through to the persistent store, which then counts every record itself.
        let persisted = persistence.typeCounts()
        for record in records.values {
            bytesInMemory += MemoryBudget.estimatedBytes(of: record)
            guard persisted == nil else { continue }
            byType[record.fields["__typename"]?.stringValue ?? (CacheNaming.isRoot(record.key) ? record.key : "(untyped)"), default: 0] += 1
            if oldest.map({ record.receivedAt < $0 }) ?? true { oldest = record.receivedAt }
        }
        if let persisted {
            byType = persisted.byType
            oldest = persisted.oldest
        }
        return CacheSummary(
            records: byType.values.reduce(0, +), recordsByType: byType, oldest: oldest, bytesOnDisk: persistence.bytesOnDisk(),
            bytesInMemory: bytesInMemory, recordsInMemory: records.count, watchers: watchers.counts.watchers)
    }

    // MARK: Inspection

    /// One record with its expiry and watchers, for ``CacheMaintenance/inspect(_:)``; reading it
    /// counts as a use.
    package func inspect(_ key: String) -> CacheRecordDetails? {
        guard let record = record(key) else { return nil }
        return CacheRecordDetails(
            key: key, typename: record.fields["__typename"]?.stringValue, fields: record.fields, receivedAt: record.receivedAt,
            expires: record.expires, watchers: watchers.labels(ofWatchersOf: key))
    }

    /// The keys `pattern` names (a type name, or a key pattern with `*`), sorted, at most `limit`.
    package func keys(matching pattern: String, limit: Int) -> [String] {
        for key in persistence.partialRoots { completeRoot(key) }
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
}
