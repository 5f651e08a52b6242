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
        Self.first(in: selections, object: object, parent: parent, variables: variables) { selection, parent in
            guard case .deferred(let deferral, let nested) = selection, deferral.label == label, deferral.isActive(with: variables) else {
                return nil
            }
            return (deferral, nested, parent)
        }
    }

    private static func field(_ key: String, in selections: [Selection], object: JSONObject, parent: ParentType, variables: JSONObject) -> Field? {
        first(in: selections, object: object, parent: parent, variables: variables) { selection, _ in
            guard case .field(let field) = selection, field.responseKey == key else { return nil }
            return field
        }
    }

    /// The first of `match`'s answers over the selections that apply to `object`, through
    /// fragments whose type matches, conditions that hold and deferred fragments, in order.
    private static func first<T>(
        in selections: [Selection], object: JSONObject, parent: ParentType, variables: JSONObject, _ match: (Selection, ParentType) -> T?
    ) -> T? {
        for selection in selections {
            if let found = match(selection, parent) { return found }
            let nested: [Selection]
            var nestedParent = parent
            switch selection {
            case .field:
                continue
            case .inlineFragment(let type):
                guard type.__parentType.applies(toTypename: object["__typename"]?.stringValue, within: parent) else { continue }
                nested = type.__selections
                nestedParent = type.__parentType
            case .fragment(let type):
                guard type.__parentType.applies(toTypename: object["__typename"]?.stringValue, within: parent) else { continue }
                nested = type.__selections
                nestedParent = type.__parentType
            case .conditional(let conditions, let inner):
                guard conditions.allSatisfy({ $0.isSatisfied(by: variables) }) else { continue }
                nested = inner
            case .deferred(_, let inner):
                nested = inner
            }
            if let found = first(in: nested, object: object, parent: nestedParent, variables: variables, match) { return found }
        }
        return nil
    }
}

extension JSONObject {
    /// The value at `path`, through objects and lists.
    package func value(at path: ResponsePath) -> JSONValue? {
        var current = JSONValue.object(self)
        for component in path.components {
            switch (component, current) {
            case (.field(let key), .object(let object)):
                guard let next = object[key] else { return nil }
                current = next
            case (.index(let index), .array(let items)) where items.indices.contains(index):
                current = items[index]
            default:
                return nil
            }
        }
        return current
    }

    /// Replaces the object at `path` by `object`; `false` when the path leads to no object.
    package mutating func replaceObject(at path: ArraySlice<ResponsePath.Component>, with object: JSONObject) -> Bool {
        guard let first = path.first else {
            self = object
            return true
        }
        guard case .field(let key) = first, var child = self[key], child.replaceObject(at: path.dropFirst(), with: object) else { return false }
        self[key] = child
        return true
    }
}

extension JSONValue {
    fileprivate mutating func replaceObject(at path: ArraySlice<ResponsePath.Component>, with object: JSONObject) -> Bool {
        switch (self, path.first) {
        case (.object(var inner), _):
            guard inner.replaceObject(at: path, with: object) else { return false }
            self = .object(inner)
            return true
        case (.array(var items), .index(let index)?) where items.indices.contains(index):
            guard items[index].replaceObject(at: path.dropFirst(), with: object) else { return false }
            self = .array(items)
            return true
        default:
            return false
        }
    }
}
