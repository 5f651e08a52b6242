import APICore
import APICoreSupport

/// The cache's watchers and what they read: an index from each dependency (a record key, or one
/// field of a root) to the watchers that read it, so that a write wakes only those, not a scan of
/// all of them; and the ``ReadMemo`` of each selection watchers watch, kept while one does.
struct WatcherIndex {
    private struct Watcher {
        var dependencies: Set<String>
        /// The memo's number of the read the dependencies are from.
        var version: UInt64?
        let refresh: NormalizedStore.Refresh
        let label: String
        let memo: ReadMemo.Selection?
    }

    private var watchers: [UInt64: Watcher] = [:]
    private var index: [String: Set<UInt64>] = [:]
    private var nextID: UInt64 = 0
    /// The memo of each selection watchers watch, and how many watch it.
    private var memos: [ReadMemo.Selection: (memo: ReadMemo, watchers: Int)] = [:]

    /// Registers a watcher that depends on `dependencies`, described by `label`, reading with the
    /// memo of a selection; answers its id.
    mutating func add(
        dependencies: Set<String>, label: String, memo: ReadMemo.Selection?, refresh: @escaping NormalizedStore.Refresh
    ) -> UInt64 {
        nextID += 1
        if let memo {
            let kept = memos[memo] ?? (ReadMemo(), 0)
            memos[memo] = (kept.memo, kept.watchers + 1)
        }
        watchers[nextID] = Watcher(dependencies: dependencies, refresh: refresh, label: label, memo: memo)
        for key in dependencies { index[key, default: []].insert(nextID) }
        return nextID
    }

    /// Replaces a watcher's dependencies with a read's (a watcher gone is no error). A read that
    /// only added to the one the watcher holds adds its new keys alone, in place.
    mutating func setDependencies(_ read: ReadDependencies, of id: UInt64) {
        guard let version = watchers[id].map(\.version) else { return }
        if let version, read.version == version { return }
        if let version, let growth = read.growth, growth.from == version {
            for key in growth.added where watchers[id]!.dependencies.insert(key).inserted { index[key, default: []].insert(id) }
            watchers[id]!.version = read.version
            return
        }
        setDependencies(read.keys, of: id)
        watchers[id]?.version = read.version
    }

    /// Replaces a watcher's dependencies, comparing every key.
    private mutating func setDependencies(_ dependencies: Set<String>, of id: UInt64) {
        guard let watcher = watchers[id] else { return }
        // One pass for what is new; a second for what went only when something did (a list that
        // gained a page lost nothing).
        var added = 0
        for key in dependencies where !watcher.dependencies.contains(key) {
            index[key, default: []].insert(id)
            added += 1
        }
        if dependencies.count - added != watcher.dependencies.count {
            for key in watcher.dependencies where !dependencies.contains(key) { unindex(key, id) }
        }
        watchers[id]?.dependencies = dependencies
    }

    /// Removes a watcher (and the memo of its selection, when it was the last to watch it).
    mutating func remove(_ id: UInt64) {
        guard let watcher = watchers.removeValue(forKey: id) else { return }
        for key in watcher.dependencies { unindex(key, id) }
        if let selection = watcher.memo, let kept = memos[selection] {
            memos[selection] = kept.watchers > 1 ? (kept.memo, kept.watchers - 1) : nil
        }
    }

    private mutating func unindex(_ key: String, _ id: UInt64) {
        index[key]?.remove(id)
        if index[key]?.isEmpty == true { index[key] = nil }
    }

    /// Whether a watcher reads `key`.
    func isWatched(_ key: String) -> Bool { index[key] != nil }

    /// ``isWatched(_:)`` as a function of its own, for work outside the store (a persistent store
    /// that trims by use): it holds the index as it is now, not the watchers.
    var isWatchedNow: @Sendable (String) -> Bool {
        let index = index
        return { index[$0] != nil }
    }

    /// Whether no watcher depends on anything.
    var isEmpty: Bool { index.isEmpty }

    /// Every dependency of every watcher.
    var dependencies: Dictionary<String, Set<UInt64>>.Keys { index.keys }

    /// How a watcher reads again, while it is registered.
    func refresh(of id: UInt64) -> NormalizedStore.Refresh? { watchers[id]?.refresh }

    /// The memo a watcher reads with.
    func memo(of id: UInt64) -> ReadMemo? { watchers[id]?.memo.flatMap { memos[$0]?.memo } }

    /// The memo of a selection, while watchers watch it.
    func memo(for selection: ReadMemo.Selection) -> ReadMemo? { memos[selection]?.memo }

    /// Whether any watched selection has a memo (else reads need not name theirs).
    var hasMemos: Bool { !memos.isEmpty }

    /// The watchers of the keys changed, oldest first. A root named whole (an update, a removal, a
    /// collection) wakes every watcher of any of its fields.
    func woken(by changed: Set<String>) -> [UInt64] {
        guard !changed.isEmpty, !index.isEmpty else { return [] }
        var woken: Set<UInt64> = []
        for key in changed { woken.formUnion(readers(of: key)) }
        return woken.sorted()
    }

    /// The watchers that read the record with this key, or, for a root, any of its fields.
    private func readers(of key: String) -> Set<UInt64> {
        var ids = index[key] ?? []
        if CacheNaming.isRoot(key) {
            let prefix = CacheNaming.fieldDependency(key, "")
            for (dependency, watching) in index where dependency.hasPrefix(prefix) { ids.formUnion(watching) }
        }
        return ids
    }

    /// What a watcher depends on, as it holds it and as the index says (for tests: the two agree).
    func dependencies(of id: UInt64) -> (held: Set<String>, indexed: Set<String>)? {
        guard let watcher = watchers[id] else { return nil }
        return (watcher.dependencies, Set(index.filter { $0.value.contains(id) }.keys))
    }

    /// How many watchers there are, and how many dependencies the index holds.
    var counts: (watchers: Int, indexedKeys: Int) { (watchers.count, index.count) }

    /// What the watchers that read the record with this key, or any of its fields, watch, sorted.
    func labels(ofWatchersOf key: String) -> [String] {
        readers(of: key).compactMap { watchers[$0]?.label }.sorted()
    }
}
