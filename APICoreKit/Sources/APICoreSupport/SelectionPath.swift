@_spi(Generated) @_spi(Engine) import APICore

/// Where a response path leads in selection metadata: for incremental delivery, which applies an
/// increment to the one object it concerns instead of reading the whole data again.
package struct SelectionPath {
    /// A field followed down the path, with the list indices after it.
    package struct Step {
        package let field: Field
        package let indices: [Int]
    }

    /// The fields followed from the root.
    package let steps: [Step]
    /// The object at the end of the path.
    package let object: JSONObject
    /// Its selections and type.
    package let selections: [Selection]
    package let parent: ParentType

    /// Follows `path` from the root `data` through `selections`; `nil` when it does not lead to
    /// an object that the selections describe.
    package init?(_ path: ResponsePath, in data: JSONObject, selections: [Selection], parent: ParentType, variables: JSONObject) {
        var steps: [Step] = []
        var object = data
        var selections = selections
        var parent = parent
        var components = path.components[...]
        while let first = components.popFirst() {
            guard case .field(let key) = first,
                let field = Self.field(key, in: selections, object: object, parent: parent, variables: variables)
            else { return nil }
            var value = object[key] ?? .null
            var type = field.type
            var indices: [Int] = []
            descending: while true {
                switch type {
                case .nonNull(let inner):
                    type = inner
                case .list(let element):
                    guard case .index(let index)? = components.popFirst(), case .array(let items) = value, items.indices.contains(index) else {
                        return nil
                    }
                    indices.append(index)
                    value = items[index]
                    type = element
                case .object(let selectionSet):
                    guard case .object(let next) = value else { return nil }
                    object = next
                    selections = selectionSet.__selections
                    parent = selectionSet.__parentType
                    break descending
                case .scalar:
                    return nil
                }
            }
            steps.append(Step(field: field, indices: indices))
        }
        self.steps = steps
        self.object = object
        self.selections = selections
        self.parent = parent
    }

    /// The deferred fragment labelled `label` among the selections that apply to the object, with
    /// the type its selections are written on.
    package func deferred(labelled label: String, variables: JSONObject) -> (deferral: Deferral, selections: [Selection], parent: ParentType)? {
        var search = Search(variables: variables, label: label)
        guard case .deferred(let deferral, let selections, let parent)? = search.first(in: selections, object: object, parent: parent) else {
            return nil
        }
        return (deferral, selections, parent)
    }

    private static func field(_ key: String, in selections: [Selection], object: JSONObject, parent: ParentType, variables: JSONObject) -> Field? {
        var search = Search(variables: variables, key: key)
        guard case .field(let field)? = search.first(in: selections, object: object, parent: parent) else { return nil }
        return field
    }

    /// The first field with a response key, or deferred fragment with a label, among the
    /// selections that apply to an object: the walk stops where it finds it.
    private struct Search: SelectionVisitor {
        enum Found: Error {
            case field(Field)
            case deferred(Deferral, [Selection], ParentType)
        }

        let variables: JSONObject
        var key: String?
        var label: String?

        mutating func first(in selections: [Selection], object: JSONObject, parent: ParentType) -> Found? {
            var searched = object
            do throws(Found) {
                try walk(selections, parent: parent, in: &searched)
                return nil
            } catch {
                return error
            }
        }

        func typename(of object: JSONObject) -> String? { object["__typename"]?.stringValue }

        mutating func visit(_ field: Field, in _: inout JSONObject) throws(Found) {
            if let key, field.responseKey == key { throw .field(field) }
        }

        mutating func visitDeferred(
            _ deferral: Deferral, selections: [Selection], parent: ParentType, in object: inout JSONObject
        ) throws(Found) {
            if let label, deferral.label == label { throw .deferred(deferral, selections, parent) }
            try walk(selections, parent: parent, in: &object)
        }
    }
}

extension JSONObject {
    /// Replaces the object at `path` by `object`; `false` when the path leads to no object.
    package mutating func replaceObject(at path: ArraySlice<ResponsePath.Component>, with object: JSONObject) -> Bool {
        guard !path.isEmpty else {
            self = object
            return true
        }
        guard case .object? = value(at: ResponsePath(Array(path))) else { return false }
        return replaceValue(at: path, with: .object(object))
    }

    /// Replaces the value at `path` (a field, or an item of a list, that is there) by `value`;
    /// `false` when the path leads nowhere.
    package mutating func replaceValue(at path: ArraySlice<ResponsePath.Component>, with value: JSONValue) -> Bool {
        guard case .field(let key)? = path.first, var child = self[key], child.replaceValue(at: path.dropFirst(), with: value) else { return false }
        self[key] = child
        return true
    }
}

extension JSONValue {
    fileprivate mutating func replaceValue(at path: ArraySlice<ResponsePath.Component>, with value: JSONValue) -> Bool {
        switch (self, path.first) {
        case (_, nil):
            self = value
            return true
        case (.object(var inner), .field?):
            guard inner.replaceValue(at: path, with: value) else { return false }
            self = .object(inner)
            return true
        case (.array(var items), .index(let index)?) where items.indices.contains(index):
            guard items[index].replaceValue(at: path.dropFirst(), with: value) else { return false }
            self = .array(items)
            return true
        default:
            return false
        }
    }
}
