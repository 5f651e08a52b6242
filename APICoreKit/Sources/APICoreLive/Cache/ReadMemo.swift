@_spi(Generated) import APICore

/// What was last read of a watched selection, object by object, so that reading it again after a
/// write reads only what the write touched: an object whose records did not change is taken as it
/// was read (sharing its storage, so comparing it with the last value costs nothing either). A
/// list of 5,000 items that gained a page, or one of whose items changed, is read again at the
/// cost of what changed and a lookup per item. The store keeps one per selection that watchers
/// watch (``NormalizedStore/addWatcher(dependencies:label:selection:refresh:)``), and every read of
/// that selection uses it: the watchers', and a query's read from the cache.
///
/// An entry is an object read from one record with one selection set, and the records read for
/// it (its dependencies, at most ``maxDependencies``: larger objects are walked again, their
/// children still taken from here). A write takes away the entries that depend on a record it
/// changed (``forget(_:)``, before the watchers read again). Only entries the last read used are
/// taken: the watchers depend on those records, so a change to them is always heard; an object
/// the selection no longer reached may have changed unheard. Objects that can expire (a field
/// with an expiry, a type with a maximum age) or wait for deferred data are never kept, since time
/// or an increment changes them without a write. The last read itself is kept too while nothing
/// it read changed: a query read from the cache just after its watchers read is that read.
package final class ReadMemo {
    /// A watched selection: a query's root or a fragment's record, the selection set's type, and
    /// the variables.
    package struct Selection: Hashable, Sendable {
        let key: String
        let type: ObjectIdentifier
        let variables: JSONObject
    }

    /// An object: the record it is read from, and its selection set.
    struct Key: Hashable {
        let record: String
        let selections: ObjectIdentifier
    }

    struct Entry {
        let object: JSONObject
        let dependencies: [String]
        /// The read that last used it.
        var used: UInt64
    }

    /// A list of objects in a record's field: the record, the field's storage key, and the
    /// elements' selection set.
    struct ListKey: Hashable {
        let record: String
        let field: String
        let selections: ObjectIdentifier
    }

    /// A list as last read: the references it held, the objects read from them, and the records
    /// each object was read from. A page put at either end of a list finds the rest here as it
    /// was, at the cost of comparing references, not of a lookup per element; an element whose
    /// records changed since (``dirty``) is read again alone.
    struct ListEntry {
        var items: [JSONValue]
        var values: [JSONValue]
        var dependencies: [[String]]
        /// All of `dependencies` as one set, kept while the list grows at its end (else `nil`).
        var dependencySet: Set<String>?
        /// Records of elements that changed since the list was read.
        var dirty: Set<String> = []
        /// The read that last used it.
        var used: UInt64
    }

    /// The most records an entry depends on.
    static let maxDependencies = 64

    private var entries: [Key: Entry] = [:]
    /// The entries that depend on a record, by its key.
    private var containing: [String: Set<Key>] = [:]
    private var lists: [ListKey: ListEntry] = [:]
    /// The lists with an element that depends on a record, by its key.
    private var listsContaining: [String: Set<ListKey>] = [:]
    /// The read under way (each read counts one): its number.
    private(set) var generation: UInt64 = 1
    /// How many records the last read read.
    var lastReadDependencies = 0
    /// The number of the last read, and the records it read itself (not through a list it grew).
    var lastOwnDependencies: (version: UInt64, keys: Set<String>)?
    /// The last read, while none of its records changed (and none can expire).
    var lastRead: CacheRead?

    /// An empty memo.
    init() {}

    /// Whether nothing is kept.
    var isEmpty: Bool { entries.isEmpty }

    /// Starts a read; everything goes when what is kept outgrew what the last read used.
    func beginRead() {
        generation += 1
        if entries.count + listsContaining.count > 4 * lastReadDependencies + 2048 { forgetAll() }
    }

    /// Takes away what depends on the records `changed`; in lists, marks the elements that do.
    func forget(_ changed: Set<String>) {
        if !changed.isEmpty { lastRead = nil }
        if !lists.isEmpty {
            for key in changed {
                guard let keys = listsContaining[key] else { continue }
                for list in keys { lists[list]?.dirty.insert(key) }
            }
        }
        guard !entries.isEmpty else { return }
        for key in changed {
            guard let keys = containing.removeValue(forKey: key) else { continue }
            for entry in keys { entries[entry] = nil }
        }
    }

    /// Takes everything away (before a read through optimistic layers, which entries do not show).
    func forgetAll() {
        lastRead = nil
        entries = [:]
        containing = [:]
        lists = [:]
        listsContaining = [:]
    }

    /// The object kept for `key`, if the last read (or this one) used it.
    func entry(_ key: Key) -> Entry? {
        guard let index = entries.index(forKey: key), entries.values[index].used + 1 >= generation else { return nil }
        entries.values[index].used = generation
        return entries.values[index]
    }

    /// Takes out the list kept for `key`, if the last read (or this one) used it: the reader owns
    /// it alone (so its arrays grow in place) until ``keepList(_:as:newElements:)``.
    func takeList(_ key: ListKey) -> ListEntry? {
        guard let entry = lists.removeValue(forKey: key), entry.used + 1 >= generation else { return nil }
        return entry
    }

    /// Keeps a list as read now; the records of `newElements` (indexes into it) are registered,
    /// those of the others were when they were first kept.
    func keepList(_ entry: ListEntry, as key: ListKey, newElements: [Int]) {
        var entry = entry
        entry.used = generation
        for index in newElements {
            for dependency in entry.dependencies[index] { listsContaining[dependency, default: []].insert(key) }
        }
        lists[key] = entry
    }

    /// Drops the list kept for `key` (one read now with an element that may not be kept).
    func forgetList(_ key: ListKey) { lists[key] = nil }

    func keep(_ object: JSONObject, dependencies: [String], as key: Key) {
        entries[key] = Entry(object: object, dependencies: dependencies, used: generation)
        for dependency in dependencies { containing[dependency, default: []].insert(key) }
    }
}
