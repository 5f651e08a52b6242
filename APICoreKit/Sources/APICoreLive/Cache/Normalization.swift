@_spi(Generated) @_spi(Engine) import APICore
import Foundation

/// Cache keys and storage keys: how objects and fields are named in the normalized cache.
package enum CacheNaming {
    package static let queryRoot = RootRecordKey.query
    package static let mutationRoot = RootRecordKey.mutation
    package static let subscriptionRoot = RootRecordKey.subscription
    package static let reference = "__ref"

    /// Whether `key` is an operation type's root record.
    package static func isRoot(_ key: String) -> Bool { key == queryRoot || key == mutationRoot || key == subscriptionRoot }

    package static func rootKey(for type: GraphQLOperationType) -> String {
        switch type {
        case .query: return queryRoot
        case .mutation: return mutationRoot
        case .subscription: return subscriptionRoot
        }
    }

    /// `name`, or `name(arg:value,…)` with arguments sorted and values as compact JSON, so that
    /// `hero(episode: JEDI)` and `hero(episode: EMPIRE)` are different fields.
    /// A connection field is keyed without its page arguments, so that its pages share one record.
    package static func storageKey(_ field: Field, variables: JSONObject) -> String {
        if field.arguments.isEmpty { return field.name }
        var arguments = field.arguments.sorted { $0.key < $1.key }
        if let pagination = field.pagination { arguments.removeAll { pagination.contains($0.key) } }
        if arguments.isEmpty { return field.name }
        let text = arguments.map { "\($0.key):\(JSONSerializer.string($0.value.resolved(with: variables)))" }
        return "\(field.name)(\(text.joined(separator: ",")))"
    }

    /// What a watcher that read one field of a root record depends on: that field, not the whole
    /// root, which gains a field with every query written.
    package static func fieldDependency(_ root: String, _ storageKey: String) -> String { root + "\u{1F}" + storageKey }

    /// The record a dependency is on: the key itself, or the root of a field dependency.
    package static func recordKey(ofDependency dependency: String) -> String {
        dependency.firstIndex(of: "\u{1F}").map { String(dependency[..<$0]) } ?? dependency
    }

    /// What a watcher that found no root record at all depends on: any field of it.
    package static func anyField(of root: String) -> String { root + "\u{1F}*" }

    /// The reference to a record, as stored in a field.
    package static func reference(to key: String) -> JSONValue { .object([reference: .string(key)]) }

    /// The key a field holds a reference to.
    package static func referencedKey(_ value: JSONValue) -> String? {
        guard case .object(let object) = value, object.count == 1 else { return nil }
        return object[reference]?.stringValue
    }
}

/// Turns a response's data into records, following the selection-set metadata that validated it.
/// An object gets its own record under `Typename:key` (from a registered key function, else its
/// key fields); an object without a key is stored under its path from the nearest keyed parent.
package struct Normalizer: SelectionVisitor {
    package let variables: JSONObject
    let keyFunctions: [String: CacheConfiguration.KeyFunction]
    /// The response paths (dotted) that errors name, and every prefix of them: a field at one of
    /// the first is not written, nor a `null` at one of the second. Empty for a response without
    /// errors, and then no path is tracked at all.
    private let erroredPaths: Set<String>
    private let erroredPrefixes: Set<String>
    /// The server's maximum ages by response path, and when its answer was received.
    private let hints: [String: Duration]
    private let receivedAt: Date
    /// When the whole answer expires, by the server's `Cache-Control`.
    private let rootExpiry: Date?
    package private(set) var records: [String: JSONObject] = [:]
    /// When fields expire, by record key and storage key, as the server's policy says.
    package private(set) var expires: [String: [String: Date]] = [:]

    /// A normalizer; `errors` are those of a response with partial data, whose fields at the
    /// errors' paths are left out; `policy` is what the server said about caching its answer,
    /// received at `receivedAt`.
    package init(
        variables: JSONObject, keyFunctions: [String: CacheConfiguration.KeyFunction], errors: [GraphQLError] = [],
        policy: ServerCachePolicy = .none, receivedAt: Date = Date()
    ) {
        self.variables = variables
        self.keyFunctions = keyFunctions
        self.hints = policy.hints
        self.receivedAt = receivedAt
        self.rootExpiry = policy.maxAge.map { receivedAt.addingTimeInterval($0.seconds) }
        let paths = errors.compactMap(\.path).filter { !$0.components.isEmpty }
        erroredPaths = Set(paths.map(\.description))
        erroredPrefixes = Set(paths.flatMap { path in
            (1...path.components.count).map { ResponsePath(Array(path.components.prefix($0))).description }
        })
    }

    /// Adds the records of `object`, selected by `selections` on `parent`, under `key`; `path` is
    /// where the object is in the response (for the errors' paths).
    package mutating func normalize(_ object: JSONObject, selections: [Selection], parent: ParentType, key: String, at path: ResponsePath = []) {
        let tracksPaths = !erroredPaths.isEmpty || !hints.isEmpty
        normalize(
            object, selections: selections, parent: parent, key: key,
            responsePath: tracksPaths ? (path.components.isEmpty ? "" : path.description) : nil, expiry: rootExpiry)
    }

    /// The key of the record that holds the object at the end of `path`, as normalizing the whole
    /// `data` under `rootKey` names it.
    package func recordKey(of path: SelectionPath, in data: JSONObject, rootKey: String) -> String? {
        var key = rootKey
        var object = data
        for step in path.steps {
            var value = object[step.field.responseKey] ?? .null
            var relative = CacheNaming.storageKey(step.field, variables: variables)
            for index in step.indices {
                guard case .array(let items) = value, items.indices.contains(index) else { return nil }
                value = items[index]
                relative += ".\(index)"
            }
            guard case .object(let next) = value, let selectionSet = step.field.type.selectionSet else { return nil }
            key = cacheKey(for: next, parent: selectionSet.__parentType) ?? "\(key).\(relative)"
            object = next
        }
        return key
    }

    private mutating func normalize(
        _ object: JSONObject, selections: [Selection], parent: ParentType, key: String, responsePath: String?, expiry: Date?
    ) {
        var record = Record(object: object, key: key, responsePath: responsePath, expiry: expiry)
        walk(selections, parent: parent, in: &record)
        // An object can hold itself (a hero among its own friends): what was written under the
        // same key further down stays, and this object's own fields go on top of it.
        records[key, default: [:]].merge(record.fields) { _, own in own }
    }

    /// One object as the walk goes: the response's object, the record it goes into and where it
    /// is in the response, and the fields written so far. A deferred fragment is walked as any
    /// other: what of it has arrived is written; the rest is absent, as left-out fields are.
    package struct Record {
        let object: JSONObject
        let key: String
        let responsePath: String?
        /// When the fields of this object expire, by the server's policy for what holds it.
        let expiry: Date?
        var fields: JSONObject = [:]
    }

    package func typename(of record: Record) -> String? { record.object["__typename"]?.stringValue }

    @inline(__always)
    package mutating func visit(_ field: Field, in record: inout Record) {
        guard let value = record.object[field.responseKey] else { return }  // left out by @include/@skip, or not arrived
        let fieldPath = record.responsePath.map { $0.isEmpty ? field.responseKey : "\($0).\(field.responseKey)" }
        if let fieldPath, erroredPaths.contains(fieldPath) || (value.isNull && erroredPrefixes.contains(fieldPath)) { return }
        let storageKey = CacheNaming.storageKey(field, variables: variables)
        var expiry = record.expiry
        if let fieldPath, let hint = hints[fieldPath] {
            let hinted = receivedAt.addingTimeInterval(hint.seconds)
            expiry = min(expiry ?? hinted, hinted)
        }
        if let expiry { expires[record.key, default: [:]][storageKey] = expiry }
        record.fields[storageKey] = normalize(
            value, as: field.type, parentKey: record.key, path: storageKey, responsePath: fieldPath, expiry: expiry)
    }

    private mutating func normalize(
        _ value: JSONValue, as type: OutputType, parentKey: String, path: String, responsePath: String?, expiry: Date?
    ) -> JSONValue {
        switch type {
        case .nonNull(let inner):
            return normalize(value, as: inner, parentKey: parentKey, path: path, responsePath: responsePath, expiry: expiry)
        case .scalar:
            return value
        case .list(let element):
            guard case .array(let items) = value else { return value }
            var result: [JSONValue] = []
            result.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                result.append(normalize(
                    item, as: element, parentKey: parentKey, path: "\(path).\(index)", responsePath: responsePath.map { "\($0).\(index)" },
                    expiry: expiry))
            }
            return .array(result)
        case .object(let selectionSet):
            guard case .object(let object) = value else { return value }
            let parent = selectionSet.__parentType
            let key = cacheKey(for: object, parent: parent) ?? "\(parentKey).\(path)"
            normalize(object, selections: selectionSet.__selections, parent: parent, key: key, responsePath: responsePath, expiry: expiry)
            return CacheNaming.reference(to: key)
        }
    }

    /// `Typename:value` from the type's key function or key fields, when the object has them.
    func cacheKey(for object: JSONObject, parent: ParentType) -> String? {
        let typename = object["__typename"]?.stringValue ?? parent.name
        if let function = keyFunctions[typename] {
            return function(object).map { "\(typename):\($0)" }
        }
        guard !parent.keyFields.isEmpty else { return nil }
        var parts: [String] = []
        for field in parent.keyFields {
            switch object[field] {
            case .string(let string)?: parts.append(string)
            case .int(let int)?: parts.append(String(int))
            case .number(let number)?: parts.append(number.text)
            default: return nil
            }
        }
        return "\(typename):\(parts.joined(separator: ":"))"
    }
}

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
