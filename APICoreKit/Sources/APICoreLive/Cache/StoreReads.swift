@_spi(Generated) @_spi(Engine) import APICore
import APICoreSupport
import Foundation

// Reads of the normalized store: an operation's or a fragment's selections, rebuilt from records
// (and the optimistic layers over them) by the `CacheReader`.
extension NormalizedStore {
    /// Reads `selections` from the record at `key`; `nil` on a miss. With `requestMaxAge`
    /// (or per-type maximum ages) it also says whether any record read was expired, and whether
    /// an optimistic layer lay over any (without `layered`, layers are not read).
    ///
    /// A selection that watchers watch (`memoKey`) is read with its ``ReadMemo``: objects whose
    /// records did not change since the last read are taken from it.
    package func read(
        key: String, selections: [Selection], parent: ParentType, variables: JSONObject, requestMaxAge: Duration?, layered: Bool = true,
        partial: Bool = false, memoKey: ReadMemo.Selection? = nil
    ) -> CacheRead {
        collectIfOpening()
        // What another process wrote to the file since the last look is taken in first.
        if persistence.othersLookDue() { takeInOthersChanges() }
        if CacheNaming.isRoot(key) { loadRootFields(key, selections: selections, variables: variables) }
        let withLayers = layered && !layers.isEmpty
        // The memo holds what the records say, not the layers over them.
        // A memo holds what the records say, not the layers over them; a read with a maximum age or
        // a partial one is not the watchers' read.
        let memo = memoKey.flatMap { watchers.memo(for: $0) }
        if withLayers { memo?.forgetAll() }
        let memoUsed = withLayers || partial || requestMaxAge != nil ? nil : memo
        // Nothing the last read read changed since: it is this read too.
        if let last = memoUsed?.lastRead { return last }
        memoUsed?.beginRead()
        var reader = CacheReader(
            variables: variables, now: now(),
            lookup: { key in withLayers ? self.layers.lay(key, over: self.readRecord(key), now: self.now()) : self.readRecord(key) },
            prefetch: { self.preload($0, reading: $1, variables: variables) }, isExpired: { self.isExpired($0, requestMaxAge: requestMaxAge) },
            collectsMisses: partial, memo: memoUsed, mayExpire: { self.mayExpire($0, requestMaxAge: requestMaxAge) })
        defer {
            // Uses are saved with the next write, or now when many have gathered.
            if persistence.hasManyUses { persist([], removing: []) }
            evictIfOverLimit()
        }
        var read = Self.run(&reader, key: key, selections: selections, parent: parent, layers: withLayers ? layers : nil)
        if let memoUsed {
            memoUsed.lastReadDependencies = read.dependencies.keys.count
            // Lists grown at their end, and the records read outside their sets the same as the last
            // read's: this read's records are the last read's and the lists' new ones.
            let version = memoUsed.generation
            let own = reader.grownListAdded.map { reader.dependencies.subtracting($0) } ?? reader.dependencies
            if let added = reader.grownListAdded, let last = memoUsed.lastOwnDependencies, last.keys == own {
                read.dependencies.growth = (last.version, added)
            }
            read.dependencies.version = version
            memoUsed.lastOwnDependencies = (version, own)
            if !reader.readExpirable { memoUsed.lastRead = read }
        }
        return read
    }

    /// What `reader` finds at `key`, and whether one of `layers` lay over a record it read.
    private nonisolated static func run(
        _ reader: inout CacheReader, key: String, selections: [Selection], parent: ParentType, layers: OptimisticLayers?
    ) -> CacheRead {
        let data = try? reader.read(key: key, selections: selections, parent: parent)
        let dependencies = reader.allDependencies
        let optimistic = layers.map { layers in dependencies.contains { layers.covers(CacheNaming.recordKey(ofDependency: $0)) } } ?? false
        return CacheRead(data: data, dependencies: ReadDependencies(dependencies), stale: reader.sawExpired, optimistic: optimistic, misses: reader.misses)
    }

    /// Reads a selection from its record.
    package func read(_ selection: CacheSelection, layered: Bool = true) -> CacheRead {
        read(
            key: selection.key, selections: selection.selections, parent: selection.parent, variables: selection.variables, requestMaxAge: nil,
            layered: layered, memoKey: selection.memoKey)
    }

    /// Reads `selection` from what memory holds, without waiting for the store (for a view's first
    /// frame): `nil` when memory lacks a record or field that the persistent store may have. It
    /// reads the optimistic layers too, and neither loads, notes uses nor evicts.
    nonisolated package func readInMemory(_ selection: CacheSelection, requestMaxAge: Duration?) -> CacheRead? {
        memory.read { records, layers in
            let withLayers = !layers.isEmpty
            let now = now()
            var reader = CacheReader(
                variables: selection.variables, now: now,
                lookup: { key in withLayers ? layers.lay(key, over: records[key], now: now) : records[key] },
                isExpired: { self.isExpired($0, requestMaxAge: requestMaxAge) })
            let read = Self.run(&reader, key: selection.key, selections: selection.selections, parent: selection.parent, layers: withLayers ? layers : nil)
            return read.data == nil ? nil : read
        }
    }

    /// Reads an operation's data from its root record: `read(key:…)` for a whole operation.
    package func read<Operation: GraphQLOperation>(
        _ operation: Operation.Type, variables: JSONObject, requestMaxAge: Duration?, partial: Bool = false
    ) -> CacheRead {
        let key = CacheNaming.rootKey(for: Operation.operationType)
        return read(
            key: key, selections: Operation.Data.__selections, parent: Operation.Data.__parentType, variables: variables,
            requestMaxAge: requestMaxAge, partial: partial,
            memoKey: !watchers.hasMemos ? nil : ReadMemo.Selection(key: key, type: ObjectIdentifier(Operation.Data.self), variables: variables))
    }

    /// Before a read from a root: the fields its selections name that memory lacks, from the
    /// persistent store (a root not in memory at all starts as an empty part).
    private func loadRootFields(_ key: String, selections: [Selection], variables: JSONObject) {
        guard persistence.mayHave(key) else { return }
        if records[key] == nil {
            keep(CacheRecord(key: key, fields: [:], receivedAt: .distantPast))
            persistence.notePartialRoot(key)
        }
        guard persistence.isPartialRoot(key), var root = records[key] else { return }
        // Every field the selections could select at the root (loading one too many costs little;
        // one too few would be a miss).
        let missing = Selection.fields(of: selections).map { CacheNaming.storageKey($0, variables: variables) }.filter { root.fields[$0] == nil }
        guard !missing.isEmpty else { return }
        guard let found = persistence.loadFields(missing, of: key) else { return }
        root.fill(from: found)
        keep(root)
    }

    /// A record for a read: a root as far as memory has it (``loadRootFields`` brought what the
    /// read selects), any other record as ``record(_:)`` finds it.
    func readRecord(_ key: String) -> CacheRecord? {
        if CacheNaming.isRoot(key), let root = records[key] {
            noteUse(of: key)
            return root
        }
        return record(key)
    }
}

/// What to read from the cache: selections on the record with a key, under variables.
package struct CacheSelection: Sendable {
    package var key: String
    package var selections: [Selection]
    package var parent: ParentType
    package var variables: JSONObject
    /// The selection set's type, key and variables, for its ``ReadMemo`` while watched.
    package var memoKey: ReadMemo.Selection?

    /// A selection set's selections on the record at `key`.
    package init(key: String, selections: [Selection], parent: ParentType, variables: JSONObject) {
        self.key = key
        self.selections = selections
        self.parent = parent
        self.variables = variables
    }

    /// `Data`'s selections on the record at `key` (a query's root, a fragment's record).
    package init<Data: SelectionSet>(_: Data.Type, at key: String, variables: JSONObject) {
        self.init(key: key, selections: Data.__selections, parent: Data.__parentType, variables: variables)
        memoKey = ReadMemo.Selection(key: key, type: ObjectIdentifier(Data.self), variables: variables)
    }
}

/// What a read of the cache found.
package struct CacheRead: Sendable {
    /// The data, or `nil` on a miss.
    package var data: JSONObject?
    /// The keys of the records read (or missed), which a watcher depends on.
    package var dependencies: ReadDependencies
    /// Whether a record read was past its maximum age, or a field past its server's.
    package var stale: Bool
    /// Whether an optimistic layer lay over a record read.
    package var optimistic: Bool
    /// For a partial read, the paths of the fields the cache lacks (the data has `null` for them).
    package var misses: [ResponsePath] = []
}

/// The records a read read (or missed), which a watcher depends on; and, for a read of a watched
/// selection that only added to the read before it (a list that grew at its end), what it added,
/// so that the watcher index adds those alone instead of comparing every key.
package struct ReadDependencies: Sendable, ExpressibleByArrayLiteral {
    /// Every record key (or root field) read.
    package var keys: Set<String>
    /// The read's number among its memo's reads; `nil` for a read without a memo.
    package var version: UInt64?
    /// `keys` are the keys of the memo's read `from` and `added`.
    package var growth: (from: UInt64, added: [String])?

    /// The records of a read, and what it added to an earlier one.
    package init(_ keys: Set<String>, version: UInt64? = nil, growth: (from: UInt64, added: [String])? = nil) {
        self.keys = keys
        self.version = version
        self.growth = growth
    }

    /// The records `keys`, of no memo's read.
    package init(arrayLiteral keys: String...) { self.init(Set(keys)) }
}

extension OutputType {
    /// Whether a value of this type may be `null`.
    var allowsNull: Bool {
        if case .nonNull = self { return false }
        return true
    }
}

extension NormalizedStore {
    /// The most records one ``preload(_:reading:variables:)`` loads.
    static let preloadBound = 10_000

    /// Loads from the persistent store what a read of `selectionSet` from the records of `keys`
    /// will read, a level at a time: the level's records that memory lacks in one query, then the
    /// records their selected object fields refer to, and on down (through records memory holds,
    /// without loading them again), up to ``preloadBound`` records. A cold read of GitHub's issues
    /// with their comments and authors made one query per list (about 200); this makes one per
    /// level. Nothing when memory holds every record of `keys`: then the lists below are
    /// prefetched as they are read.
    func preload(_ keys: [String], reading selectionSet: any SelectionSet.Type, variables: JSONObject) {
        guard persistence.isActive else { return }
        var absent = missing(among: keys)
        guard !absent.isEmpty else { return }
        var level = keys.map { (key: $0, selections: selectionSet) }
        var seen = Set(keys.map { PreloadTarget(key: $0, selections: ObjectIdentifier(selectionSet)) })
        var objectFields: [ObjectIdentifier: [(storageKey: String, selections: any SelectionSet.Type)]] = [:]
        var loadedCount = 0
        while true {
            // (A key met twice in a level is asked for twice: `IN` does not mind.)
            guard let loaded = loadMissing(absent) else { return }
            loadedCount += loaded
            var next: [(key: String, selections: any SelectionSet.Type)] = []
            seen.reserveCapacity(seen.count + level.count * 2)
            for target in level {
                guard let record = records[target.key] else { continue }
                let id = ObjectIdentifier(target.selections)
                let fields = objectFields[id] ?? Self.objectFields(of: target.selections, variables: variables)
                objectFields[id] = fields
                for field in fields {
                    guard let value = record.fields[field.storageKey] else { continue }
                    var references: [String] = []
                    CacheNaming.collectReferences(value, into: &references)
                    for reference in references where seen.insert(PreloadTarget(key: reference, selections: ObjectIdentifier(field.selections))).inserted {
                        next.append((reference, field.selections))
                    }
                }
            }
            level = next
            guard !level.isEmpty, loadedCount < Self.preloadBound else { return }
            absent = missing(among: level.map(\.key))
        }
    }

    /// The fields of `selectionSet` (every branch's) that hold objects, where records keep them,
    /// and the selection set their objects are read as.
    private static func objectFields(of selectionSet: any SelectionSet.Type, variables: JSONObject)
        -> [(storageKey: String, selections: any SelectionSet.Type)]
    {
        Selection.fields(of: selectionSet.__selections).compactMap { field in
            field.type.selectionSet.map { (CacheNaming.storageKey(field, variables: variables), $0) }
        }
    }
}

/// A record and the selection set it is read as, met once per preload.
private struct PreloadTarget: Hashable {
    let key: String
    let selections: ObjectIdentifier
}
