import APICore
import APICoreSupport
import Foundation

/// The records in memory and the optimistic layers over them, shared by the store with readers
/// that cannot wait for it (a view's first frame). Only the store writes them, holding the lock;
/// the store reads them without it (no write can run beside its own reads); any other reader
/// holds it (``read(_:)``).
final class RecordsInMemory: @unchecked Sendable {
    private let lock = NSLock()
    /// The records in memory, by key. Written only by the store, holding the lock.
    var records: [String: CacheRecord] = [:]
    /// The optimistic layers. Written only by the store, holding the lock.
    var layers: OptimisticLayers

    init(layers: OptimisticLayers) {
        self.layers = layers
    }

    /// Takes the lock, for a change by the store.
    func lockForWriting() { lock.lock() }

    /// Gives back what ``lockForWriting()`` took.
    func unlockAfterWriting() { lock.unlock() }

    /// Changes the records holding the lock once, for many changes in a row.
    func changeRecords<T>(_ body: (inout [String: CacheRecord]) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&records)
    }

    /// Reads the records and layers holding the lock: from outside the store.
    func read<T>(_ body: (_ records: [String: CacheRecord], _ layers: OptimisticLayers) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(records, layers)
    }
}
