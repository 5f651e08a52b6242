@_spi(Tools) @_spi(Generated) import APICore
import Foundation
import Sample1
import Sample2
import Sample3
import Sample4
import Sample5
import Sample6
import Testing

/// Random valid answers to the random samples' operations: every one decodes, and every field read
/// through its typed accessor equals the JSON; every type case is there exactly when the
/// `__typename` is one of its possible types. Answers are made from the generated metadata (the
/// possible types the schema had at generation time), with now and then a `__typename` the schema
/// never had and `null`s wherever the schema allows them.
@Suite("Random answers to random operations")
struct RandomResponseTests {
    static let operations: [any GraphQLOperation.Type] = [
        Sample1.Operation0Query.self, Sample1.Operation1Query.self, Sample1.Operation2Query.self, Sample1.Operation3Query.self, Sample1.DirectivesQuery.self,
        Sample2.Operation0Query.self, Sample2.Operation1Query.self, Sample2.Operation2Query.self, Sample2.Operation3Query.self, Sample2.DirectivesQuery.self,
        Sample3.Operation0Query.self, Sample3.Operation1Query.self, Sample3.Operation2Query.self, Sample3.Operation3Query.self, Sample3.DirectivesQuery.self,
        Sample4.Operation0Query.self, Sample4.Operation1Query.self, Sample4.Operation2Query.self, Sample4.Operation3Query.self, Sample4.DirectivesQuery.self,
        Sample5.Operation0Query.self, Sample5.Operation1Query.self, Sample5.Operation2Query.self, Sample5.Operation3Query.self, Sample5.DirectivesQuery.self,
        Sample6.Operation0Query.self, Sample6.Operation1Query.self, Sample6.Operation2Query.self, Sample6.Operation3Query.self, Sample6.DirectivesQuery.self,
    ]

    @Test("every field equals the JSON, every type case matches its possible types", arguments: 0..<30)
    func decodes(index: Int) throws {
        func check<Operation: GraphQLOperation>(_: Operation.Type) throws {
            for seed in 0..<40 {
                guard let (data, object, variables) = try answer(Operation.self, seed: UInt64(index * 1000 + seed), addsLaterTypes: true)
                else { return }
                var reader = Reader(variables: variables)
                reader.check(data.__data, selections: Operation.Data.__selections, parent: Operation.Data.__parentType, path: Operation.operationName)
                if let problem = reader.problems.first {
                    Issue.record("seed \(seed): \(problem)\n\(JSONSerializer.string(.object(object)))")
                    return
                }
            }
        }
        try check(Self.operations[index])
    }
}

/// A random answer to `Operation` from `seed`, decoded through the wire's text as a server's
/// answer comes, with its JSON and variables; `nil` (and an issue recorded) when it is rejected.
func answer<Operation: GraphQLOperation>(_: Operation.Type, seed: UInt64, addsLaterTypes: Bool) throws
    -> (data: Operation.Data, object: JSONObject, variables: JSONObject)?
{
    var synthesizer = Synthesizer(seed: seed)
    synthesizer.addsLaterTypes = addsLaterTypes
    let variables = synthesizer.variables(for: Operation.Data.self)
    let object = synthesizer.object(for: Operation.Data.self, variables: variables, isRoot: true)
    let parsed = try #require(try JSONParser.parse(JSONSerializer.string(.object(object))).objectValue)
    do {
        return (try Operation.Data(validating: parsed, variables: variables), object, variables)
    } catch {
        Issue.record("\(Operation.operationName), seed \(seed): a valid answer was rejected: \(error)\n\(JSONSerializer.string(.object(object)))")
        return nil
    }
}

/// Data that the generated initializers can build again from what its accessors read
/// (`RoundTrip/*.swift`, written by `codegen-properties round-trip`).
protocol RebuildsWithInitializers {
    func _rebuiltWithInitializers() -> Self
}

@Suite("Initializers rebuild random answers")
struct InitializerRoundTripTests {
    @Test("data built by the initializers from decoded values is the server's JSON for them, and decodes to the same values", arguments: 0..<30)
    func rebuilds(index: Int) throws {
        func check<Operation: GraphQLOperation>(_: Operation.Type) throws {
            guard Operation.Data.self is any RebuildsWithInitializers.Type else {
                Issue.record("\(Operation.operationName) has no initializers to rebuild with")
                return
            }
            var compared = 0, fullyChecked = 0
            for seed in 0..<40 {
                // Types the schema has: an initializer writes its own type's name.
                guard let (decoded, object, variables) = try answer(Operation.self, seed: UInt64(index * 1000 + seed), addsLaterTypes: false)
                else { return }
                let rebuilt = (decoded as! any RebuildsWithInitializers)._rebuiltWithInitializers() as! Operation.Data
                // What they built is valid data for the operation, unless an object matches two
                // sibling type cases: one type case's initializer has its own fields only, not the
                // other's (a limit of the initializers).
                guard !Self.matchesSiblingTypeCases(decoded.jsonObject, selections: Operation.Data.__selections) else { continue }
                fullyChecked += 1
                let again: Operation.Data
                do {
                    again = try Operation.Data(validating: rebuilt.jsonObject, variables: variables)
                } catch {
                    Issue.record("seed \(seed): rebuilt data was rejected: \(error)\nbuilt: \(JSONSerializer.string(.object(rebuilt.jsonObject)))\nanswer: \(JSONSerializer.string(.object(object)))")
                    return
                }
                // Checked as the answer was, every value it holds is the answer's (a type case
                // writes its own fields, so another type case's may be missing), and it reads
                // back field by field.
                if let difference = Self.difference(again.jsonObject, in: decoded.jsonObject, at: Operation.operationName) {
                    Issue.record("seed \(seed): \(difference)\nanswer: \(JSONSerializer.string(.object(decoded.jsonObject)))\nbuilt: \(JSONSerializer.string(.object(again.jsonObject)))")
                    return
                }
                var reader = Reader(variables: variables)
                reader.check(again.__data, selections: Operation.Data.__selections, parent: Operation.Data.__parentType, path: Operation.operationName)
                if let problem = reader.problems.first {
                    Issue.record("seed \(seed): rebuilt data reads wrong: \(problem)")
                    return
                }
                #expect(
                    Self.difference(decoded.jsonObject, in: again.jsonObject, at: Operation.operationName) == nil,
                    "seed \(seed): one type case at most, so the whole answer was rebuilt")
                compared += rebuilt.jsonObject.count
            }
            #expect(compared > 0 && fullyChecked > 0, "some answers were rebuilt and checked whole")
        }
        try check(RandomResponseTests.operations[index])
    }

    /// Whether an object anywhere in `object` satisfies two type cases of one selection set.
    static func matchesSiblingTypeCases(_ object: JSONObject, selections: [Selection]) -> Bool {
        let typename = object["__typename"]?.stringValue
        var matching = 0
        for selection in selections {
            switch selection {
            case .field(let field):
                guard let value = object[field.responseKey], let nested = nestedSelections(field.type) else { continue }
                if matchesSiblingTypeCases(value, selections: nested) { return true }
            case .inlineFragment(let typeCase):
                if let typename, typeCase.__parentType.matches(typename: typename) {
                    matching += 1
                    if matchesSiblingTypeCases(object, selections: typeCase.__selections) { return true }
                }
            case .conditional(_, let inner):
                if matchesSiblingTypeCases(object, selections: inner) { return true }
            default:
                continue
            }
        }
        return matching > 1
    }

    private static func matchesSiblingTypeCases(_ value: JSONValue, selections: [Selection]) -> Bool {
        switch value {
        case .object(let object): return matchesSiblingTypeCases(object, selections: selections)
        case .array(let items): return items.contains { matchesSiblingTypeCases($0, selections: selections) }
        default: return false
        }
    }

    private static func nestedSelections(_ type: OutputType) -> [Selection]? {
        switch type {
        case .nonNull(let inner), .list(let inner): return nestedSelections(inner)
        case .object(let selectionSet): return selectionSet.__selections
        case .scalar: return nil
        }
    }

    /// Where `built` differs from `decoded` (a key it has that `decoded` has not, or another value
    /// there), or nil when every value of `built` is `decoded`'s.
    static func difference(_ built: JSONObject, in decoded: JSONObject, at path: String) -> String? {
        for (key, value) in built {
            guard let other = decoded[key] else { return "\(path).\(key) was written but not in the answer" }
            if let difference = difference(value, in: other, at: "\(path).\(key)") { return difference }
        }
        return nil
    }

    static func difference(_ built: JSONValue, in decoded: JSONValue, at path: String) -> String? {
        switch (built, decoded) {
        case (.object(let built), .object(let decoded)): return difference(built, in: decoded, at: path)
        case (.array(let built), .array(let decoded)):
            guard built.count == decoded.count else { return "\(path) has \(built.count) items, the answer \(decoded.count)" }
            for (index, pair) in zip(built, decoded).enumerated() {
                if let difference = difference(pair.0, in: pair.1, at: "\(path).\(index)") { return difference }
            }
            return nil
        default:
            return sameJSON(built, decoded) ? nil : "\(path) is \(built), the answer's \(decoded)"
        }
    }
}

/// Makes answers from selection-set metadata.
struct Synthesizer {
    var state: UInt64
    /// Whether one object in six has a type the schema did not have at generation time.
    var addsLaterTypes = true

    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }

    mutating func next(_ bound: Int) -> Int {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return Int(state % UInt64(bound))
    }

    /// A Boolean for every variable of an `@include`/`@skip`.
    mutating func variables(for type: any SelectionSet.Type) -> JSONObject {
        var names: Set<String> = []
        func collect(_ selections: [Selection], depth: Int) {
            guard depth < 32 else { return }
            for selection in selections {
                switch selection {
                case .field(let field): if let nested = field.type.selectionSet { collect(nested.__selections, depth: depth + 1) }
                case .inlineFragment(let type): collect(type.__selections, depth: depth + 1)
                case .fragment(let type): collect(type.__selections, depth: depth + 1)
                case .conditional(let conditions, let nested):
                    names.formUnion(conditions.map(\.variable))
                    collect(nested, depth: depth + 1)
                case .deferred(let deferral, let nested):
                    if let condition = deferral.condition { names.insert(condition.variable) }
                    collect(nested, depth: depth + 1)
                }
            }
        }
        collect(type.__selections, depth: 0)
        var variables: JSONObject = [:]
        for name in names.sorted() { variables[name] = .bool(next(2) == 0) }
        return variables
    }

    mutating func object(for type: any SelectionSet.Type, variables: JSONObject, isRoot: Bool = false) -> JSONObject {
        var object: JSONObject = [:]
        if !isRoot {
            let possible = type.__parentType.possibleTypes.sorted()
            // One object in six is of a type added to the schema after generation.
            object["__typename"] = .string(possible.isEmpty || (addsLaterTypes && next(6) == 0) ? "AddedLater" : possible[next(possible.count)])
        }
        fill(&object, type.__selections, parent: type.__parentType, variables: variables)
        return object
    }

    mutating func fill(_ object: inout JSONObject, _ selections: [Selection], parent: ParentType, variables: JSONObject) {
        for selection in selections {
            switch selection {
            case .field(let field) where field.responseKey == "__typename":
                if object["__typename"] == nil { object["__typename"] = .string(parent.name) }
            case .field(let field):
                object[field.responseKey] = value(object[field.responseKey], field.type, nullable: true, variables: variables)
            case .inlineFragment(let type):
                if type.__parentType.applies(object["__typename"]?.stringValue, within: parent) {
                    fill(&object, type.__selections, parent: type.__parentType, variables: variables)
                }
            case .fragment(let type):
                if type.__parentType.applies(object["__typename"]?.stringValue, within: parent) {
                    fill(&object, type.__selections, parent: type.__parentType, variables: variables)
                }
            case .conditional(let conditions, let nested):
                if conditions.allSatisfy({ $0.isSatisfied(by: variables) }) {
                    fill(&object, nested, parent: parent, variables: variables)
                }
            case .deferred(_, let nested):
                fill(&object, nested, parent: parent, variables: variables)
            }
        }
    }

    /// A value of `type`; where the same key was answered already (selected twice), that answer
    /// is completed instead, as a server merges the two selections.
    mutating func value(_ existing: JSONValue?, _ type: OutputType, nullable: Bool, variables: JSONObject) -> JSONValue {
        if case .nonNull(let inner) = type { return value(existing, inner, nullable: false, variables: variables) }
        if existing == .null || (existing == nil && nullable && next(5) == 0) { return .null }
        switch type {
        case .nonNull(let inner):
            return value(existing, inner, nullable: false, variables: variables)
        case .scalar(let scalar):
            return existing ?? scalarValue(scalar)
        case .object(let selectionSet):
            guard case .object(var object)? = existing else { return .object(self.object(for: selectionSet, variables: variables)) }
            fill(&object, selectionSet.__selections, parent: selectionSet.__parentType, variables: variables)
            return .object(object)
        case .list(let element):
            let items: [JSONValue?] = existing?.arrayValue.map { $0.map(Optional.some) } ?? Array(repeating: nil, count: next(4))
            return .array(items.map { value($0, element, nullable: true, variables: variables) })
        }
    }

    mutating func scalarValue(_ type: any GraphQLOutputValue.Type) -> JSONValue {
        let candidates: [JSONValue] = [
            .string(["", "a", "Ünïcødé ✓", "line\nbreak", "V0", "V1"][next(6)]), .int(next(2_000_001) - 1_000_000),
            .double(Double(next(1000)) / 8), .bool(next(2) == 0),
        ]
        return candidates.first { (try? type.init(_fieldValue: $0)) != nil } ?? .null
    }
}

/// Reads every field through the Swift type its accessor has and compares it with the JSON.
struct Reader {
    let variables: JSONObject
    var problems: [String] = []

    mutating func check(_ data: DataDict, selections: [Selection], parent: ParentType, path: String) {
        let typename = data._data["__typename"]?.stringValue
        for selection in selections {
            switch selection {
            case .field(let field):
                check(field, in: data, optional: false, path: path)
            case .inlineFragment(let type):
                let expected = typename.map(type.__parentType.possibleTypes.contains) ?? false
                let converted: (any SelectionSet)? = Self.asInlineFragment(data, type)
                if (converted != nil) != expected {
                    problems.append("\(path): type case on \(type.__parentType.name) for \(typename ?? "nil"): expected \(expected)")
                }
                if let converted {
                    check(converted.__data, selections: type.__selections, parent: type.__parentType, path: path + ".as\(type.__parentType.name)")
                }
            case .fragment(let type):
                check(data, selections: type.__selections, parent: type.__parentType, path: path)
            case .conditional(let conditions, let nested):
                // What a condition leaves out is the validator's to remove (SelectionValidationTests).
                if conditions.allSatisfy({ $0.isSatisfied(by: variables) }) {
                    checkConditional(data, nested, parent: parent, path: path)
                }
            case .deferred(_, let nested):
                // Random answers are whole: a deferred fragment is read like any other.
                check(data, selections: nested, parent: parent, path: path)
            }
        }
    }

    private mutating func checkConditional(_ data: DataDict, _ nested: [Selection], parent: ParentType, path: String) {
        for selection in nested {
            if case .field(let field) = selection {
                check(field, in: data, optional: true, path: path)
            } else {
                check(data, selections: [selection], parent: parent, path: path)
            }
        }
    }

    /// What a generated `asX` accessor returns.
    static func asInlineFragment<T: SelectionSet>(_ data: DataDict, _: T.Type) -> T? {
        T(_dataDict: data)._asInlineFragment()
    }

    private mutating func check(_ field: Field, in data: DataDict, optional: Bool, path: String) {
        let path = path + "." + field.responseKey
        let json = data._data[field.responseKey] ?? .null
        let read = Self.read(data, field.responseKey, Self.accessorType(field.type, optional: optional))
        if let compared = Self.comparable(read), !sameJSON(compared, json) {
            problems.append("\(path): read \(compared), the JSON has \(json)")
        }
        descend(json, field.type, path: path)
    }

    private mutating func descend(_ value: JSONValue, _ type: OutputType, path: String) {
        switch (type, value) {
        case (.nonNull(let inner), _): descend(value, inner, path: path)
        case (.list(let element), .array(let items)):
            for (index, item) in items.enumerated() { descend(item, element, path: path + "[\(index)]") }
        case (.object(let selectionSet), .object(let object)):
            check(DataDict(_data: object), selections: selectionSet.__selections, parent: selectionSet.__parentType, path: path)
        default: break
        }
    }

    /// The JSON of a value read through an accessor, when it is a leaf (or list of leaves); `nil`
    /// reads as JSON's `null`.
    static func comparable(_ value: Any) -> JSONValue? {
        if let optional = value as? any OptionalValue, optional.isNone { return .null }
        return (value as? any GraphQLInputValue)?._inputJSON
    }

    static func read(_ data: DataDict, _ key: String, _ type: any GraphQLOutputValue.Type) -> Any {
        func open<Value: GraphQLOutputValue>(_: Value.Type) -> Any { data[key] as Value }
        return open(type)
    }

    static func accessorType(_ type: OutputType, optional: Bool) -> any GraphQLOutputValue.Type {
        func optionalOf<Value: GraphQLOutputValue>(_: Value.Type) -> any GraphQLOutputValue.Type { Value?.self }
        guard case .nonNull(let inner) = type else { return optionalOf(valueType(type)) }
        return optional ? optionalOf(valueType(inner)) : valueType(inner)
    }

    private static func valueType(_ type: OutputType) -> any GraphQLOutputValue.Type {
        func arrayOf<Value: GraphQLOutputValue>(_: Value.Type) -> any GraphQLOutputValue.Type { [Value].self }
        // A selection set is read boxed, as generated code reads the shapes DataDict has no
        // subscript for.
        func boxed<Object: SelectionSet>(_: Object.Type) -> any GraphQLOutputValue.Type { _ObjectValue<Object>.self }
        switch type {
        case .nonNull(let inner): return valueType(inner)
        case .scalar(let scalar): return scalar
        case .object(let selectionSet): return boxed(selectionSet)
        case .list(let element): return arrayOf(accessorType(element, optional: false))
        }
    }
}

extension OutputType {
    var selectionSet: (any SelectionSet.Type)? {
        switch self {
        case .nonNull(let inner), .list(let inner): return inner.selectionSet
        case .object(let type): return type
        case .scalar: return nil
        }
    }
}

extension ParentType {
    /// The engine's rule (`package` in APICore), restated: the parent's own type, else the
    /// `__typename`'s membership.
    func applies(_ typename: String?, within parent: ParentType) -> Bool {
        name == parent.name || typename.map(possibleTypes.contains) ?? false
    }
}

protocol OptionalValue {
    var isNone: Bool { get }
}

extension Optional: OptionalValue {
    var isNone: Bool { self == nil }
}

/// Equal JSON, numbers by value: a `Float` field may come as `691264` and be written `691264.0`.
func sameJSON(_ a: JSONValue, _ b: JSONValue) -> Bool {
    if let x = a.doubleValue, let y = b.doubleValue, a.isNumber, b.isNumber { return x == y }
    return a == b
}

extension JSONValue {
    fileprivate var isNumber: Bool {
        switch self {
        case .int, .double, .number: return true
        default: return false
        }
    }
}
