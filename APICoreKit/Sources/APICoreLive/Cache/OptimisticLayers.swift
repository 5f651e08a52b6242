import APICore
import APICoreSupport
import Foundation

/// Optimistic layers over the cache's records, oldest first: each lays fields over records until
/// its mutation is answered or fails. Reads see them on top; the persistent store, collection and
/// summary never do.
struct OptimisticLayers {
    private var layers: [(id: UInt64, records: [String: JSONObject])] = []
    /// How many layers touch each record key.
    private var layeredKeys: [String: Int] = [:]
    private var nextID: UInt64 = 0

    /// The layers of queued mutations from an earlier launch, with ids 1, 2, … in order.
    init(restoring layers: [[String: JSONObject]] = []) {
        for records in layers { _ = add(records) }
    }

    /// Lays `records` (fields by record key) over the cache; answers the layer's id.
    mutating func add(_ records: [String: JSONObject]) -> UInt64 {
        nextID += 1
        layers.append((nextID, records))
        for key in records.keys { layeredKeys[key, default: 0] += 1 }
        return nextID
    }

    /// Takes a layer out (a layer already gone is no error); answers the keys it touched.
    mutating func remove(_ id: UInt64) -> Set<String> {
        guard let position = layers.firstIndex(where: { $0.id == id }) else { return [] }
        let keys = Set(layers.remove(at: position).records.keys)
        for key in keys {
            layeredKeys[key]? -= 1
            if layeredKeys[key] == 0 { layeredKeys[key] = nil }
        }
        return keys
    }

    /// Takes every layer out.
    mutating func removeAll() {
        layers = []
        layeredKeys = [:]
    }

    /// How many layers there are.
    var count: Int { layers.count }

    var isEmpty: Bool { layers.isEmpty }

    /// Whether a layer touches the record `key`.
    func covers(_ key: String) -> Bool { layeredKeys[key] != nil }

    /// The keys of the records the layers touch.
    var keys: Dictionary<String, Int>.Keys { layeredKeys.keys }

    /// A record as reads see it: `base`, with the fields of every layer that touches it on top,
    /// oldest layer first (a record only layers hold is made at `now`).
    func lay(_ key: String, over base: CacheRecord?, now: @autoclosure () -> Date) -> CacheRecord? {
        guard covers(key) else { return base }
        var record = base ?? CacheRecord(key: key, fields: [:], receivedAt: now())
        for layer in layers {
            if let fields = layer.records[key] { record.fields.merge(fields) { _, layered in layered } }
        }
        return record
    }
}
