@_spi(Generated) import APICore
import APICoreSupport
import Foundation

/// Other clients of the same persistent store: an app and its extensions are processes that
/// share one SQLite file, each with its own store and memory in front of it.
///
/// While watchers watch, the store looks at the file's change log (SQLiteSharedFile.swift) every
/// ``othersLookInterval``, and a read looks first when the last look is that old: one query on
/// the log's last page when nothing changed. (A read from memory alone, `readInMemory`, does
/// not look: it serves a view's first frame, and the look that follows corrects it.) What other
/// clients wrote is taken in as a write here is: records memory holds are loaded again (dropped
/// when they are gone), and only the watchers of what really changed are woken. A clear, or more
/// changes than the log keeps, makes memory forget everything and every watcher read again.
extension NormalizedStore {
    /// How often a watched store looks at what other clients wrote.
    static let othersLookInterval = Duration.milliseconds(50)

    /// Starts looking at other clients' changes, unless it already does or there is no persistent
    /// store. Between looks it reads the store's commit version alone, outside the store: while no
    /// client commits, a look costs that read.
    func followOthersWhileWatched() {
        guard follower == nil, let commitVersion = persistence.commitVersion else { return }
        follower = Task { [weak self] in
            var seen: Int64?
            while !Task.isCancelled {
                try? await Task.sleep(for: NormalizedStore.othersLookInterval)
                let version = commitVersion()
                guard !Task.isCancelled, version == nil || version != seen else { continue }
                seen = version
                guard let self, await self.lookAtOthersChanges() else { return }
            }
        }
    }

    /// Stops looking when the last watcher goes (and when the store goes).
    func stopFollowingUnlessWatched() {
        guard watchers.counts.watchers == 0 else { return }
        follower?.cancel()
        follower = nil
    }

    /// One look; answers whether to go on looking (a watcher still watches).
    private func lookAtOthersChanges() -> Bool {
        takeInOthersChanges()
        guard watchers.counts.watchers > 0, persistence.isActive else {
            follower = nil
            return false
        }
        return true
    }

    /// Takes in what other clients wrote since the last look, and wakes the watchers of what it
    /// changed. Answers the keys (and root fields) that changed.
    @discardableResult
    package func takeInOthersChanges() -> Set<String> {
        guard let changes = persistence.othersChanges(), changes.everything || !changes.keys.isEmpty else { return [] }
        if changes.everything {
            let keys = Set(records.keys).union(watchers.dependencies)
            for key in Array(records.keys) { drop(key) }
            notify(keys)
            return keys
        }
        var changed: Set<String> = []
        var reload: [String] = []
        var rootFields: [String: [String]] = [:]
        for key in Set(changes.keys) {
            if let (root, field) = CacheNaming.rootField(ofDependency: key) {
                rootFields[root, default: []].append(field)
            } else if records[key] != nil {
                reload.append(key)
            } else {
                // Not in memory: a watcher that read it read it from the file, or found it missing.
                changed.insert(key)
            }
        }
        if !reload.isEmpty, let loaded = persistence.load(reload) {
            for key in reload {
                guard let record = loaded[key] else {
                    drop(key)
                    changed.insert(key)
                    continue
                }
                if records[key]?.fields != record.fields { changed.insert(key) }
                keep(record)
            }
        }
        for (root, names) in rootFields {
            let stored = persistence.loadFields(names, of: root)
            let held = records[root]
            var changedHere = false
            for name in names where held?.fields[name] != stored?.fields[name] {
                changed.insert(CacheNaming.fieldDependency(root, name))
                changedHere = true
            }
            guard changedHere else { continue }
            changed.insert(CacheNaming.anyField(of: root))
            guard var updated = held else { continue }
            for name in names {
                updated.fields[name] = stored?.fields[name]
                updated.expires[name] = stored?.expires[name]
            }
            keep(updated)
        }
        notify(changed)
        return changed
    }
}
