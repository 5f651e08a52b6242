import APICore
import APICoreSupport
import Foundation

/// Writes the normalized store's changes to its persistent store behind it (write-behind): a
/// write returns, and its watchers are told, once memory holds it; a queue of its own saves it a
/// moment later, in order, what waits together in one transaction. How far it may lag is bounded
/// (``maxPendingRecords``): past that, a save waits for the queue. A kill loses at most what
/// waits; SQLite's transactions keep the file whole.
///
/// Reads of the persistent store stay right: a read of keys with a change still waiting waits for
/// it, as does any read that scans the store; a store opened on the same file (another client in
/// the process) first waits for the writers already writing it (``waitForWriters(of:)``).
final class PersistentWriter: @unchecked Sendable {
    /// One save, as the store asked for it.
    struct Save: @unchecked Sendable {
        var records: [CacheRecord]
        var fields: [FieldChanges]
        var removing: [String]
        var unlessWrittenSince: Date?
        var used: [String]
        var keeping: KeptRecords

        var keys: [String] { records.map(\.key) + fields.map(\.key) + removing }
        var size: Int { records.count + fields.count + removing.count + used.count }
    }

    /// How many records (and changes) may wait before a save waits for the queue.
    static let maxPendingRecords = 50_000

    private let store: any PersistentRecordStore
    private let queue = DispatchQueue(label: "APICoreKit.cache-writer", qos: .utility)
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var pending: [Save] = []
    private var pendingSize = 0
    private var writing = false
    /// How many saves waiting (or being written) name each key.
    private var pendingKeys: [String: Int] = [:]
    private var failure: (any Error)?
    private var trimmed = 0

    init(store: any PersistentRecordStore) {
        self.store = store
        if let location = store.location { Self.register(self, at: location) }
    }

    /// Queues a save; waits first while more than ``maxPendingRecords`` wait.
    func enqueue(_ save: Save) {
        condition.lock()
        while pendingSize > Self.maxPendingRecords && failure == nil { condition.wait() }
        guard failure == nil else {
            condition.unlock()
            return
        }
        pending.append(save)
        pendingSize += save.size
        for key in save.keys { pendingKeys[key, default: 0] += 1 }
        let start = !writing
        writing = true
        condition.unlock()
        if start { queue.async { self.drain() } }
    }

    /// Whether a change to any of `keys` is still waiting.
    func isPending(_ keys: some Sequence<String>) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return !pendingKeys.isEmpty && keys.contains { pendingKeys[$0] != nil }
    }

    /// Blocks until every save queued so far is written (or failed).
    func waitUntilWritten() {
        condition.lock()
        while writing { condition.wait() }
        condition.unlock()
    }

    /// Returns once every save queued so far is written, without blocking a thread.
    func written() async {
        // Not on the writer's own queue: a drain queued behind the wait would never run.
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                self.waitUntilWritten()
                continuation.resume()
            }
        }
    }

    /// The error that stopped the writer, once (then saves are dropped: the store is set aside),
    /// and how many records the store trimmed since the last call.
    func takeOutcome() -> (failure: (any Error)?, trimmed: Int) {
        condition.lock()
        defer {
            trimmed = 0
            condition.unlock()
        }
        return (failure, trimmed)
    }

    /// Writes what waits, a batch at a time, until nothing does.
    private func drain() {
        while true {
            condition.lock()
            guard !pending.isEmpty, failure == nil else {
                pending = []
                pendingSize = 0
                pendingKeys = [:]
                writing = false
                condition.broadcast()
                condition.unlock()
                return
            }
            let batch = pending
            pending = []
            condition.unlock()
            var trimmedNow = 0
            var error: (any Error)?
            do {
                // A store that trims by use saves each on its own: what was read between two writes
                // is more recently used than the first, which one transaction could not say.
                for save in store.tracksUse ? batch : Self.coalesced(batch) {
                    trimmedNow += try store.save(
                        save.records, fields: save.fields, removing: save.removing, unlessWrittenSince: save.unlessWrittenSince, used: save.used,
                        keeping: save.keeping)
                }
            } catch let caught {
                error = caught
            }
            condition.lock()
            pendingSize -= batch.reduce(0) { $0 + $1.size }
            for key in batch.flatMap(\.keys) {
                if let count = pendingKeys[key], count > 1 { pendingKeys[key] = count - 1 } else { pendingKeys[key] = nil }
            }
            trimmed += trimmedNow
            if let error { failure = error }
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Saves in order, those that remove nothing joined into one (a later record replaces an
    /// earlier one of the same key, changes to a root's fields apply in order): one transaction
    /// for what waited together. A save that removes (a collection) stays on its own.
    static func coalesced(_ saves: [Save]) -> [Save] {
        var result: [Save] = []
        for save in saves {
            if save.removing.isEmpty, let last = result.last, last.removing.isEmpty {
                result[result.count - 1].records += save.records
                result[result.count - 1].fields += save.fields
                result[result.count - 1].used += save.used
                result[result.count - 1].keeping = save.keeping
            } else {
                result.append(save)
            }
        }
        return result
    }

    // MARK: Writers of one file

    private struct Weak {
        weak var writer: PersistentWriter?
    }

    private static let writers = Locked<[String: [Weak]]>([:])

    private static func register(_ writer: PersistentWriter, at location: String) {
        writers.withLock { writers in
            writers[location] = (writers[location] ?? []).filter { $0.writer != nil } + [Weak(writer: writer)]
        }
    }

    /// Blocks until every writer of the store at `location` in this process has written what it
    /// queued: what another client wrote is there to read.
    static func waitForWriters(of location: String?) {
        guard let location else { return }
        for writer in writers.withLock({ $0[location] ?? [] }).compactMap(\.writer) { writer.waitUntilWritten() }
    }
}
