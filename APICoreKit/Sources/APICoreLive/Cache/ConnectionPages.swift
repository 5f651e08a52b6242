@_spi(Engine) @_spi(Generated) @_spi(Tools) import APICore
import APICoreSupport
import Foundation

/// The pages of connection fields (``Field/pagination``), merged before they are written: the
/// cache keys such a field without its page arguments, and its lists (`nodes`, `edges`, any list
/// of the connection object, or the field's value when it is a list) grow with each page instead
/// of being replaced by it.
///
/// Where a page goes follows its arguments, at the top or one input object down (`page: {after:}`):
/// `after` appends it, `before` puts it in front, `offset` (or a `page` number counted from 1,
/// times `limit` or `first`) lays it over the list from that position, and none (the first page)
/// replaces the list, as a refresh should. An item already in the list (same
/// `__typename` and `id`, or the same `node`) is replaced where it is, not repeated. `pageInfo`
/// keeps the start of the list's first page and the end of its last.
///
/// A page whose items all have an identity (a key of their own, or a `node` with one: the records
/// key such items by identity, not index) is recorded alone, and its references are spliced into
/// the lists the cache holds (``splices(in:selections:at:records:)``, ``splice(_:into:existing:field:)``):
/// the cost of a page, whatever the length of the list. Other pages are merged with the list read
/// from the cache and recorded whole (``merge(_:into:selections:)``).
package struct ConnectionPages {
    package let variables: JSONObject

    package init(variables: JSONObject) { self.variables = variables }

    /// Whether a selection set holds a connection field at any depth (answered once per type).
    package static func appear(in type: any SelectionSet.Type) -> Bool {
        let id = ObjectIdentifier(type)
        if let known = known.withLock({ $0[id] }) { return known }
        let found = Selection.holdConnection(type.__selections)
        known.withLock { $0[id] = found }
        return found
    }

    private static let known = Locked<[ObjectIdentifier: Bool]>([:])

    /// `incoming` with the pages of its connection fields merged into what `existing` (the same
    /// selections, read from the cache) has of them.
    package func merge(_ incoming: JSONObject, into existing: JSONObject, selections: [Selection]) -> JSONObject {
        var result = incoming
        merge(&result, existing: existing, selections: selections)
        return result
    }

    private func merge(_ object: inout JSONObject, existing: JSONObject, selections: [Selection]) {
        for field in Selection.fields(of: selections) {
            let key = field.responseKey
            if field.pagination != nil, case .array(let items)? = object[key], case .array(let earlier)? = existing[key] {
                // A paged field that is the list itself (`items(offset:, limit:): [Item]`).
                object[key] = .array(Self.combine(earlier, items, at: position(of: field)))
                continue
            }
            guard case .object(var page)? = object[key], case .object(let before)? = existing[key] else { continue }
            if field.pagination != nil {
                object[key] = .object(Self.place(page, into: before, at: position(of: field)))
            } else if let nested = field.type.selectionSet {
                merge(&page, existing: before, selections: nested.__selections)
                object[key] = .object(page)
            }
        }
    }

    /// A connection field in a page's records: the record that holds it, its storage key, and
    /// where the page goes.
    package struct Splice: Sendable, Equatable {
        let record: String
        let field: String
        let position: Position
    }

    /// The connection fields of `data`, recorded under `key` (`records` names the objects on the
    /// way), reached through objects as ``merge(_:into:selections:)`` reaches them. A first page
    /// is none: it replaces the list.
    package func splices(in data: JSONObject, selections: [Selection], at key: String, records: ResponseRecords) -> [Splice] {
        var found: [Splice] = []
        collect(data, selections: selections, at: key, records: records, into: &found)
        return found
    }

    private func collect(_ object: JSONObject, selections: [Selection], at key: String, records: ResponseRecords, into found: inout [Splice]) {
        for field in Selection.fields(of: selections) {
            guard let value = object[field.responseKey], !value.isNull else { continue }
            let storageKey = CacheNaming.storageKey(field, variables: variables)
            if field.pagination != nil {
                let splice = Splice(record: key, field: storageKey, position: position(of: field))
                if splice.position != .first, !found.contains(splice) { found.append(splice) }
            } else if case .object(let nested) = value, let type = field.type.selectionSet {
                let nestedKey = records.cacheKey(for: TreeObject(nested), parent: type.__parentType) ?? "\(key).\(storageKey)"
                collect(nested, selections: type.__selections, at: nestedKey, records: records, into: &found)
            }
        }
    }

    /// Lays the lists of a page's records over those the cache holds (`existing` gives a stored
    /// record's fields, `field` one field of the record holding a connection, which may be a root),
    /// by reference: a list field of the connection (or the paged field's own list) becomes the
    /// stored list with the page's references placed in it, and `pageInfo` keeps the stored start
    /// (or, for a page in front, end) of the list.
    package static func splice(
        _ splices: [Splice], into records: inout [String: JSONObject], existing: (String) -> JSONObject?,
        field: (_ name: String, _ key: String) -> JSONValue?
    ) {
        // An item whose record is new to the cache is in no stored list: the lists need no search.
        let mayHold: (String) -> Bool = { existing($0) != nil }
        for splice in splices {
            guard let incoming = records[splice.record]?[splice.field], let stored = field(splice.field, splice.record) else { continue }
            if case .array(let items) = incoming, case .array(let earlier) = stored {
                records[splice.record]?[splice.field] = .array(
                    combine(earlier, items, at: splice.position, identity: CacheNaming.referencedKey, mayHold: mayHold))
                continue
            }
            guard let key = CacheNaming.referencedKey(incoming), CacheNaming.referencedKey(stored) == key, let page = records[key],
                  let before = existing(key) else { continue }
            var connection = page
            for (name, value) in page {
                guard case .array(let items) = value, case .array(let earlier)? = before[name] else { continue }
                connection[name] = .array(combine(earlier, items, at: splice.position, identity: CacheNaming.referencedKey, mayHold: mayHold))
            }
            records[key] = connection
            if let info = page["pageInfo"].flatMap(CacheNaming.referencedKey), before["pageInfo"].flatMap(CacheNaming.referencedKey) == info,
               let fields = records[info], let earlier = existing(info) {
                records[info] = keepingEnds(of: earlier, in: fields, at: splice.position)
            }
        }
    }

    /// `pageInfo` of a page placed in a list: the list still starts where it did (going forward)
    /// or ends where it did (going back).
    static func keepingEnds(of earlier: JSONObject, in info: JSONObject, at position: Position) -> JSONObject {
        var info = info
        let kept = position == .before ? ["endCursor", "hasNextPage"] : ["startCursor", "hasPreviousPage"]
        for name in kept where info[name] != nil { info[name] = earlier[name] }
        return info
    }

    /// Where a page goes in the list.
    package enum Position: Sendable, Equatable {
        case first
        case after
        case before
        case offset(Int)
    }

    /// The position a field's page arguments give, at the top or one input object down.
    func position(of field: Field) -> Position {
        var values: [String: JSONValue] = [:]
        for (name, argument) in field.arguments where field.pagination?.contains(name) == true {
            guard let value = argument.resolved(with: variables) else { continue }
            values[name] = value
            if case .object(let object) = value { values.merge(object) { own, _ in own } }
        }
        if let after = values["after"], !after.isNull { return .after }
        if let before = values["before"], !before.isNull { return .before }
        if let offset = values["offset"]?.intValue, offset > 0 { return .offset(offset) }
        if let number = values["page"]?.intValue, number > 1 {
            // A page number (counted from 1): at its place when the page size is an argument.
            guard let size = (values["limit"] ?? values["first"])?.intValue else { return .after }
            return .offset((number - 1) * size)
        }
        return .first
    }

    /// A page placed into the connection object the cache has.
    static func place(_ page: JSONObject, into before: JSONObject, at position: Position) -> JSONObject {
        guard position != .first else { return page }
        var merged = page
        for (key, value) in page {
            guard case .array(let items) = value, case .array(let earlier)? = before[key] else { continue }
            merged[key] = .array(combine(earlier, items, at: position))
        }
        if case .object(let info)? = page["pageInfo"], case .object(let earlier)? = before["pageInfo"] {
            merged["pageInfo"] = .object(keepingEnds(of: earlier, in: info, at: position))
        }
        return merged
    }

    /// `items` placed among `earlier`: after them, before them, or over the items from an offset
    /// on (those further on stay; a page at an offset past the end joins at the end). An item
    /// already in the list elsewhere (the same `identity`) is not repeated: after and before
    /// replace it where it is, an offset page takes it to its own place. The list is searched
    /// only when `mayHold` says one of the page's items may be in it.
    static func combine(
        _ earlier: [JSONValue], _ items: [JSONValue], at position: Position, identity: (JSONValue) -> String? = identity(of:),
        mayHold: (String) -> Bool = { _ in true }
    ) -> [JSONValue] {
        let searches = items.contains { identity($0).map(mayHold) == true }
        if case .offset(let offset) = position {
            let start = min(offset, earlier.count)
            let placed = start..<(start + items.count)
            var result = earlier
            result.replaceSubrange(start..<min(placed.upperBound, earlier.count), with: items)
            guard searches else { return result }
            let moved = Set(items.compactMap(identity))
            // (Not `compactMap` with a `nil` literal: `JSONValue` takes it as `null`.)
            return result.indices.filter { placed.contains($0) || identity(result[$0]).map(moved.contains) != true }.map { result[$0] }
        }
        guard searches else { return position == .before ? items + earlier : earlier + items }
        var base = earlier
        var positions: [String: Int] = [:]
        for (index, item) in base.enumerated() {
            if let id = identity(item) { positions[id] = index }
        }
        var fresh: [JSONValue] = []
        for item in items {
            if let id = identity(item), let index = positions[id] {
                base[index] = item
            } else {
                fresh.append(item)
            }
        }
        return position == .before ? fresh + base : base + fresh
    }

    /// `Typename:id` of an item, or of its `node` (a Relay edge).
    static func identity(of item: JSONValue) -> String? {
        guard case .object(let object) = item else { return nil }
        if let id = object["id"], !id.isNull { return "\(object["__typename"]?.stringValue ?? ""):\(JSONSerializer.string(id))" }
        if let node = object["node"] { return identity(of: node) }
        return nil
    }
}
