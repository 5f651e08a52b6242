@_spi(Engine) import APICore
import APICoreSupport
import Foundation

/// A GraphQL result delivered incrementally (`@defer`, `@stream`): the initial payload, then each
/// subsequent payload merged into the data at its path. Both formats in use are read:
///
/// - 2022 (`deferSpec=20220824`, Apollo Server and Router, graphql-js 17 alphas): subsequent
///   payloads carry `incremental: [{data, path, label?, errors?}]` for a deferred fragment and
///   `incremental: [{items, path, label?, errors?}]` for streamed list items, whose path ends with
///   the index of the first of them;
/// - the current proposal (graphql-js 17): the initial payload and later ones announce
///   `pending: [{id, path, label?}]` (a fragment's object, or a streamed list); `incremental:
///   [{id, data, subPath?, errors?}]` fills a fragment, `incremental: [{id, items, errors?}]` adds
///   to a list, and `completed: [{id, errors?}]` ends them.
///
/// Every payload says `hasNext`; the last one says `false`.
package struct IncrementalResult: Sendable {
    /// A deferred fragment: where its fields go, and its label.
    package struct Fragment: Sendable, Hashable {
        package var path: ResponsePath
        package var label: String?
    }

    /// What one payload brought.
    package struct Update: Sendable {
        /// The fragments whose data arrived with it (2022: each `incremental` entry; current:
        /// each `completed` entry without errors).
        package var fulfilled: [Fragment] = []
        /// Errors of the payload, with their paths.
        package var errors: [GraphQLError] = []
        /// How many streamed list items it brought.
        package var streamedItems = 0
    }

    /// The data so far: the initial data with every increment merged in.
    package private(set) var data: JSONObject
    /// Whether more payloads are to come.
    package private(set) var hasNext: Bool
    /// Every error so far.
    package private(set) var errors: [GraphQLError]
    /// Announced fragments not yet completed, by id (current format).
    private var pending: [String: Fragment] = [:]

    /// Starts from the initial payload: `data` (an object, or `null` with errors), `errors`,
    /// `hasNext`, and in the current format `pending`.
    package init(initial payload: JSONObject) throws(APIError) {
        let data = payload["data"]
        guard data?.objectValue != nil || (data?.isNull != false && payload["errors"]?.arrayValue?.isEmpty == false) else {
            throw Self.invalid("the first part of an incremental result has no data and no errors")
        }
        self.data = data?.objectValue ?? [:]
        errors = try Self.errors(in: payload)
        hasNext = payload["hasNext"]?.boolValue ?? false
        try announce(payload)
    }

    /// Merges one subsequent payload.
    package mutating func apply(_ payload: JSONObject) throws(APIError) -> Update {
        guard hasNext else { throw Self.invalid("a part arrived after one that said hasNext: false") }
        var update = Update(errors: try Self.errors(in: payload))
        try announce(payload)
        for entry in payload["incremental"]?.arrayValue ?? [] {
            guard let entry = entry.objectValue else { throw Self.invalid("an incremental entry is not an object") }
            update.errors += try Self.errors(in: entry)
            if let items = entry["items"] {
                guard let items = items.arrayValue else { throw Self.invalid("streamed items that are not a list") }
                try addItems(items, of: entry)
                update.streamedItems += items.count
                continue
            }
            let fragment: Fragment
            if let id = entry["id"]?.stringValue {
                guard let announced = pending[id] else { throw Self.invalid("an increment for \(id), which was never announced as pending") }
                let subPath = try Self.path(entry["subPath"]) ?? []
                fragment = Fragment(path: ResponsePath(announced.path.components + subPath.components), label: announced.label)
            } else {
                guard let path = try Self.path(entry["path"]) else { throw Self.invalid("an incremental entry without a path or an id") }
                fragment = Fragment(path: path, label: entry["label"]?.stringValue)
                // 2022: each entry is one fragment's data.
                if entry["data"]?.objectValue != nil { update.fulfilled.append(fragment) }
            }
            if let fields = entry["data"]?.objectValue {
                try Self.merge(fields, into: &data, at: fragment.path.components[...])
            }
        }
        for entry in payload["completed"]?.arrayValue ?? [] {
            guard let id = entry["id"]?.stringValue, let fragment = pending.removeValue(forKey: id) else {
                throw Self.invalid("a completion for an id that is not pending")
            }
            let completionErrors = try Self.errors(in: entry.objectValue ?? [:])
            update.errors += completionErrors
            if completionErrors.isEmpty { update.fulfilled.append(fragment) }
        }
        errors += update.errors
        hasNext = payload["hasNext"]?.boolValue ?? false
        return update
    }

    /// Streamed items into their list: the current format's go at the end of the list its id
    /// announced; 2022's from the index their path ends with.
    private mutating func addItems(_ items: [JSONValue], of entry: JSONObject) throws(APIError) {
        let listPath: ResponsePath
        var start: Int?
        if let id = entry["id"]?.stringValue {
            guard let announced = pending[id] else { throw Self.invalid("streamed items for \(id), which was never announced as pending") }
            listPath = announced.path
        } else {
            guard let path = try Self.path(entry["path"]), case .index(let index)? = path.components.last else {
                throw Self.invalid("streamed items without an id or a path that ends with an index")
            }
            listPath = ResponsePath(Array(path.components.dropLast()))
            start = index
        }
        guard case .array(var list)? = data.value(at: listPath) else {
            // The server nulled the list (an error inside it): nothing to add to.
            if data.value(at: listPath)?.isNull == true { return }
            throw Self.invalid("streamed items' path \(listPath) is not a list in the data")
        }
        let first = start ?? list.count
        guard first >= 0, first <= list.count else {
            throw Self.invalid("streamed items start at \(first), past the \(list.count) items of \(listPath)")
        }
        list.replaceSubrange(first..<min(list.count, first + items.count), with: items)
        guard data.replaceValue(at: listPath.components[...], with: .array(list)) else {
            throw Self.invalid("streamed items' path \(listPath) is not in the data")
        }
    }

    private mutating func announce(_ payload: JSONObject) throws(APIError) {
        for entry in payload["pending"]?.arrayValue ?? [] {
            guard let id = entry["id"]?.stringValue, let path = try Self.path(entry["path"]) else {
                throw Self.invalid("a pending entry needs an id and a path")
            }
            pending[id] = Fragment(path: path, label: entry["label"]?.stringValue)
        }
    }

    /// Adds `fields` to the object at `path` under `object`, merging nested objects field by field.
    private static func merge(_ fields: JSONObject, into object: inout JSONObject, at path: ArraySlice<ResponsePath.Component>) throws(APIError) {
        guard let first = path.first else {
            deepMerge(fields, into: &object)
            return
        }
        guard case .field(let key) = first, var child = object[key] else {
            throw invalid("an increment's path \(ResponsePath(Array(path))) is not in the data")
        }
        try merge(fields, into: &child, at: path.dropFirst())
        object[key] = child
    }

    private static func merge(_ fields: JSONObject, into value: inout JSONValue, at path: ArraySlice<ResponsePath.Component>) throws(APIError) {
        switch (value, path.first) {
        case (.object(var object), _):
            try merge(fields, into: &object, at: path)
            value = .object(object)
        case (.array(var items), .index(let index)?) where items.indices.contains(index):
            try merge(fields, into: &items[index], at: path.dropFirst())
            value = .array(items)
        case (.null, _):
            // The server nulled the object (an error inside it): nothing to merge into.
            return
        default:
            throw invalid("an increment's path does not lead to an object in the data")
        }
    }

    private static func deepMerge(_ fields: JSONObject, into object: inout JSONObject) {
        for (key, value) in fields {
            if case .object(let incoming) = value, case .object(var existing)? = object[key] {
                deepMerge(incoming, into: &existing)
                object[key] = .object(existing)
            } else {
                object[key] = value
            }
        }
    }

    private static func path(_ value: JSONValue?) throws(APIError) -> ResponsePath? {
        guard let value, !value.isNull else { return nil }
        guard let items = value.arrayValue else { throw invalid("a path that is not a list") }
        var components: [ResponsePath.Component] = []
        for item in items {
            if let name = item.stringValue {
                components.append(.field(name))
            } else if let index = item.intValue {
                components.append(.index(index))
            } else {
                throw invalid("a path with an element that is neither a name nor an index")
            }
        }
        return ResponsePath(components)
    }

    private static func errors(in object: JSONObject) throws(APIError) -> [GraphQLError] {
        guard let list = object["errors"] else { return [] }
        guard let items = list.arrayValue else { throw invalid("errors that are not a list") }
        // Anything unexpected in an error is kept as well as can be (`GraphQLError(json:)`).
        return items.map(GraphQLError.init(json:))
    }

    private static func invalid(_ reason: String) -> APIError {
        .invalidResponse(InvalidResponse(kind: .notGraphQLResponse, statusCode: nil, request: nil, bodyExcerpt: reason))
    }
}
