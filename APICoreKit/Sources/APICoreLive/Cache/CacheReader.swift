@_spi(Generated) @_spi(Engine) import APICore
import Foundation

/// Rebuilds a response's data from records, following the same metadata. Every selected field
/// must be there with a value of its declared type; anything else is a miss, never a crash or a
/// default value. The records read are collected, for watchers.
package struct CacheReader: SelectionVisitor {
    package struct Miss: Error {}

    package let variables: JSONObject
    /// The time of the read, against which the fields' expiry is checked.
    let now: Date
    let lookup: (String) -> CacheRecord?
    let prefetch: ([String]) -> Void
    let isExpired: (CacheRecord) -> Bool
    package private(set) var dependencies: Set<String> = []
    package private(set) var sawExpired = false

    /// A reader; `prefetch` is told the keys a list refers to before they are read one by one, so a
    /// persistent store can load them in one query.
    package init(
        variables: JSONObject, now: Date, lookup: @escaping (String) -> CacheRecord?, prefetch: @escaping ([String]) -> Void = { _ in },
        isExpired: @escaping (CacheRecord) -> Bool
    ) {
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
        guard let record = lookup(key) else {
            if isRoot { dependencies.insert(CacheNaming.anyField(of: key)) }
            throw Miss()
        }
        if isExpired(record) { sawExpired = true }
        var read = Read(
            record: record.fields, expires: record.expires, out: JSONObject(minimumCapacity: selections.count), root: isRoot ? key : nil)
        try walk(selections, parent: parent, in: &read)
        if !read.pending.isEmpty { read.out[Deferral.pendingKey] = .array(read.pending) }
        return read.out
    }

    /// One record as the walk goes: its fields, the object read from them so far, and the
    /// deferred fragments whose data is not in the cache.
    package struct Read {
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
        guard let value = read.record[storageKey] else { throw Miss() }
        if !read.expires.isEmpty, let expiry = read.expires[storageKey], expiry < now { sawExpired = true }
        read.out[field.responseKey] = try readValue(value, as: field.type)
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
            if items.count > 1 { prefetch(items.compactMap(CacheNaming.referencedKey)) }
            var result: [JSONValue] = []
            result.reserveCapacity(items.count)
            for item in items { result.append(try readValue(item, as: element)) }
            return .array(result)
        case .object(let selectionSet):
            guard let key = CacheNaming.referencedKey(value) else { throw Miss() }
            return .object(try read(key: key, selections: selectionSet.__selections, parent: selectionSet.__parentType))
        }
    }
}
