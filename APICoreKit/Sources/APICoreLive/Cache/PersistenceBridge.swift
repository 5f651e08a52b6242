@_spi(Generated) import APICore
import APICoreSupport
import Foundation
import Logging

/// The normalized store's way to its persistent store (SQLite). Saves go to a ``PersistentWriter``
/// that writes them behind the store; reads of what it has not written yet wait for it. A failure
/// of the persistent store sets it aside, said once in the log, and the cache goes on in memory
/// only: every call here is then a no-op, and none throws. It also gathers the records reads used
/// since the last save, for a persistent store that trims by use. A store opened read-only is
/// read and followed, never written: saves and removals stay in memory.
struct PersistenceBridge {
    private var store: (any PersistentRecordStore)?
    /// Writes the saves behind the store.
    private(set) var writer: PersistentWriter?
    private let logger: Logger
    /// The records used since the last save, for a persistent store that trims by use.
    private var usedSinceSave: Set<String> = []
    private var tracksUse: Bool
    /// Keys known to be in no store, so that a miss does not ask the persistent store again and
    /// again (forgotten when written, and when a collection begins).
    private var absent: Set<String> = []
    /// Roots of which memory holds only some fields; the rest are in the persistent store.
    private(set) var partialRoots: Set<String> = []
    /// How far this client has read the store's log of other clients' changes, when, and the
    /// store's commit version then.
    private var changesRead: Int64?
    private var lastLook = ContinuousClock.now
    private var versionRead: Int64?

    init(_ store: (any PersistentRecordStore)?, readOnly: Bool = false, logger: Logger) {
        // What another client of the same file in this process still has to write is there first.
        PersistentWriter.waitForWriters(of: store?.location)
        self.store = store
        // Without a writer, nothing is saved or removed (``save(_:fields:removing:unlessWrittenSince:keeping:)``, ``removeAll()``).
        self.writer = readOnly ? nil : store.map { PersistentWriter(store: $0) }
        self.tracksUse = !readOnly && store?.tracksUse == true
        self.logger = logger
        // Memory holds nothing yet: what others write from now on is what it must hear of.
        self.changesRead = try? store?.changes(after: nil).position
    }

    /// What other clients of the persistent store (other processes on the file) changed since
    /// the last call; `nil` without a store, or when it failed.
    mutating func othersChanges() -> StoreChanges? {
        lastLook = ContinuousClock.now
        // No client committed since the last look: nothing to read.
        let version = store?.commitVersion()
        if let version, version == versionRead, let changesRead { return StoreChanges(position: changesRead) }
        versionRead = version
        let position = changesRead
        guard let changes = attempt("reading what other clients wrote", keys: [], { try $0.changes(after: position) }) else { return nil }
        changesRead = changes.position
        // A key another client wrote may be there now.
        if changes.everything { absent = [] } else if !absent.isEmpty { absent.subtract(changes.keys) }
        return changes
    }

    /// Whether there is a persistent store (not set aside).
    var isActive: Bool { store != nil }

    /// The persistent store's commit version, for a look that needs no hop onto the store.
    var commitVersion: (@Sendable () -> Int64?)? {
        guard let store else { return nil }
        return { store.commitVersion() }
    }

    /// Whether a read should look at other clients' changes first: there is a persistent store,
    /// and the last look is ``NormalizedStore/othersLookInterval`` old (OtherWriters.swift).
    func othersLookDue() -> Bool {
        store != nil && ContinuousClock.now - lastLook >= NormalizedStore.othersLookInterval
    }

    /// Whether the persistent store may have `key`: there is one, and it was not found lacking.
    func mayHave(_ key: String) -> Bool { store != nil && !absent.contains(key) }

    /// `key` is in no store.
    mutating func noteAbsent(_ key: String) { absent.insert(key) }

    /// `key` was written: it is no longer known absent.
    mutating func noteWritten(_ key: String) {
        if !absent.isEmpty { absent.remove(key) }
    }

    /// Forgets what was found absent (a collection begins; another client may have written since).
    mutating func forgetAbsent() { absent = [] }

    /// Memory starts to hold part of the root `key`, of which the persistent store may hold more.
    mutating func notePartialRoot(_ key: String) {
        if mayHave(key) { partialRoots.insert(key) }
    }

    /// Whether memory holds only part of the root `key`.
    func isPartialRoot(_ key: String) -> Bool { partialRoots.contains(key) }

    /// Memory holds the whole root `key` now, or none of it; answers whether it held a part.
    @discardableResult
    mutating func forgetPartialRoot(_ key: String) -> Bool { partialRoots.remove(key) != nil }

    /// The records of `keys` that the persistent store has; `nil` without one, or when it failed.
    mutating func load(_ keys: [String]) -> [String: CacheRecord]? {
        attempt("reading", keys: keys) { try $0.load(keys) }
    }

    /// The fields `names` of the record `key`, as far as the persistent store has them.
    mutating func loadFields(_ names: [String], of key: String) -> CacheRecord? {
        attempt("reading", keys: [key]) { try $0.loadFields(names, of: key) } ?? nil
    }

    /// Every record of the persistent store (none without one).
    mutating func loadAll(while action: String) -> [CacheRecord] {
        attempt(action) { try $0.loadAll() } ?? []
    }

    /// The persistent store's records by type and the oldest receipt; `nil` without a store.
    mutating func typeCounts() -> (byType: [String: Int], oldest: Date?)? {
        attempt("reading") { try $0.typeCounts() }
    }

    /// Up to `limit` records kept whole, in key order, after `key`; none without a store.
    mutating func records(after key: String?, limit: Int) -> [CacheRecord] {
        attempt("collecting garbage") { try $0.records(after: key, limit: limit) } ?? []
    }

    /// Up to `limit` keys of records kept whole and received by `date`, in key order, after
    /// `key`; none without a store.
    mutating func keys(after key: String?, receivedBy date: Date, limit: Int) -> [String] {
        attempt("collecting garbage") { try $0.keys(after: key, receivedBy: date, limit: limit) } ?? []
    }

    /// The keys of the roots the persistent store has.
    mutating func rootKeys() -> [String] {
        attempt("collecting garbage") { try $0.rootKeys() } ?? []
    }

    /// The names of the fields the persistent store has of a root.
    mutating func fieldNames(of key: String) -> [String] {
        attempt("collecting garbage") { try $0.fieldNames(of: key) } ?? []
    }

    /// The fields of a root in the persistent store whose expiry is before `date`.
    mutating func fieldsExpired(of key: String, before date: Date) -> [String] {
        attempt("collecting garbage") { try $0.fieldsExpired(of: key, before: date) } ?? []
    }

    /// Those of `keys` the persistent store has.
    mutating func existing(_ keys: [String]) -> Set<String> {
        guard !keys.isEmpty else { return [] }
        return attempt("collecting garbage") { try $0.existing(keys) } ?? []
    }

    /// Removes every record (what the writer had queued is written first, then removed); a store
    /// opened read-only keeps them.
    mutating func removeAll() {
        usedSinceSave = []
        absent = []
        partialRoots = []
        guard writer != nil else { return }
        _ = attempt("clearing") { try $0.removeAll() }
    }

    /// A record read, for a store that trims by use.
    mutating func noteUse(of key: String) {
        if tracksUse { usedSinceSave.insert(key) }
    }

    /// Whether many uses have gathered since the last save, which are then saved on their own.
    var hasManyUses: Bool { usedSinceSave.count >= 1_000 }

    /// Saves and removes records (roots by their changed fields), with the records used since the
    /// last save; a store over its size bound trims those `keeping` does not keep. With `since`,
    /// a record to remove that was received after then stays.
    mutating func save(_ records: [CacheRecord], fields: [FieldChanges] = [], removing keys: [String], unlessWrittenSince since: Date? = nil, keeping: KeptRecords) {
        guard store != nil, !(records.isEmpty && fields.isEmpty && keys.isEmpty && usedSinceSave.isEmpty) else { return }
        let used = Array(usedSinceSave)
        usedSinceSave = []
        guard takeWriterOutcome(), let writer else { return }
        writer.enqueue(PersistentWriter.Save(
            records: records, fields: fields, removing: keys, unlessWrittenSince: since, used: used, keeping: keeping))
    }

    /// What the writer met since the last call: records it trimmed (logged), or a failure, which
    /// sets the persistent store aside as a failed call here does. Answers whether the store is
    /// still there.
    @discardableResult
    mutating func takeWriterOutcome() -> Bool {
        guard let writer else { return store != nil }
        let (failure, trimmed) = writer.takeOutcome()
        if trimmed > 0 { logger.debug("the persistent cache trimmed \(trimmed) least recently used records to stay within its size") }
        guard let failure else { return store != nil }
        setAside(while: "writing", failure)
        return false
    }

    /// The size of the persistent store's files, when it has them.
    func bytesOnDisk() -> Int? {
        writer?.waitUntilWritten()
        return store?.bytesOnDisk()
    }

    /// A root record's change for the persistent store, which keeps roots field by field: the
    /// fields `set` with their values and expiry, and the fields removed.
    static func changes(of record: CacheRecord, setting set: some Sequence<String>, removing removed: [String] = []) -> FieldChanges {
        var changes = FieldChanges(key: record.key, set: [:], removed: removed, receivedAt: record.receivedAt)
        for name in set {
            guard let value = record.fields[name] else { continue }
            changes.set[name] = value
            if let expiry = record.expires[name] { changes.expires[name] = expiry }
        }
        return changes
    }

    /// `body` on the persistent store; `nil` without one, or when it threw (then it is set aside).
    /// It reads what the writer has written: with `keys`, after the saves still queued for them;
    /// without, after every save queued (a scan, a removal).
    private mutating func attempt<T>(_ action: String, keys: [String]? = nil, _ body: (any PersistentRecordStore) throws -> T) -> T? {
        guard takeWriterOutcome(), let store else { return nil }
        if let writer, keys.map({ writer.isPending($0) }) ?? true {
            writer.waitUntilWritten()
            guard takeWriterOutcome() else { return nil }
        }
        do {
            return try body(store)
        } catch {
            setAside(while: action, error)
            return nil
        }
    }

    /// After a failure: the cache goes on in memory only, as the log says once.
    private mutating func setAside(while action: String, _ error: any Error) {
        logger.warning(
            "The persistent cache failed while \(action) and is set aside; the cache goes on in memory only.",
            metadata: ["error": "\(error)"])
        store = nil
        writer = nil
        tracksUse = false
        usedSinceSave = []
        partialRoots = []
    }
}
