@_spi(Generated) @_spi(Engine) import APICore
import APICoreSupport
import Foundation

/// Rebuilds a response's data from records, following the same metadata. Every selected field
/// must be there with a value of its declared type; anything else is a miss, never a crash or a
/// default value. The records read are collected, for watchers.
///
/// A partial reader (``collectsMisses``) reads on past what is missing, as a server does past a
/// field error: a missing field is `null`, and where its type does not allow `null`, its object
/// is, up to the nearest field that does (the whole data is a miss only when that is none). The
/// paths of the fields missing are ``misses``.
package struct CacheReader: SelectionVisitor {
    package struct Miss: Error {}

    package let variables: JSONObject
    /// Whether to read on past missing fields.
    let collectsMisses: Bool
    /// The paths of the fields a partial read found missing, in the order met.
    package private(set) var misses: [ResponsePath] = []
    /// Where a partial read is in the response.
    private var path: [ResponsePath.Component] = []
    /// The time of the read, against which the fields' expiry is checked.
    let now: Date
    let lookup: (String) -> CacheRecord?
    /// Told the keys a list refers to, with the selection set its items are read as.
    let prefetch: ([String], any SelectionSet.Type) -> Void
    let isExpired: (CacheRecord) -> Bool
    package private(set) var dependencies: Set<String> = []
    /// Dependencies that lists kept by the memo brought whole: each list's elements' records.
    private var sharedDependencies: [Set<String>] = []
    /// When lists grew at their end (their records kept as sets), the records their new elements
    /// added to those sets.
    private(set) var grownListAdded: [String]?
    /// The keys of the records read (or missed): ``dependencies`` with those of the lists the memo
    /// kept, joined into the largest set (so that its elements are not hashed again).
    package var allDependencies: Set<String> {
        guard let largest = sharedDependencies.indices.max(by: { sharedDependencies[$0].count < sharedDependencies[$1].count }) else {
            return dependencies
        }
        var all = sharedDependencies[largest]
        for (index, shared) in sharedDependencies.enumerated() where index != largest { all.formUnion(shared) }
        all.formUnion(dependencies)
        return all
    }
    package private(set) var sawExpired = false
    /// What a watcher read before, to take unchanged objects from; `nil` for a one-off read.
    let memo: ReadMemo?
    /// Whether a record can turn stale without a write (then objects read from it are not kept).
    let mayExpire: (CacheRecord) -> Bool
    /// With a memo, for each object being read from a record: the records read for it so far, and
    /// whether it may be kept.
    private var frames: [(dependencies: [String], keepable: Bool)] = []
    /// With a memo, whether a record read can turn stale with time alone.
    private(set) var readExpirable = false

    /// A reader; `prefetch` is told the keys a list refers to, and the selection set its items are
    /// read as, before they are read one by one, so a persistent store can load them (and what
    /// they lead to) a level at a time. With `memo` (not for a partial read), objects whose
    /// records did not change are taken from it, and those read are kept there.
    package init(
        variables: JSONObject, now: Date, lookup: @escaping (String) -> CacheRecord?,
        prefetch: @escaping ([String], any SelectionSet.Type) -> Void = { _, _ in },
        isExpired: @escaping (CacheRecord) -> Bool, collectsMisses: Bool = false, memo: ReadMemo? = nil,
        mayExpire: @escaping (CacheRecord) -> Bool = { _ in true }
    ) {
        self.collectsMisses = collectsMisses
        self.memo = collectsMisses ? nil : memo
        self.mayExpire = mayExpire
        self.variables = variables
        self.now = now
        self.lookup = lookup
        self.prefetch = prefetch
        self.isExpired = isExpired
    }

    package mutating func read(key: String, selections: [Selection], parent: ParentType) throws(Miss) -> JSONObject {
        // A root record is depended on field by field (see `visit`).
        let isRoot = CacheNaming.isRoot(key)
        if !isRoot { dependencies.insert(key) }
        if !frames.isEmpty { isRoot ? forbidKeeping() : note([key]) }
        let record: CacheRecord
        if let found = lookup(key) {
            record = found
            if isExpired(record) { sawExpired = true }
            if memo != nil, mayExpire(record) {
                readExpirable = true
                if !frames.isEmpty { forbidKeeping() }
            }
        } else {
            guard isRoot else { throw Miss() }
            // No root yet: its fields are missing, unless a field policy finds them elsewhere.
            dependencies.insert(CacheNaming.anyField(of: key))
            record = CacheRecord(key: key, fields: [:], receivedAt: .distantPast)
        }
        var read = Read(
            key: key, record: record.fields, expires: record.expires, out: JSONObject(minimumCapacity: selections.count),
            root: isRoot ? key : nil)
        try walk(selections, parent: parent, in: &read)
        if !read.pending.isEmpty {
            read.out[Deferral.pendingKey] = .array(read.pending)
            if !frames.isEmpty { forbidKeeping() }
        }
        return read.out
    }

    /// The object `selectionSet` reads from the record at `key`: as the memo has it when none of
    /// its records changed, else read and kept there (when it may be).
    private mutating func read(_ key: String, as selectionSet: any SelectionSet.Type, remembering memo: ReadMemo) throws(Miss) -> JSONObject {
        let memoKey = ReadMemo.Key(record: key, selections: ObjectIdentifier(selectionSet))
        if let entry = memo.entry(memoKey) {
            for dependency in entry.dependencies { dependencies.insert(dependency) }
            if !frames.isEmpty { note(entry.dependencies) }
            return entry.object
        }
        frames.append(([], true))
        let object: JSONObject
        do throws(Miss) {
            object = try read(key: key, selections: selectionSet.__selections, parent: selectionSet.__parentType)
        } catch {
            frames.removeLast()
            throw error
        }
        let frame = frames.removeLast()
        if frame.keepable { memo.keep(object, dependencies: frame.dependencies, as: memoKey) }
        if !frames.isEmpty {
            frame.keepable ? note(frame.dependencies) : forbidKeeping()
        }
        return object
    }

    /// Records read for the object being read (which is not kept once they are too many).
    private mutating func note(_ keys: [String]) {
        let last = frames.count - 1
        guard frames[last].keepable else { return }
        guard frames[last].dependencies.count + keys.count <= ReadMemo.maxDependencies else { return forbidKeeping() }
        frames[last].dependencies.append(contentsOf: keys)
    }

    private mutating func forbidKeeping() {
        frames[frames.count - 1].keepable = false
        frames[frames.count - 1].dependencies = []
    }

    /// One record as the walk goes: its fields, the object read from them so far, and the
    /// deferred fragments whose data is not in the cache.
    package struct Read {
        /// The record's key.
        let key: String
        let record: JSONObject
        let expires: [String: Date]
        var out: JSONObject
        var pending: [JSONValue] = []
        /// The key of the root record being read, whose fields are dependencies one by one.
        var root: String? = nil
    }

    package func typename(of read: Read) -> String? { read.record["__typename"]?.stringValue }

    @inline(__always)
    package mutating func visit(_ field: Field, in read: inout Read) throws(Miss) {
        let storageKey = CacheNaming.storageKey(field, variables: variables)
        if let root = read.root { dependencies.insert(CacheNaming.fieldDependency(root, storageKey)) }
        guard collectsMisses else {
            read.out[field.responseKey] = try value(of: field, at: storageKey, in: read)
            return
        }
        let value = try standingIn(at: .field(field.responseKey), allowsNull: field.type.allowsNull) {
            (reader: inout CacheReader) throws(Miss) in try reader.value(of: field, at: storageKey, in: read)
        }
        read.out[field.responseKey] = value
    }

    /// The value of `field`, stored at `storageKey` in `read`'s record (or where its field policy
    /// points), read as its type.
    @inline(__always)
    private mutating func value(of field: Field, at storageKey: String, in read: Read) throws(Miss) -> JSONValue {
        guard let value = read.record[storageKey] ?? redirect(field) else { throw Miss() }
        if !read.expires.isEmpty, let expiry = read.expires[storageKey], expiry < now { sawExpired = true }
        if let memo, case .array(let items) = value, items.count > 1, let (element, selectionSet) = Self.listOfObjects(field.type) {
            let key = ReadMemo.ListKey(record: read.key, field: storageKey, selections: ObjectIdentifier(selectionSet))
            return try readList(items, of: element, as: selectionSet, at: key, memo: memo)
        }
        return try readValue(value, as: field.type)
    }

    /// The element type of a field that is a list of objects (not of lists), and its selection set.
    private static func listOfObjects(_ type: OutputType) -> (OutputType, any SelectionSet.Type)? {
        var list = type
        if case .nonNull(let inner) = list { list = inner }
        guard case .list(let element) = list else { return nil }
        var object = element
        if case .nonNull(let inner) = object { object = inner }
        guard case .object(let selectionSet) = object else { return nil }
        return (element, selectionSet)
    }

    /// A list of objects read with the memo: the part the last read of this list had too (a page
    /// was put before or after it) is taken as it was, save the elements whose records changed;
    /// the rest is read. What was read is kept for the next read when every element may be kept.
    private mutating func readList(
        _ items: [JSONValue], of element: OutputType, as selectionSet: any SelectionSet.Type, at key: ReadMemo.ListKey, memo: ReadMemo
    ) throws(Miss) -> JSONValue {
        // Where the last read's elements are in this list: at its start, at its end, or not at all.
        var offset: Int?
        var previous = memo.takeList(key)
        if let earlier = previous?.items, earlier.count <= items.count {
            // (References the list kept share their storage: each comparison is one of bits.)
            if items.matchingPrefixCount(earlier) == earlier.count {
                offset = 0
            } else if items.matchingSuffixCount(earlier, limit: earlier.count) == earlier.count {
                offset = items.count - earlier.count
            }
        }
        let reused = offset.map { $0..<($0 + previous!.items.count) } ?? 0..<0
        let dirty = previous?.dirty ?? []
        if reused.count < items.count - 1 {
            let keys = items.indices.filter { !reused.contains($0) }.compactMap { CacheNaming.referencedKey(items[$0]) }
            if keys.count > 1 { prefetch(keys, selectionSet) }
        }
        var values: [JSONValue] = []
        values.reserveCapacity(items.count)
        var elementDependencies: [[String]] = []
        var readNow: [Int] = []
        var keepable = true
        var index = 0
        // The records of all the elements, while the list only grows at its end: kept with it, and
        // joined to this read's dependencies once, at the end (`allDependencies`).
        var listDependencies: Set<String>?
        var added: [String] = []
        if reused.lowerBound == 0, !reused.isEmpty, dirty.isEmpty, previous != nil {
            // A list that grew at its end: what it held taken as it was, the records of each element
            // moved out of the memo (so that the new elements' join them in place).
            swap(&elementDependencies, &previous!.dependencies)
            listDependencies = previous!.dependencySet.take() ?? Set(elementDependencies.joined())
            values.append(contentsOf: previous!.values)
            previous = nil
            index = reused.upperBound
        }
        if listDependencies == nil { dependencies.reserveCapacity(dependencies.count + items.count) }
        let oldValues = previous?.values ?? []
        let oldDependencies = previous?.dependencies ?? []
        elementDependencies.reserveCapacity(items.count)
        while index < items.count {
            if reused.contains(index) {
                let old = index - reused.lowerBound
                if dirty.isEmpty {
                    // The whole part read before, as it was.
                    values.append(contentsOf: oldValues[old...])
                    elementDependencies.append(contentsOf: oldDependencies[old...])
                    for keys in oldDependencies[old...] {
                        for dependency in keys { dependencies.insert(dependency) }
                    }
                    index = reused.upperBound
                    continue
                }
                if !oldDependencies[old].contains(where: dirty.contains) {
                    values.append(oldValues[old])
                    elementDependencies.append(oldDependencies[old])
                    for dependency in oldDependencies[old] { dependencies.insert(dependency) }
                    index += 1
                    continue
                }
            }
            frames.append(([], true))
            let value: JSONValue
            do throws(Miss) {
                value = try readValue(items[index], as: element)
            } catch {
                frames.removeLast()
                throw error
            }
            let frame = frames.removeLast()
            keepable = keepable && frame.keepable
            values.append(value)
            elementDependencies.append(frame.dependencies)
            if listDependencies != nil {
                for dependency in frame.dependencies where listDependencies!.insert(dependency).inserted { added.append(dependency) }
            }
            readNow.append(index)
            index += 1
        }
        if let listDependencies {
            grownListAdded = (grownListAdded ?? []) + added
            sharedDependencies.append(listDependencies)
        }
        if keepable {
            memo.keepList(
                ReadMemo.ListEntry(items: items, values: values, dependencies: elementDependencies, dependencySet: listDependencies, used: 0),
                as: key, newElements: readNow)
        } else {
            memo.forgetList(key)
        }
        // The object that holds the list depends on every element's records.
        if !frames.isEmpty {
            if keepable, elementDependencies.reduce(0, { $0 + $1.count }) + frames[frames.count - 1].dependencies.count <= ReadMemo.maxDependencies {
                note(elementDependencies.flatMap { $0 })
            } else {
                forbidKeeping()
            }
        }
        return .array(values)
    }

    /// For a partial read: what `body` reads at `component` of the response, or, when it misses,
    /// `null` where `allowsNull` (else the miss goes up to the value around it), the deepest
    /// missing place noted in ``misses`` (a `null` that only carries a miss up is not).
    private mutating func standingIn(
        at component: ResponsePath.Component, allowsNull: Bool, _ body: (inout CacheReader) throws(Miss) -> JSONValue
    ) throws(Miss) -> JSONValue {
        path.append(component)
        defer { path.removeLast() }
        let missesBefore = misses.count
        do throws(Miss) {
            return try body(&self)
        } catch {
            if misses.count == missesBefore { misses.append(ResponsePath(path)) }
            guard allowsNull else { throw error }
            return .null
        }
    }

    /// Where a field the record lacks is found by its field policy: a reference to the record
    /// its key arguments name (`Book:1`), or a list of them when one argument is a list and the
    /// field a list. `nil` without a policy, or when the field returns an interface or union
    /// (whose records are keyed by a type the arguments do not say).
    private func redirect(_ field: Field) -> JSONValue? {
        guard let keyArgs = field.keyArgs, !keyArgs.isEmpty, let (typename, isList) = Self.objectType(of: field.type) else { return nil }
        let values = keyArgs.map { field.arguments[$0]?.resolved(with: variables) ?? .null }
        func key(_ parts: [JSONValue]) -> JSONValue? { CacheNaming.objectKey(typename, keyValues: parts).map(CacheNaming.reference(to:)) }
        guard isList else { return key(values) }
        // One list argument: a reference per element, the other arguments the same for each.
        guard let listIndex = values.firstIndex(where: { $0.arrayValue != nil }), let elements = values[listIndex].arrayValue else { return nil }
        var references: [JSONValue] = []
        for element in elements {
            var parts = values
            parts[listIndex] = element
            guard let reference = key(parts) else { return nil }
            references.append(reference)
        }
        return .array(references)
    }

    /// The object type a field returns, and whether in a list; `nil` for a leaf or an abstract type.
    private static func objectType(of type: OutputType) -> (String, Bool)? {
        switch type {
        case .nonNull(let inner): return objectType(of: inner)
        case .list(let element): return objectType(of: element).map { ($0.0, true) }
        case .scalar: return nil
        case .object(let selectionSet):
            let parent = selectionSet.__parentType
            return parent.possibleTypes == [parent.name] ? (parent.name, false) : nil
        }
    }

    /// All of it, or pending: the records it needs stay dependencies, so a watcher reads again
    /// when they arrive.
    package mutating func visitDeferred(
        _ deferral: Deferral, selections: [Selection], parent: ParentType, in read: inout Read
    ) throws(Miss) {
        if try !walkWhole(selections, parent: parent, in: &read, notArrived: { _ in true }) {
            read.pending.append(.string(deferral.id))
        }
    }

    private mutating func readValue(_ value: JSONValue, as type: OutputType) throws(Miss) -> JSONValue {
        switch type {
        case .nonNull(let inner):
            if case .null = value { throw Miss() }
            return try readValue(value, as: inner)
        case _ where value.isNull:
            return .null
        case .scalar(let scalar):
            do {
                _ = try scalar.init(_fieldValue: value)
            } catch {
                throw Miss()  // a record changed by hand to the wrong type reads as missing
            }
            return value
        case .list(let element):
            guard case .array(let items) = value else { throw Miss() }
            // (A memo that holds objects already holds those of the list read before.)
            if items.count > 1, memo?.isEmpty != false, let selectionSet = element.selectionSet {
                prefetch(items.compactMap(CacheNaming.referencedKey), selectionSet)
            }
            var result: [JSONValue] = []
            result.reserveCapacity(items.count)
            guard collectsMisses else {
                for item in items { result.append(try readValue(item, as: element)) }
                return .array(result)
            }
            for (index, item) in items.enumerated() {
                result.append(try standingIn(at: .index(index), allowsNull: element.allowsNull) {
                    (reader: inout CacheReader) throws(Miss) in try reader.readValue(item, as: element)
                })
            }
            return .array(result)
        case .object(let selectionSet):
            guard let key = CacheNaming.referencedKey(value) else { throw Miss() }
            if let memo { return .object(try read(key, as: selectionSet, remembering: memo)) }
            return .object(try read(key: key, selections: selectionSet.__selections, parent: selectionSet.__parentType))
        }
    }
}
