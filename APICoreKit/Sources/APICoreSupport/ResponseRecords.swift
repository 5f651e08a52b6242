@_spi(Generated) @_spi(Engine) @_spi(Tools) import APICore
import Foundation

extension Duration {
    /// The duration in seconds.
    package var seconds: TimeInterval { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// The keys of the operation types' root records, which gain a field with every new query: the
/// engine names records with them and a persistent store keeps these records field by field.
package enum RootRecordKey {
    package static let query = "QUERY_ROOT"
    package static let mutation = "MUTATION_ROOT"
    package static let subscription = "SUBSCRIPTION_ROOT"
    package static let all = [query, mutation, subscription]
}

/// Cache keys and storage keys: how objects and fields are named in the normalized cache.
package enum CacheNaming {
    package static let queryRoot = RootRecordKey.query
    package static let mutationRoot = RootRecordKey.mutation
    package static let subscriptionRoot = RootRecordKey.subscription
    package static let reference = "__ref"

    /// Whether `key` is an operation type's root record.
    package static func isRoot(_ key: String) -> Bool { key == queryRoot || key == mutationRoot || key == subscriptionRoot }

    /// Whether `key` is the mutation or subscription root, or an object without a key of its own
    /// under one (`MUTATION_ROOT.createReview(…)`): records no query reads, which the cache does
    /// not keep. The objects with keys in a mutation's answer or a subscription's event are kept
    /// (queries read them); the roots' own fields, one more for every mutation sent with new
    /// variables, would only grow.
    package static func isOperationOnly(_ key: String) -> Bool {
        key == mutationRoot || key == subscriptionRoot || key.hasPrefix(operationOnlyPrefixes.mutation)
            || key.hasPrefix(operationOnlyPrefixes.subscription)
    }

    /// The start of the path keys under the mutation and subscription roots.
    private static let operationOnlyPrefixes = (mutation: mutationRoot + ".", subscription: subscriptionRoot + ".")

    package static func rootKey(for type: GraphQLOperationType) -> String {
        switch type {
        case .query: return queryRoot
        case .mutation: return mutationRoot
        case .subscription: return subscriptionRoot
        }
    }

    /// `name`, or `name(arg:value,…)` with arguments sorted and values as compact JSON, so that
    /// `hero(episode: JEDI)` and `hero(episode: EMPIRE)` are different fields.
    /// An argument whose variable has no value is not given, as GraphQL resolves it: `hero` with
    /// `$episode` left out is keyed `hero`, as the server answers it, and `hero(episode: null)`
    /// apart. A connection field is keyed without its page arguments, so that its pages share one
    /// record.
    package static func storageKey(_ field: Field, variables: JSONObject) -> String {
        if field.arguments.isEmpty { return field.name }
        var text: [String] = []
        for (name, argument) in field.arguments.sorted(by: { $0.key < $1.key }) where field.pagination?.contains(name) != true {
            guard let value = argument.resolved(with: variables) else { continue }
            text.append("\(name):\(JSONSerializer.string(value))")
        }
        return text.isEmpty ? field.name : "\(field.name)(\(text.joined(separator: ",")))"
    }

    /// What a watcher that read one field of a root record depends on: that field, not the whole
    /// root, which gains a field with every query written.
    package static func fieldDependency(_ root: String, _ storageKey: String) -> String { root + "\u{1F}" + storageKey }

    /// The root and the field of a ``fieldDependency(_:_:)``; `nil` for a record's key.
    package static func rootField(ofDependency dependency: String) -> (root: String, field: String)? {
        guard let separator = dependency.firstIndex(of: "\u{1F}") else { return nil }
        return (String(dependency[..<separator]), String(dependency[dependency.index(after: separator)...]))
    }

    /// The record a dependency is on: the key itself, or the root of a field dependency.
    package static func recordKey(ofDependency dependency: String) -> String {
        dependency.firstIndex(of: "\u{1F}").map { String(dependency[..<$0]) } ?? dependency
    }

    /// What a watcher that found no root record at all depends on: any field of it.
    package static func anyField(of root: String) -> String { root + "\u{1F}*" }

    /// `Typename:value:…`, an object's record key from the values of its key fields (strings and
    /// numbers); `nil` when one is missing or anything else, or when `typename` is no GraphQL name.
    package static func objectKey(_ typename: String, keyValues: [JSONValue?]) -> String? {
        guard isName(typename) else { return nil }
        var key = typename
        for value in keyValues {
            guard let part = keyPart(value) else { return nil }
            key += ":"
            key += part
        }
        return key
    }

    /// Whether `text` is a GraphQL name (`[_A-Za-z][_0-9A-Za-z]*`). A `__typename` that is not
    /// names no record (its key could fall among the roots' path keys: `MUTATION_ROOT.x:1`).
    package static func isName(_ text: String) -> Bool {
        var utf8 = text.utf8.makeIterator()
        guard let first = utf8.next(), first == UInt8(ascii: "_") || (first | 0x20) >= UInt8(ascii: "a") && (first | 0x20) <= UInt8(ascii: "z")
        else { return false }
        while let byte = utf8.next() {
            let letter = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            guard letter || byte == UInt8(ascii: "_") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return false }
        }
        return true
    }

    /// A key field's value as it is written in a record key: a string as it is, a number as
    /// written; `nil` for anything else.
    package static func keyPart(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let string)?: return string
        case .int(let int)?: return String(int)
        case .number(let number)?: return number.text
        default: return nil
        }
    }

    /// The reference to a record, as stored in a field.
    package static func reference(to key: String) -> JSONValue { .object([reference: .string(key)]) }

    /// The keys a field's value refers to, at any depth of lists.
    package static func collectReferences(_ value: JSONValue, into keys: inout [String]) {
        if let key = referencedKey(value) {
            keys.append(key)
        } else if case .array(let items) = value {
            for item in items { collectReferences(item, into: &keys) }
        }
    }

    /// The key a field holds a reference to.
    package static func referencedKey(_ value: JSONValue) -> String? {
        guard case .object(let object) = value, object.count == 1 else { return nil }
        return object[reference]?.stringValue
    }
}

/// The cache's records of a response, built by `SelectionValidator` or `TapeCheck` as it checks
/// the data (this is their ``ResponseRecorder``): one walk gives both. An object gets its own
/// record under `Typename:key` (from a registered key function, else its key fields); an object
/// without a key is stored under its path from the nearest keyed parent, and a field holding an
/// object holds a reference to its record. A mutation's or subscription's root, and the objects
/// without a key under it, get none (``CacheNaming/isOperationOnly(_:)``: the cache keeps none).
///
/// A response with errors (partial data) leaves out the fields at the errors' paths, and a `null`
/// on the way to one. Fields expire as the server's cache policy says, and as the schema's `@cacheControl` says (``Field/cacheMaxAge``)
/// (``init(variables:keyFunctions:errors:expiry:expiryByPath:receivedAt:keepingOnTape:)``).
package struct ResponseRecords: ResponseRecorder {
    let variables: JSONObject
    let keyFunctions: [String: @Sendable (JSONObject) -> String?]
    /// The response paths (dotted) that errors name, and every prefix of them: a field at one of
    /// the first is not written, nor a `null` at one of the second. Empty for a response without
    /// errors, and then no path is tracked at all.
    private let erroredPaths: Set<String>
    private let erroredPrefixes: Set<String>
    /// When the whole answer expires, and when fields expire by response path (what is below them
    /// too, unless a nearer path expires sooner).
    private let expiry: Date?
    private let expiryByPath: [String: Date]
    /// When the answer arrived: a field's schema-declared maximum age counts from then.
    private let receivedAt: Date
    /// Whether response paths are tracked (for errors or expiry by path).
    private let tracksPaths: Bool
    /// The records, by key (but those still on the tape).
    package private(set) var records: [String: JSONObject] = [:]
    /// The records kept on the answer's tape (``init(variables:keyFunctions:errors:expiry:expiryByPath:receivedAt:keepingOnTape:)``), by key.
    package private(set) var onTape: [String: TapeRecord] = [:]
    /// Whether a record that is an object of the tape whole stays there until it is written.
    private let keepsOnTape: Bool
    /// When fields expire, by record key and storage key.
    package private(set) var expires: [String: [String: Date]] = [:]
    /// The last selection set ``plainLeafCount(of:)`` was asked for, and its count: the objects of
    /// a list are most often of one selection set.
    private var lastPlainLeafCount: (type: ObjectIdentifier, count: Int?)?
    /// ``plainLeafCount(of:)`` by selection set, worked out once for the process (a selection set
    /// is a type: it does not change).
    private static let plainLeafCounts = Locked<[ObjectIdentifier: Int?]>([:])
    /// The `node` field of a selection set (a Relay edge's), by selection set, found once per walk.
    private var nodeFields: [ObjectIdentifier: Field?] = [:]
    /// Whether an item of a connection's list (``Field/pagination``) had no identity to be keyed by
    /// (neither a key of its own nor a `node` with one): it is keyed by its index in the page, so
    /// the page cannot be spliced into the list by reference.
    package private(set) var hasUnidentifiedPageItems = false

    /// Records of a response under `variables`; `errors` are those of a response with partial
    /// data; `expiry` is when its fields expire, `expiryByPath` when the fields at (and under) a
    /// dotted response path do. With `keepingOnTape`, a record that is an object of a tape whole
    /// is kept there (``onTape``) and made a tree when written.
    package init(
        variables: JSONObject, keyFunctions: [String: @Sendable (JSONObject) -> String?], errors: [GraphQLError] = [], expiry: Date? = nil,
        expiryByPath: [String: Date] = [:], receivedAt: Date = Date(), keepingOnTape: Bool = false
    ) {
        self.keepsOnTape = keepingOnTape
        self.receivedAt = receivedAt
        self.variables = variables
        self.keyFunctions = keyFunctions
        self.expiry = expiry
        self.expiryByPath = expiryByPath
        let paths = errors.compactMap(\.path).filter { !$0.components.isEmpty }
        erroredPaths = Set(paths.map(\.description))
        erroredPrefixes = Set(paths.flatMap { path in
            (1...path.components.count).map { ResponsePath(Array(path.components.prefix($0))).description }
        })
        tracksPaths = !erroredPaths.isEmpty || !expiryByPath.isEmpty
    }

    /// The record being built for one object: its key, where the object is in the response, when
    /// its fields expire, and its fields so far.
    package struct Place {
        package let key: String
        let responsePath: String?
        let expiry: Date?
        var fields: JSONObject = [:]
        /// Whether the record is the checked object itself: its selections are plain leaves
        /// (``plainLeafCount(of:)``) and it holds nothing else, so no field is written one by one.
        var adopting = false
        /// The selection set of an adopted object.
        var shape: ObjectIdentifier?
        /// Whether the object is a connection (the value of a field with page arguments): the items
        /// of its lists are keyed by identity, not index.
        var isConnection = false
        /// Whether the record is one the cache does not keep (``CacheNaming/isOperationOnly(_:)``:
        /// a mutation's or subscription's root, and the objects without a key under it): its
        /// fields are not written, while the objects with keys below it are recorded.
        var discarded = false
        /// Whether the record that holds the object is not kept: no reference to it is stored.
        var inDiscarded = false
    }

    /// Where one value goes: the field's storage key in its record, the list indices down to the
    /// value, and what the value's objects inherit (their path in the response, their expiry).
    package struct Slot {
        let recordKey: String
        let storageKey: String
        /// The index in the innermost list, and those of the lists around it (kept apart so that
        /// an item of a plain list costs no allocation).
        var index: Int?
        var outerIndices: [Int] = []
        var responsePath: String?
        let expiry: Date?
        /// Whether the field has page arguments (``Field/pagination``).
        var isPaged = false
        /// Whether the items of this list are a connection's, keyed by identity rather than index
        /// so that a page put in front does not rename every item after it.
        var keysItemsByIdentity = false
        /// Whether the record the slot is in is not kept: an object without a key here is not either.
        var inDiscarded = false

        /// The slot of a list's item.
        func item(_ index: Int) -> Slot {
            var item = self
            if let outer = self.index { item.outerIndices.append(outer) }
            item.index = index
            item.responsePath = responsePath.map { "\($0).\(index)" }
            return item
        }

        /// `recordKey.storageKey.index…`: the key of an object here without one of its own.
        var pathKey: String {
            var key = "\(recordKey).\(storageKey)"
            for index in outerIndices { key += ".\(index)" }
            if let index { key += ".\(index)" }
            return key
        }
    }

    /// The record of the object at `path` of the response (the data itself, or an increment's
    /// object), under `key`.
    package func place(key: String, at path: ResponsePath = []) -> Place {
        Place(
            key: key, responsePath: tracksPaths ? (path.components.isEmpty ? "" : path.description) : nil, expiry: expiry,
            discarded: CacheNaming.isOperationOnly(key))
    }

    /// Where a field's value goes in `place`; `nil` when an error names the field (or it is a
    /// `null` on the way to an error).
    package mutating func slot(for field: Field, isNull: Bool, in place: inout Place) -> Slot? {
        // An object of plain leaves is its own record: nothing to place field by field.
        if place.adopting { return nil }
        let fieldPath = place.responsePath.map { $0.isEmpty ? field.responseKey : "\($0).\(field.responseKey)" }
        if let fieldPath, erroredPaths.contains(fieldPath) || (isNull && erroredPrefixes.contains(fieldPath)) { return nil }
        let storageKey = CacheNaming.storageKey(field, variables: variables)
        var expiry = place.expiry
        if let fieldPath, let hinted = expiryByPath[fieldPath] { expiry = min(expiry ?? hinted, hinted) }
        if let age = field.cacheMaxAge {
            let declared = receivedAt.addingTimeInterval(age.seconds)
            expiry = min(expiry ?? declared, declared)
        }
        if let expiry, !place.discarded { expires[place.key, default: [:]][storageKey] = expiry }
        let isPaged = field.pagination != nil
        return Slot(
            recordKey: place.key, storageKey: storageKey, responsePath: fieldPath, expiry: expiry, isPaged: isPaged,
            keysItemsByIdentity: isPaged || place.isConnection, inDiscarded: place.discarded)
    }

    /// The record of an object found at `slot`: its own key, or its path from the record that
    /// holds it.
    @_specialize(where Object == TreeObject)
    @_specialize(where Object == TapeObject)
    package mutating func place<Object: RecordedObject>(for object: Object, of type: any SelectionSet.Type, at slot: Slot) -> Place {
        let ownKey = cacheKey(for: object, parent: type.__parentType) ?? itemKey(for: object, of: type, at: slot)
        // An object without a key under a record the cache does not keep is not kept either.
        let discarded = ownKey == nil && slot.inDiscarded
        let key = ownKey ?? slot.pathKey
        // Without paths or expiry to note field by field, an object of plain leaves is its record.
        if !tracksPaths, slot.expiry == nil, plainLeafCount(of: type) == object.memberCount {
            return Place(
                key: key, responsePath: nil, expiry: nil, adopting: true, shape: ObjectIdentifier(type), discarded: discarded,
                inDiscarded: slot.inDiscarded)
        }
        return Place(
            key: key, responsePath: slot.responsePath, expiry: slot.expiry,
            fields: discarded ? [:] : JSONObject(minimumCapacity: object.memberCount),
            isConnection: slot.isPaged && slot.index == nil, discarded: discarded, inDiscarded: slot.inDiscarded)
    }

    /// The key of a connection's list item without a key of its own: `list.<key of its node>` (a
    /// Relay edge), the same whatever its index. `nil` elsewhere, and for an item without such a
    /// node (then keyed by index, and noted in ``hasUnidentifiedPageItems``).
    @_specialize(where Object == TreeObject)
    @_specialize(where Object == TapeObject)
    private mutating func itemKey<Object: RecordedObject>(for object: Object, of type: any SelectionSet.Type, at slot: Slot) -> String? {
        guard slot.keysItemsByIdentity, slot.index != nil else { return nil }
        guard slot.outerIndices.isEmpty, let node = nodeField(of: type), let value = object.object("node"),
              let nodeType = node.type.selectionSet,
              let nodeKey = cacheKey(for: value, parent: nodeType.__parentType)
        else {
            hasUnidentifiedPageItems = true
            return nil
        }
        return "\(slot.recordKey).\(slot.storageKey).\(nodeKey)"
    }

    private mutating func nodeField(of type: any SelectionSet.Type) -> Field? {
        let id = ObjectIdentifier(type)
        if let known = nodeFields[id] { return known }
        let field = Selection.fields(of: type.__selections).first { $0.responseKey == "node" }
        nodeFields[id] = field
        return field
    }

    /// How many fields `selections` select when they are only fields without alias, arguments or
    /// maximum age whose values hold no object (their storage keys are their response keys, their
    /// values are stored as they came); `nil` when they are anything else.
    private mutating func plainLeafCount(of type: any SelectionSet.Type) -> Int? {
        let id = ObjectIdentifier(type)
        if let last = lastPlainLeafCount, last.type == id { return last.count }
        let count: Int?
        if let known = Self.plainLeafCounts.withLock({ $0[id] }) {
            count = known
        } else {
            count = Self.plainLeafCount(of: type.__selections)
            Self.plainLeafCounts.withLock { $0[id] = count }
        }
        lastPlainLeafCount = (id, count)
        return count
    }

    static func plainLeafCount(of selections: [Selection]) -> Int? {
        for selection in selections {
            guard case .field(let field) = selection, field.alias == nil, field.arguments.isEmpty, field.catchTo == nil,
                  field.cacheMaxAge == nil, !field.type.holdsObjects else { return nil }
        }
        return selections.count
    }

    package static func item(_ index: Int, of slot: Slot) -> Slot { slot.item(index) }

    package static func store(_ value: JSONValue, at slot: Slot, in place: inout Place) {
        if !place.discarded { place.fields[slot.storageKey] = value }
    }

    package static func reference(to place: Place) -> JSONValue { place.inDiscarded ? .null : CacheNaming.reference(to: place.key) }

    /// Adds the record of a checked object (the checked data itself when the record adopts it).
    @_specialize(where Object == TreeObject)
    @_specialize(where Object == TapeObject)
    package mutating func finish<Object: RecordedObject>(_ place: Place, checked: Object) {
        if place.discarded { return }
        var place = place
        if place.adopting {
            // Kept on the tape when nothing else is recorded under its key, or only the same
            // object read with the same selections (whose fields this one all replaces).
            if keepsOnTape, let shape = place.shape, records[place.key] == nil, let value = checked.onTape {
                let record = TapeRecord(value: value, shape: shape)
                if record.replaces(onTape[place.key]) {
                    onTape[place.key] = record
                    return
                }
            }
            place.fields = checked.tree
        }
        add(place)
    }

    /// Adds a finished record. An object can hold itself (a hero among its own friends): what
    /// was written under the same key further down stays, and this object's own fields go on top.
    mutating func add(_ place: Place) {
        if let kept = onTape.removeValue(forKey: place.key) { records[place.key] = kept.fields }
        Self.add(place.fields, to: &records[place.key, default: [:]])
    }

    private static func add(_ fields: JSONObject, to record: inout JSONObject) {
        if record.isEmpty {
            record = fields
        } else if record != fields {
            // An object met again (a product on many order lines) is most often the same: then
            // the record is left as it is, without writing its fields again.
            record.merge(fields) { _, own in own }
        }
    }

    /// The key of the record that holds the object at the end of `path`, as recording the whole
    /// `data` under `rootKey` names it.
    package func recordKey(of path: SelectionPath, in data: JSONObject, rootKey: String) -> String? {
        var key = rootKey
        var object = data
        for step in path.steps {
            var value = object[step.field.responseKey] ?? .null
            for index in step.indices {
                guard case .array(let items) = value, items.indices.contains(index) else { return nil }
                value = items[index]
            }
            guard case .object(let next) = value, let selectionSet = step.field.type.selectionSet else { return nil }
            key = cacheKey(for: TreeObject(next), parent: selectionSet.__parentType)
                ?? step.indices.reduce("\(key).\(CacheNaming.storageKey(step.field, variables: variables))") { "\($0).\($1)" }
            object = next
        }
        return key
    }

    /// `Typename:value` from the key function or key fields of the object's runtime type
    /// (`__typename`), whatever type the field declares, when the object has them.
    @_specialize(where Object == TreeObject)
    @_specialize(where Object == TapeObject)
    package func cacheKey<Object: RecordedObject>(for object: Object, parent: ParentType) -> String? {
        let typename = object[member: "__typename"]?.stringValue ?? parent.name
        guard CacheNaming.isName(typename) else { return nil }
        if !keyFunctions.isEmpty, let function = keyFunctions[typename] {
            return function(object.tree).map { "\(typename):\($0)" }
        }
        let keyFields = parent.keyFields(forTypename: typename)
        guard !keyFields.isEmpty else { return nil }
        // As `CacheNaming.objectKey` makes it, without an array of values: a string or a number each.
        var key = typename
        for name in keyFields {
            guard let part = CacheNaming.keyPart(object[member: name]) else { return nil }
            key += ":"
            key += part
        }
        return key
    }
}
