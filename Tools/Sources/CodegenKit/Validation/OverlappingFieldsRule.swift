import GraphQL

/// The spec's Field Selection Merging rule (graphql-js's OverlappingFieldsCanBeMergedRule), which
/// GraphQLSwift's validator leaves out: two selections with one response key in one place must
/// be the same field with the same arguments (unless their parents are different object types,
/// when no object has both), and must have the same response shape, their sub-selections too.
/// Each error names every field of the conflict, sub-fields included, as graphql-js does.
///
/// Selection sets and fragments are compared once per pair (and per mutual exclusivity), so the
/// cost stays polynomial in the document, whatever its fragments spread. Input object values
/// compare with their fields sorted: `{x: 1, y: 2}` and `{y: 2, x: 1}` are the same argument.
struct OverlappingFieldsRule {
    static let name = "OverlappingFieldsCanBeMergedRule"

    let schema: SchemaModel
    let fragments: [String: FragmentDefinition]

    /// A field as selected: the type it was selected on, the node and its definition there.
    private struct Selected {
        let parentType: String?
        let node: GraphQL.Field
        let definition: SchemaModel.FieldDefinition?
    }

    /// A selection set's fields by response key (in the order first selected) and the fragments
    /// it spreads, with the identity of the selection set they came from.
    private final class FieldsAndFragments {
        let identity: String
        let keys: [String]
        let fields: [String: [Selected]]
        let fragmentNames: [String]

        init(identity: String, keys: [String], fields: [String: [Selected]], fragmentNames: [String]) {
            self.identity = identity
            self.keys = keys
            self.fields = fields
            self.fragmentNames = fragmentNames
        }
    }

    /// A conflict: the response key and why, and the fields on each side.
    private struct Conflict {
        indirect enum Reason {
            case message(String)
            case subfields([(String, Reason)])
        }

        let responseKey: String
        let reason: Reason
        let fields1: [GraphQL.Field]
        let fields2: [GraphQL.Field]
    }

    private var cache: [String: FieldsAndFragments] = [:]
    /// Field maps compared with fragments, and fragment pairs compared, each with whether the
    /// comparison was under mutually exclusive parents.
    private var comparedFieldsAndFragments: [String: Bool] = [:]
    private var comparedFragments: [String: Bool] = [:]

    init(schema: SchemaModel, fragments: [String: FragmentDefinition]) {
        self.schema = schema
        self.fragments = fragments
    }

    /// Every conflict in `document`, one error each, checked in every selection set.
    static func validate(_ document: Document, schema: SchemaModel) -> [ValidationError] {
        var fragments: [String: FragmentDefinition] = [:]
        for case let fragment as FragmentDefinition in document.definitions where fragments[fragment.name.value] == nil {
            fragments[fragment.name.value] = fragment
        }
        var rule = OverlappingFieldsRule(schema: schema, fragments: fragments)
        var errors: [ValidationError] = []
        for definition in document.definitions {
            switch definition {
            case let operation as OperationDefinition:
                let root = schema.rootTypes[operation.operation].flatMap { schema.type(named: $0) != nil ? $0 : nil }
                rule.walk(operation.selectionSet, parentType: root, into: &errors)
            case let fragment as FragmentDefinition:
                rule.walk(fragment.selectionSet, parentType: rule.typeIfDefined(fragment.typeCondition.name.value), into: &errors)
            default:
                continue
            }
        }
        return errors
    }

    private func typeIfDefined(_ name: String) -> String? { schema.type(named: name) != nil ? name : nil }

    /// Checks `selectionSet` and every selection set inside it.
    private mutating func walk(_ selectionSet: SelectionSet, parentType: String?, into errors: inout [ValidationError]) {
        for conflict in conflictsWithin(selectionSet, parentType: parentType) {
            errors.append(ValidationError(
                rule: Self.name,
                "Fields \"\(conflict.responseKey)\" conflict because \(Self.message(conflict.reason)). Use different aliases on the fields to fetch both if this was intentional.",
                at: (conflict.fields1 + conflict.fields2).map(\.loc)))
        }
        for selection in selectionSet.selections {
            switch selection {
            case let field as GraphQL.Field:
                guard let nested = field.selectionSet else { continue }
                let definition = parentType.flatMap { schema.type(named: $0)?.field(named: field.name.value) }
                walk(nested, parentType: definition.flatMap { typeIfDefined($0.type.namedType) }, into: &errors)
            case let inline as InlineFragment:
                walk(inline.selectionSet, parentType: inline.typeCondition.map { typeIfDefined($0.name.value) } ?? parentType, into: &errors)
            default:
                continue
            }
        }
    }

    private static func message(_ reason: Conflict.Reason) -> String {
        switch reason {
        case .message(let text): return text
        case .subfields(let reasons):
            return reasons.map { "subfields \"\($0.0)\" conflict because \(message($0.1))" }.joined(separator: " and ")
        }
    }

    // MARK: Finding conflicts

    private mutating func conflictsWithin(_ selectionSet: SelectionSet, parentType: String?) -> [Conflict] {
        var conflicts: [Conflict] = []
        let fieldMap = fieldsAndFragments(selectionSet, parentType: parentType)
        for key in fieldMap.keys {
            let fields = fieldMap.fields[key]!
            for i in fields.indices {
                for j in fields.indices where j > i {
                    if let conflict = findConflict(parentsExclusive: false, key, fields[i], fields[j]) { conflicts.append(conflict) }
                }
            }
        }
        let names = fieldMap.fragmentNames
        for i in names.indices {
            betweenFieldsAndFragment(&conflicts, exclusive: false, fieldMap, names[i])
            for j in names.indices where j > i {
                betweenFragments(&conflicts, exclusive: false, names[i], names[j])
            }
        }
        return conflicts
    }

    private mutating func betweenFieldsAndFragment(
        _ conflicts: inout [Conflict], exclusive: Bool, _ fieldMap: FieldsAndFragments, _ fragmentName: String
    ) {
        let key = fieldMap.identity + "|" + fragmentName
        if let seen = comparedFieldsAndFragments[key], exclusive || seen == exclusive { return }
        comparedFieldsAndFragments[key] = exclusive
        guard let fragment = fragments[fragmentName] else { return }
        let fieldMap2 = referencedFieldsAndFragments(fragment)
        if fieldMap.identity == fieldMap2.identity { return }
        between(&conflicts, exclusive: exclusive, fieldMap, fieldMap2)
        for referenced in fieldMap2.fragmentNames {
            betweenFieldsAndFragment(&conflicts, exclusive: exclusive, fieldMap, referenced)
        }
    }

    private mutating func betweenFragments(_ conflicts: inout [Conflict], exclusive: Bool, _ name1: String, _ name2: String) {
        if name1 == name2 { return }
        let key = name1 < name2 ? name1 + "|" + name2 : name2 + "|" + name1
        if let seen = comparedFragments[key], exclusive || seen == exclusive { return }
        comparedFragments[key] = exclusive
        guard let fragment1 = fragments[name1], let fragment2 = fragments[name2] else { return }
        let fieldMap1 = referencedFieldsAndFragments(fragment1)
        let fieldMap2 = referencedFieldsAndFragments(fragment2)
        between(&conflicts, exclusive: exclusive, fieldMap1, fieldMap2)
        for referenced in fieldMap2.fragmentNames { betweenFragments(&conflicts, exclusive: exclusive, name1, referenced) }
        for referenced in fieldMap1.fragmentNames { betweenFragments(&conflicts, exclusive: exclusive, referenced, name2) }
    }

    private mutating func betweenSubSelectionSets(
        exclusive: Bool, _ parentType1: String?, _ selectionSet1: SelectionSet, _ parentType2: String?, _ selectionSet2: SelectionSet
    ) -> [Conflict] {
        var conflicts: [Conflict] = []
        let fieldMap1 = fieldsAndFragments(selectionSet1, parentType: parentType1)
        let fieldMap2 = fieldsAndFragments(selectionSet2, parentType: parentType2)
        between(&conflicts, exclusive: exclusive, fieldMap1, fieldMap2)
        for name in fieldMap2.fragmentNames { betweenFieldsAndFragment(&conflicts, exclusive: exclusive, fieldMap1, name) }
        for name in fieldMap1.fragmentNames { betweenFieldsAndFragment(&conflicts, exclusive: exclusive, fieldMap2, name) }
        for name1 in fieldMap1.fragmentNames {
            for name2 in fieldMap2.fragmentNames { betweenFragments(&conflicts, exclusive: exclusive, name1, name2) }
        }
        return conflicts
    }

    private mutating func between(_ conflicts: inout [Conflict], exclusive: Bool, _ fieldMap1: FieldsAndFragments, _ fieldMap2: FieldsAndFragments) {
        for key in fieldMap1.keys {
            guard let fields2 = fieldMap2.fields[key] else { continue }
            for field1 in fieldMap1.fields[key]! {
                for field2 in fields2 {
                    if let conflict = findConflict(parentsExclusive: exclusive, key, field1, field2) { conflicts.append(conflict) }
                }
            }
        }
    }

    private mutating func findConflict(parentsExclusive: Bool, _ responseKey: String, _ field1: Selected, _ field2: Selected) -> Conflict? {
        let schema = self.schema
        let isObject = { (name: String?) in name.flatMap { schema.type(named: $0)?.kind } == .object }
        let exclusive = parentsExclusive || (field1.parentType != field2.parentType && isObject(field1.parentType) && isObject(field2.parentType))
        let (node1, node2) = (field1.node, field2.node)
        if !exclusive {
            if node1.name.value != node2.name.value {
                return Conflict(
                    responseKey: responseKey, reason: .message("\"\(node1.name.value)\" and \"\(node2.name.value)\" are different fields"),
                    fields1: [node1], fields2: [node2])
            }
            if !Self.sameArguments(node1.arguments, node2.arguments) {
                return Conflict(responseKey: responseKey, reason: .message("they have differing arguments"), fields1: [node1], fields2: [node2])
            }
        }
        let type1 = field1.definition?.type
        let type2 = field2.definition?.type
        if let type1, let type2, typesConflict(type1, type2) {
            return Conflict(
                responseKey: responseKey, reason: .message("they return conflicting types \"\(type1)\" and \"\(type2)\""), fields1: [node1],
                fields2: [node2])
        }
        guard let selectionSet1 = node1.selectionSet, let selectionSet2 = node2.selectionSet else { return nil }
        let conflicts = betweenSubSelectionSets(
            exclusive: exclusive, type1.flatMap { typeIfDefined($0.namedType) }, selectionSet1, type2.flatMap { typeIfDefined($0.namedType) },
            selectionSet2)
        guard !conflicts.isEmpty else { return nil }
        return Conflict(
            responseKey: responseKey, reason: .subfields(conflicts.map { ($0.responseKey, $0.reason) }),
            fields1: [node1] + conflicts.flatMap(\.fields1), fields2: [node2] + conflicts.flatMap(\.fields2))
    }

    /// The same arguments: the same names, and values that print the same with input object
    /// fields sorted.
    static func sameArguments(_ arguments1: [Argument], _ arguments2: [Argument]) -> Bool {
        guard arguments1.count == arguments2.count else { return false }
        var values2: [String: Value] = [:]
        for argument in arguments2 { values2[argument.name.value] = argument.value }
        return arguments1.allSatisfy { argument in
            guard let value2 = values2[argument.name.value] else { return false }
            return canonical(argument.value) == canonical(value2)
        }
    }

    /// A value printed with its object fields sorted by name.
    static func canonical(_ value: Value) -> String {
        DocumentPrinter.print(sorted(GQL.lower(value)))
    }

    private static func sorted(_ value: GQL.Value) -> GQL.Value {
        switch value {
        case .object(let fields): return .object(fields.map { (name: $0.name, value: sorted($0.value)) }.sorted { $0.name < $1.name })
        case .list(let values): return .list(values.map(sorted))
        default: return value
        }
    }

    /// Types that cannot give one response shape: a list and not, non-null and not, or two
    /// different leaf types (composite types are compared through their fields).
    private func typesConflict(_ type1: TypeRef, _ type2: TypeRef) -> Bool {
        switch (type1, type2) {
        case (.list(let a), .list(let b)): return typesConflict(a, b)
        case (.list, _), (_, .list): return true
        case (.nonNull(let a), .nonNull(let b)): return typesConflict(a, b)
        case (.nonNull, _), (_, .nonNull): return true
        case (.named(let a), .named(let b)):
            let isLeaf = { (name: String) in [.scalar, .enumeration].contains(schema.type(named: name)?.kind) }
            return (isLeaf(a) || isLeaf(b)) && a != b
        }
    }

    // MARK: Collecting fields

    private static func identity(_ selectionSet: SelectionSet) -> String {
        guard let location = selectionSet.loc else { return "?" }
        return "\(location.source.name):\(location.start)"
    }

    private mutating func fieldsAndFragments(_ selectionSet: SelectionSet, parentType: String?) -> FieldsAndFragments {
        let identity = Self.identity(selectionSet)
        if let cached = cache[identity] { return cached }
        var keys: [String] = []
        var fields: [String: [Selected]] = [:]
        var fragmentNames: [String] = []
        func collect(_ selectionSet: SelectionSet, _ parentType: String?) {
            for selection in selectionSet.selections {
                switch selection {
                case let field as GraphQL.Field:
                    let key = field.alias?.value ?? field.name.value
                    if fields[key] == nil { keys.append(key) }
                    let owner = parentType.flatMap { schema.type(named: $0) }
                    let definition = owner.flatMap { [.object, .interface].contains($0.kind) ? $0.field(named: field.name.value) : nil }
                    fields[key, default: []].append(Selected(parentType: parentType, node: field, definition: definition))
                case let spread as FragmentSpread:
                    if !fragmentNames.contains(spread.name.value) { fragmentNames.append(spread.name.value) }
                case let inline as InlineFragment:
                    collect(inline.selectionSet, inline.typeCondition.map { typeIfDefined($0.name.value) } ?? parentType)
                default:
                    continue
                }
            }
        }
        collect(selectionSet, parentType)
        let result = FieldsAndFragments(identity: identity, keys: keys, fields: fields, fragmentNames: fragmentNames)
        cache[identity] = result
        return result
    }

    private mutating func referencedFieldsAndFragments(_ fragment: FragmentDefinition) -> FieldsAndFragments {
        if let cached = cache[Self.identity(fragment.selectionSet)] { return cached }
        return fieldsAndFragments(fragment.selectionSet, parentType: typeIfDefined(fragment.typeCondition.name.value))
    }
}
