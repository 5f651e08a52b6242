import GraphQL

/// The spec's "Field Selection Merging" rule (OverlappingFieldsCanBeMerged), which GraphQLSwift's
/// validator leaves out: two selections with one response key must be the same field with the
/// same arguments (unless their parents are different object types, when no object can have
/// both), and must have the same response shape. Each pair of field nodes is compared once, so
/// the cost stays quadratic in the document at worst, never exponential in its fragments.
struct FieldMergeRule {
    let schema: SchemaModel
    let fragments: [String: FragmentDefinition]
    private(set) var diagnostics: [Diagnostic] = []
    private var compared: Set<PairKey> = []

    /// One selection of a response key, with the type it was selected on.
    private struct Occurrence {
        let field: GraphQL.Field
        let parentType: String
        var definition: SchemaModel.FieldDefinition?
    }

    private struct PairKey: Hashable {
        let first: String, firstParent: String, second: String, secondParent: String, exclusive: Bool
    }

    /// A field node by its place in its file (GraphQLSwift's nodes are values, without identity).
    private static func identity(_ field: GraphQL.Field) -> String {
        guard let location = field.loc else { return "\(field.alias?.value ?? ""):\(field.name.value)" }
        return "\(location.source.name):\(location.start)"
    }

    init(schema: SchemaModel, fragments: [String: FragmentDefinition]) {
        self.schema = schema
        self.fragments = fragments
    }

    /// Checks every selection set of the operations and fragments.
    mutating func check(operations: [OperationDefinition], rootTypes: [OperationType: String]) {
        for operation in operations {
            guard let root = rootTypes[operation.operation] else { continue }
            walk(operation.selectionSet, on: root)
        }
        for fragment in fragments.values.sorted(by: { $0.name.value < $1.name.value }) {
            walk(fragment.selectionSet, on: fragment.typeCondition.name.value)
        }
        diagnostics = Array(Set(diagnostics))
    }

    private mutating func walk(_ selectionSet: SelectionSet, on parentType: String) {
        let groups = fields(of: selectionSet, on: parentType)
        for (_, occurrences) in groups {
            for i in occurrences.indices {
                for j in occurrences.indices where j > i { compare(occurrences[i], occurrences[j], exclusive: false) }
            }
        }
        for selection in selectionSet.selections {
            switch selection {
            case let field as GraphQL.Field:
                if let nested = field.selectionSet, let definition = schema.field(field.name.value, on: parentType) {
                    walk(nested, on: definition.type.namedType)
                }
            case let inline as InlineFragment:
                walk(inline.selectionSet, on: inline.typeCondition?.name.value ?? parentType)
            default:
                continue  // fragment definitions are walked on their own
            }
        }
    }

    /// The fields of a selection set by response key, through inline fragments and spreads.
    private func fields(of selectionSet: SelectionSet, on parentType: String) -> [(key: String, occurrences: [Occurrence])] {
        var order: [String] = []
        var groups: [String: [Occurrence]] = [:]
        var spread: Set<String> = []
        func collect(_ selectionSet: SelectionSet, _ parentType: String) {
            for selection in selectionSet.selections {
                switch selection {
                case let field as GraphQL.Field:
                    let key = field.alias?.value ?? field.name.value
                    if groups[key] == nil { order.append(key) }
                    groups[key, default: []].append(
                        Occurrence(field: field, parentType: parentType, definition: schema.field(field.name.value, on: parentType)))
                case let inline as InlineFragment:
                    collect(inline.selectionSet, inline.typeCondition?.name.value ?? parentType)
                case let fragmentSpread as FragmentSpread:
                    guard spread.insert(fragmentSpread.name.value).inserted, let fragment = fragments[fragmentSpread.name.value] else { continue }
                    collect(fragment.selectionSet, fragment.typeCondition.name.value)
                default:
                    continue
                }
            }
        }
        collect(selectionSet, parentType)
        return order.map { ($0, groups[$0] ?? []) }
    }

    private mutating func compare(_ a: Occurrence, _ b: Occurrence, exclusive parentsExclusive: Bool) {
        let (idA, idB) = (Self.identity(a.field), Self.identity(b.field))
        if idA == idB && a.parentType == b.parentType { return }
        let exclusive = parentsExclusive
            || (a.parentType != b.parentType && schema.type(named: a.parentType)?.kind == .object && schema.type(named: b.parentType)?.kind == .object)
        let key = idA < idB
            ? PairKey(first: idA, firstParent: a.parentType, second: idB, secondParent: b.parentType, exclusive: exclusive)
            : PairKey(first: idB, firstParent: b.parentType, second: idA, secondParent: a.parentType, exclusive: exclusive)
        guard compared.insert(key).inserted else { return }

        let responseKey = a.field.alias?.value ?? a.field.name.value
        func conflict(_ reason: String) {
            diagnostics.append(Diagnostic(
                at: a.field.loc, fallbackFile: "operations",
                "fields '\(responseKey)' conflict: \(reason)\(Diagnostic.reference("other at", b.field.loc)); use different aliases to select both"))
        }
        if !exclusive {
            if a.field.name.value != b.field.name.value {
                return conflict("'\(a.field.name.value)' and '\(b.field.name.value)' are different fields")
            }
            if Self.arguments(a.field) != Self.arguments(b.field) {
                return conflict("they have different arguments")
            }
        }
        if let typeA = a.definition?.type, let typeB = b.definition?.type, !sameShape(typeA, typeB) {
            return conflict("they return '\(typeA)' and '\(typeB)'")
        }
        guard let setA = a.field.selectionSet, let setB = b.field.selectionSet,
            let typeA = a.definition?.type.namedType, let typeB = b.definition?.type.namedType
        else { return }
        let fieldsB = Dictionary(fields(of: setB, on: typeB).map { ($0.key, $0.occurrences) }, uniquingKeysWith: { $0 + $1 })
        for (key, occurrencesA) in fields(of: setA, on: typeA) {
            for x in occurrencesA {
                for y in fieldsB[key] ?? [] { compare(x, y, exclusive: exclusive) }
            }
        }
    }

    /// The spec's SameResponseShape for the types themselves: the same nullability and list
    /// nesting, and the same leaf type (composite types are compared through their fields).
    private func sameShape(_ a: TypeRef, _ b: TypeRef) -> Bool {
        switch (a, b) {
        case (.nonNull(let x), .nonNull(let y)), (.list(let x), .list(let y)): return sameShape(x, y)
        case (.named(let x), .named(let y)):
            let isLeaf = { (name: String) in [.scalar, .enumeration].contains(schema.type(named: name)?.kind) }
            return isLeaf(x) || isLeaf(y) ? x == y : true
        default: return false
        }
    }

    private static func arguments(_ field: GraphQL.Field) -> [String] {
        field.arguments.map { "\($0.name.value): \(DocumentPrinter.print(GQL.lower($0.value)))" }.sorted()
    }
}
