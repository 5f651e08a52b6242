@_spi(Generated) import APICore
import APICoreSupport
import Foundation

/// What the records in memory cost against the memory limit, and when each was last used, so that
/// the least recently used can be evicted.
struct MemoryBudget {
    let limit: CacheConfiguration.MemoryLimit
    /// When each record was last used, and what it costs.
    private var usage: [String: (lastUse: UInt64, cost: Int)] = [:]
    private var clock: UInt64 = 0
    /// What the records in memory cost, in all.
    private(set) var cost = 0

    init(limit: CacheConfiguration.MemoryLimit) { self.limit = limit }

    /// A record put in memory (new, or replacing the one with its key), used now.
    mutating func kept(_ record: CacheRecord) {
        let recordCost = limit.cost(of: record)
        clock += 1
        cost += recordCost - (usage[record.key]?.cost ?? 0)
        usage[record.key] = (clock, recordCost)
    }

    /// A record taken out of memory.
    mutating func dropped(_ key: String) {
        if let removed = usage.removeValue(forKey: key)?.cost { cost -= removed }
    }

    /// A record read.
    mutating func used(_ key: String) {
        clock += 1
        usage[key]?.lastUse = clock
    }

    mutating func removeAll() {
        usage = [:]
        cost = 0
    }

    /// Past the limit, the least recently used records that `keeps` does not keep, until a tenth
    /// of the limit would be free (so that the sort is paid once per many writes); else none.
    func overLimit(keeping keeps: (String) -> Bool) -> [String] {
        let maximum = limit.maximum
        guard cost > maximum else { return [] }
        var excess = cost - (maximum - maximum / 10)
        var victims: [String] = []
        for (key, use) in usage.filter({ !keeps($0.key) }).sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
            guard excess > 0 else { break }
            victims.append(key)
            excess -= use.cost
        }
        return victims
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
        case .bytes: return MemoryBudget.estimatedBytes(of: record)
        }
    }
}
