@_spi(Engine) @_spi(Generated) import APICore
import APICoreSupport
import Foundation

// The normalized store's garbage collection: on demand, on open, after a number of writes; in
// slices (its state in CollectionState.swift).
extension NormalizedStore {
    /// Removes records past their type's maximum age by more than `maxStaleness`, and fields past
    /// the maximum age their server gave them by as much; then fields that refer to records that
    /// do not exist (those just removed included), then records that the query root does not
    /// reach. Records that watchers read, and those optimistic layers lie over, are roots too:
    /// they are never removed and keep their expired fields (a dangling reference goes from them
    /// too). In memory and in the persistent store, read a page at a time; watchers of records
    /// that lost a field are told.
    ///
    /// The collection runs in slices (``IncrementalCollection``), each holding the store for a few
    /// milliseconds, so reads, writes and watchers go on between them; what is written meanwhile
    /// stays, with what it refers to. A collection asked for while one runs starts after it.
    package func collectGarbage(maxStaleness: Duration, by access: CacheWriter.Access) async -> CacheCollection {
        while let running = collector.run { _ = await running.value }
        return await startCollection(maxStaleness: maxStaleness, by: access).value
    }

    /// Waits for the collection under way, if any (an automatic one runs on its own).
    package func collectionFinished() async {
        while let running = collector.run { _ = await running.value }
    }

    /// Starts a collection, which a task of its own runs slice by slice; answers the task.
    @discardableResult
    private func startCollection(maxStaleness: Duration, priority: TaskPriority? = nil, by access: CacheWriter.Access) -> Task<CacheCollection, Never> {
        prepareCollection(maxStaleness: maxStaleness, by: access)
        let task = Task(priority: priority) { await self.runSlices() }
        collector.run = task
        return task
    }

    /// Sets up a collection, whose slices ``collectSlice()`` runs.
    package func prepareCollection(maxStaleness: Duration, by _: CacheWriter.Access) {
        persistence.forgetAbsent()
        let startedAt = now()
        collector.begin(IncrementalCollection(
            startedAt: startedAt, maxStaleness: maxStaleness, fieldDeadline: startedAt.addingTimeInterval(-maxStaleness.seconds),
            memoryKeys: Array(records.keys), persistent: persistence.isActive))
    }

    /// Runs the collection under way to its end, one slice per turn on the store.
    private nonisolated func runSlices() async -> CacheCollection {
        while true {
            if let done = await collectSlice() { return done }
            await Task.yield()
        }
    }

    /// One slice of the collection under way: as much work as fits in the slice's time; answers
    /// the collection when it is done (an empty one when it was called off).
    func collectSlice() -> CacheCollection? {
        // Taken out for the slice, so that its sets are changed in place, not copied.
        guard var state = collector.underWay.take() else {
            collector.run = nil
            return CacheCollection()
        }
        var clock = SliceClock(collector.slice)
        var done = false
        while !done && !clock.isUp {
            switch state.phase {
            case .expiry:
                guard expirySlice(&state, &clock) else { break }
                flush(&state)
                beginMarking(&state)
            case .marking:
                guard markSlice(&state, &clock) else { break }
                state.phase = .sweep
                // The keys memory had at the start (those written since are marked; those loaded
                // since are swept from the persistent store).
                state.memoryPosition = 0
                state.persistentAfter = nil
                state.persistentDone = !persistence.isActive
            case .sweep:
                // What was written since the marking ended is marked first.
                done = markSlice(&state, &clock) && sweepSlice(&state, &clock)
            }
        }
        flush(&state)
        evictIfOverLimit()
        guard done else {
            collector.underWay = state
            return nil
        }
        collector.run = nil
        return state.result
    }

    /// Whether a record is kept whatever it holds: a watcher reads it, or an optimistic layer lies over it.
    private func isKept(_ key: String) -> Bool { watchers.isWatched(key) || layers.covers(key) }

    /// Goes on through the keys memory had when the collection began, from where the phase left
    /// off, handing each to `visit` until the slice's time is up; answers whether all were
    /// visited. What the phase changed in memory is saved then, before the persistent store's
    /// pages are read, which would find it again.
    private func visitMemoryKeys(
        _ state: inout IncrementalCollection, _ clock: inout SliceClock, _ visit: (String, inout IncrementalCollection) -> Void
    ) -> Bool {
        guard state.memoryPosition < state.memoryKeys.count else { return true }
        while state.memoryPosition < state.memoryKeys.count {
            if clock.isUp { return false }
            let key = state.memoryKeys[state.memoryPosition]
            state.memoryPosition += 1
            clock.count(1)
            visit(key, &state)
        }
        flush(&state)
        return true
    }

    /// Expired records and fields, in memory, then in the persistent store; answers whether the
    /// phase is done.
    private func expirySlice(_ state: inout IncrementalCollection, _ clock: inout SliceClock) -> Bool {
        let memoryDone = visitMemoryKeys(&state, &clock) { key, state in
            if let record = records[key], !isKept(key) { expire(record, &state) }
        }
        guard memoryDone else { return false }
        while !state.persistentDone {
            if clock.isUp { return false }
            let page = persistence.records(after: state.persistentAfter, limit: IncrementalCollection.page)
            state.persistentDone = page.count < IncrementalCollection.page
            state.persistentAfter = page.last?.key ?? state.persistentAfter
            clock.count(page.count)
            // Memory holds the latest of a record it has (checked above).
            for record in page where records[record.key] == nil && !isKept(record.key) { expire(record, &state) }
            guard state.persistentDone else { continue }
            // The roots, kept field by field: their fields past their expiry.
            for key in persistence.rootKeys() {
                let expired = persistence.fieldsExpired(of: key, before: state.fieldDeadline)
                state.lost[key, default: []] += expired
                state.result.expiredFields += expired.count
                for name in expired { records[key]?.fields[name] = nil }
            }
        }
        return true
    }

    private func expire(_ record: CacheRecord, _ state: inout IncrementalCollection) {
        // A root's fields that the persistent store has are checked there, at the end of the phase.
        if CacheNaming.isRoot(record.key), persistence.isActive {
            let expired = record.expires.filter { $0.value < state.fieldDeadline }.map(\.key)
            for name in expired {
                records[record.key]?.fields[name] = nil
                records[record.key]?.expires[name] = nil
            }
            return
        }
        if isExpired(record, requestMaxAge: nil, beyond: state.maxStaleness) {
            drop(record.key)
            state.removed.append(record.key)
            state.result.expiredRecords += 1
            return
        }
        guard !record.expires.isEmpty else { return }
        let expired = record.expires.filter { $0.value < state.fieldDeadline }.map(\.key)
        guard !expired.isEmpty else { return }
        strip(expired, of: record, &state)
        state.result.expiredFields += expired.count
    }

    /// Takes fields out of a record with their expiry (into memory first, when only the persistent
    /// store had it), to be saved at the end of the slice.
    private func strip(_ names: [String], of record: CacheRecord, _ state: inout IncrementalCollection) {
        // (A root is changed field by field: memory need not hold it.)
        if records[record.key] == nil, !CacheNaming.isRoot(record.key) { keep(record) }
        for name in names {
            records[record.key]?.fields[name] = nil
            records[record.key]?.expires[name] = nil
        }
        state.lost[record.key, default: []] += names
    }

    /// The marking starts from the query root (and the mutation and subscription roots are not
    /// roots: the cache no longer keeps them, and a store an earlier version wrote may hold them:
    /// they go now), what watchers read, and what optimistic layers lie over.
    private func beginMarking(_ state: inout IncrementalCollection) {
        state.phase = .marking
        state.pending = [RootRecordKey.query] + watchers.dependencies.map(CacheNaming.recordKey(ofDependency:)) + layers.keys
    }

    /// Marks what the keys waiting are and refer to: a record at a time, a root a field at a time
    /// (it may hold 100,000 references). A field that refers to a record that does not exist goes
    /// whole, and what else it referred to is not reached through it. Answers whether nothing waits.
    private func markSlice(_ state: inout IncrementalCollection, _ clock: inout SliceClock) -> Bool {
        var referred: [String] = []
        while true {
            if clock.isUp { return false }
            if var root = state.roots.popLast() {
                guard let name = root.fields.last else { continue }
                if records[root.key]?.fields[name] == nil, root.chunk[name] == nil {
                    // The next fields the persistent store has, a few at a time.
                    let names = root.fields.suffix(8).filter { records[root.key]?.fields[$0] == nil }
                    root.chunk = persistence.loadFields(names, of: root.key)?.fields ?? [:]
                    clock.count(names.count)
                }
                root.fields.removeLast()
                state.roots.append(root)
                // The root as it is now: an earlier field of it may have gone.
                guard let value = records[root.key]?.fields[name] ?? root.chunk[name] else { continue }
                let record = CacheRecord(key: root.key, fields: [:], receivedAt: .distantPast)
                clock.count(1 + mark(name, value, of: record, &state, &referred) / 32)
                continue
            }
            guard let record = state.batch.popLast() else {
                guard !state.pending.isEmpty else { return true }
                loadBatch(&state)
                continue
            }
            clock.count(1)
            for (name, value) in record.fields { mark(name, value, of: record, &state, &referred) }
        }
    }

    /// Marks what one field refers to, or takes the field out when one of the records is missing;
    /// answers how many references it holds.
    @discardableResult
    private func mark(_ name: String, _ value: JSONValue, of record: CacheRecord, _ state: inout IncrementalCollection, _ referred: inout [String])
        -> Int
    {
        referred.removeAll(keepingCapacity: true)
        CacheNaming.collectReferences(value, into: &referred)
        guard !referred.isEmpty else { return 0 }
        if persistence.isActive, referred.contains(where: { records[$0] == nil && !state.existing.contains($0) }) {
            let found = persistence.existing(referred.filter { records[$0] == nil && !state.existing.contains($0) })
            // (Kept small: a set of a million keys would stop the store to grow.)
            if state.existing.count > 8 * IncrementalCollection.page { state.existing = found } else { state.existing.formUnion(found) }
        }
        if referred.allSatisfy({ records[$0] != nil || state.existing.contains($0) }) {
            state.pending += referred
        } else {
            strip([name], of: records[record.key] ?? record, &state)
            state.result.danglingReferences += 1
        }
        return referred.count
    }

    /// The next keys waiting that are not marked yet, marked, with their records (those only the
    /// persistent store has are read for their references, not kept in memory; a root is marked
    /// field by field); which of the records they refer to exist is asked for at once.
    private func loadBatch(_ state: inout IncrementalCollection) {
        var batch: [String] = []
        while batch.count < IncrementalCollection.page, let key = state.pending.popLast() {
            if state.reachable.insert(key).inserted { batch.append(key) }
        }
        let missing = batch.filter { records[$0] == nil && !CacheNaming.isRoot($0) }
        let loaded = missing.isEmpty || !persistence.isActive ? [:] : persistence.load(missing) ?? [:]
        state.batch = []
        for key in batch {
            if CacheNaming.isRoot(key) {
                var names = Set(records[key]?.fields.keys ?? [:].keys)
                if persistence.isActive, records[key] == nil || persistence.isPartialRoot(key) { names.formUnion(persistence.fieldNames(of: key)) }
                state.roots.append(IncrementalCollection.RootMarking(key: key, fields: Array(names)))
            } else if let record = records[key] ?? loaded[key] {
                state.batch.append(record)
            }
        }
        state.existing = []
        guard persistence.isActive else { return }
        var unknown: [String] = []
        for record in state.batch {
            for value in record.fields.values {
                CacheNaming.collectReferences(value, into: &unknown)
                // Records with many references are asked about field by field.
                if unknown.count > 4 * IncrementalCollection.page { return }
            }
        }
        unknown.removeAll { records[$0] != nil }
        state.existing = persistence.existing(unknown)
    }

    /// Removes what the marking did not reach, in memory, then in the persistent store; answers
    /// whether the phase is done.
    private func sweepSlice(_ state: inout IncrementalCollection, _ clock: inout SliceClock) -> Bool {
        let memoryDone = visitMemoryKeys(&state, &clock) { key, state in
            if records[key] != nil, !state.reachable.contains(key), !isKept(key) {
                drop(key)
                state.removed.append(key)
                state.result.unreachableRecords += 1
            }
        }
        guard memoryDone else { return false }
        while !state.persistentDone {
            if clock.isUp { return false }
            // (Those received since the collection began, which another client of the persistent
            // store wrote, are not its to sweep.)
            let keys = persistence.keys(after: state.persistentAfter, receivedBy: state.startedAt, limit: IncrementalCollection.page)
            state.persistentDone = keys.count < IncrementalCollection.page
            state.persistentAfter = keys.last ?? state.persistentAfter
            clock.count(keys.count)
            // (A record loaded into memory since the collection began is swept here.)
            for key in keys where !state.reachable.contains(key) && !isKept(key) {
                drop(key)
                state.removed.append(key)
                state.result.unreachableRecords += 1
            }
            guard state.persistentDone else { continue }
            // The roots kept field by field: the mutation and subscription roots an earlier version wrote.
            for key in persistence.rootKeys() where !state.reachable.contains(key) && records[key] == nil {
                state.removed.append(key)
                state.result.unreachableRecords += 1
            }
        }
        return true
    }

    /// Saves what the slice removed and changed; the watchers of records that lost a field are told.
    private func flush(_ state: inout IncrementalCollection) {
        guard !state.removed.isEmpty || !state.lost.isEmpty else { return }
        let changedRecords = state.lost.keys.filter { !CacheNaming.isRoot($0) }.compactMap { records[$0] }
        let changedRoots = state.lost.compactMap { key, fields in
            CacheNaming.isRoot(key) ? FieldChanges(key: key, set: [:], removed: fields, receivedAt: records[key]?.receivedAt ?? now()) : nil
        }
        // Another client of the persistent store (another process on the file) may have written
        // what this collection found unreachable or expired, after it looked: that stays.
        persist(changedRecords, fields: changedRoots, removing: state.removed, unlessWrittenSince: state.startedAt)
        let lost = Set(state.lost.keys)
        state.removed = []
        state.lost = [:]
        notify(lost)
    }

    /// The collection on open, the first time the cache is used.
    func collectIfOpening() {
        guard collector.isDueOnOpen else { return }
        collectAutomatically(because: "on open")
    }

    /// Starts a collection the policy asks for, unless one runs; it goes on in slices between the
    /// store's other work, with the access the writer granted with the policy.
    func collectAutomatically(because reason: String) {
        guard collector.run == nil, let automatic = collector.automatic else { return }
        let run = startCollection(maxStaleness: automatic.policy.maxStaleness, priority: .utility, by: automatic.access)
        let logger = logger
        Task(priority: .utility) {
            let collection = await run.value
            logger.debug("cache garbage collection \(reason): \(collection)")
        }
    }
}
