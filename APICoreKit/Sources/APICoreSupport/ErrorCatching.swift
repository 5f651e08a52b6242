@_spi(Generated) @_spi(Engine) import APICore

/// `@catch(to:)` at run time: which field of an operation catches each error of an answer, and the
/// data the app reads once they are caught.
///
/// A server that fails a field sets the nearest nullable position at or above it to `null` and
/// names the field in the error's path. From that `null` up to the root, the first field whose
/// metadata catches (`Field.catchTo`) takes the error: `.null` makes the field `null`, `.result`
/// puts the error in the field (``CaughtError``, read as `Result.failure`). An error that no field
/// catches, or that has no path, fails the operation as before, with the partial data.
package enum ErrorCatching {
    /// `data` with every error caught where the selections say, and the errors; `nil` when any
    /// error is not caught (or there are none to catch).
    package static func catching(_ errors: [GraphQLError], in data: JSONObject, selections: [Selection]) -> JSONObject? {
        guard !errors.isEmpty else { return nil }
        var catches: [(path: [ResponsePath.Component], to: Field.CatchTo, error: GraphQLError)] = []
        for error in errors {
            guard let path = error.path, let caught = catcher(of: path.components, in: data, selections: selections) else { return nil }
            catches.append((caught.path, caught.to, error))
        }
        var result = JSONValue.object(data)
        // Outer catches first: an error caught further down inside a field another error nulls
        // has nowhere left to go, and the outer one wins.
        for caught in catches.sorted(by: { $0.path.count < $1.path.count }) {
            let value: JSONValue = caught.to == .null ? .null : CaughtError.value(of: caught.error)
            set(value, at: caught.path[...], in: &result)
        }
        return result.objectValue
    }

    /// The path of the field that catches an error at `path`, and how; `nil` when none does.
    private static func catcher(of path: [ResponsePath.Component], in data: JSONObject, selections: [Selection])
        -> (path: [ResponsePath.Component], to: Field.CatchTo)?
    {
        // The fields down the path as far as the data goes (the server's `null` ends it), each
        // with the length of the path up to it.
        var chain: [(field: Field, end: Int)] = []
        var value = JSONValue.object(data)
        var selections = selections
        var index = 0
        walk: while index < path.count {
            switch path[index] {
            case .field(let key):
                guard case .object(let object) = value, let field = field(key, in: selections) else { break walk }
                chain.append((field, index + 1))
                guard let next = object[key] else { break walk }
                value = next
                selections = field.type.selectionSet?.__selections ?? []
            case .index(let position):
                guard case .array(let items) = value, items.indices.contains(position) else { break walk }
                value = items[position]
            }
            index += 1
            if value.isNull { break }
        }
        for link in chain.reversed() {
            if let to = link.field.catchTo { return (Array(path.prefix(link.end)), to) }
        }
        return nil
    }

    /// The field with this response key, in any branch (fields of one key are merged, so any
    /// says how the key is caught; one that catches wins).
    private static func field(_ key: String, in selections: [Selection]) -> Field? {
        let fields = Selection.fields(of: selections).filter { $0.responseKey == key }
        return fields.first { $0.catchTo != nil } ?? fields.first
    }

    private static func set(_ value: JSONValue, at path: ArraySlice<ResponsePath.Component>, in target: inout JSONValue) {
        guard let first = path.first else {
            target = value
            return
        }
        switch (first, target) {
        case (.field(let key), .object(var object)):
            guard var inner = object[key] else { return }
            target = .null  // one owner while the object changes
            set(value, at: path.dropFirst(), in: &inner)
            object[key] = inner
            target = .object(object)
        case (.index(let position), .array(var items)) where items.indices.contains(position):
            target = .null
            set(value, at: path.dropFirst(), in: &items[position])
            target = .array(items)
        default:
            return  // the value above was nulled by an outer catch
        }
    }
}
