import CodegenKit
import Foundation

/// Random valid schemas and random valid operations on them, from a seed: the inputs of the
/// generator's property tests (`PropertyTests`, `scripts/codegen-properties.sh`) and of the
/// committed samples in `Fixtures/GeneratedSamples`.
///
/// The schemas have what real ones have and hand-written fixtures tend to miss: objects that
/// implement several interfaces, interfaces that implement interfaces, unions that overlap them,
/// nested and non-null lists, enums and input objects. The operations nest and overlap type
/// conditions (inline fragments and fragment spreads on interfaces, unions and objects), alias
/// fields and put selections under `@include`/`@skip`. Every output is valid by construction: a
/// field name has one type wherever it is declared, so any two selections of one response key can
/// be merged, and a fragment spreads only fragments defined before it.
package struct RandomGraphQL {
    /// One schema and the operations written against it.
    package struct Sample: Sendable {
        /// The SDL.
        package var schema: String
        /// Operations and fragments.
        package var operations: String

        package init(schema: String, operations: String) {
            self.schema = schema
            self.operations = operations
        }
    }

    /// How big the schema and operations are.
    package struct Size: Sendable {
        package var interfaces = 5
        package var objects = 8
        package var unions = 3
        package var enums = 2
        package var operations = 4
        package var fragments = 3
        /// Field nesting below an operation's root field.
        package var depth = 3

        package init() {}

        /// About 1,000 types, several interfaces per object: the `codegen-overlap` benchmark.
        package static var benchmark: Size {
            var size = Size()
            size.interfaces = 150
            size.objects = 700
            size.unions = 100
            size.enums = 50
            size.operations = 50
            size.fragments = 20
            return size
        }
    }

    /// The sample for `seed`: the same seed always gives the same text.
    package static func sample(seed: UInt64, size: Size = Size()) -> Sample {
        var builder = RandomGraphQL(random: SeededRandom(seed: seed), size: size)
        builder.makeSchema()
        return Sample(schema: builder.schemaText(), operations: builder.operationsText())
    }

    // MARK: Schema

    private enum Kind {
        case object, interface, union, enumeration
        var isComposite: Bool { self != .enumeration }
    }

    private struct TypeInfo {
        var name: String
        var kind: Kind
        /// Field name → type, in declaration order.
        var fields: [(name: String, type: String)] = []
        var interfaces: [String] = []
        var members: [String] = []
        var values: [String] = []
    }

    private var random: SeededRandom
    private let size: Size
    private var types: [String: TypeInfo] = [:]
    private var order: [String] = []
    private var fragments: [(name: String, on: String)] = []
    private var possible: [String: Set<String>] = [:]
    private var conditionsCache: [String: [String]] = [:]

    private init(random: SeededRandom, size: Size) {
        self.random = random
        self.size = size
    }

    private static let scalars = ["String", "String!", "Int", "Int!", "Float", "Boolean!", "ID!", "[String!]", "[Int]!"]
    private static let sharedFields: [(String, String)] = [("id", "ID!"), ("name", "String"), ("rank", "Int")]

    private mutating func add(_ type: TypeInfo) {
        types[type.name] = type
        order.append(type.name)
    }

    private mutating func makeSchema() {
        for index in 0..<size.enums {
            add(TypeInfo(name: "Enum\(index)", kind: .enumeration, values: (0..<random.int(in: 1...4)).map { "V\($0)" }))
        }
        let interfaceNames = (0..<size.interfaces).map { "Interface\($0)" }
        let objectNames = (0..<size.objects).map { "Object\($0)" }
        let unionNames = (0..<size.unions).map { "Union\($0)" }
        let compositeNames = interfaceNames + objectNames + unionNames

        func fieldType() -> String {
            switch random.int(in: 0..<10) {
            case 0..<5: return random.element(Self.scalars)
            case 5 where size.enums > 0: return "Enum\(random.int(in: 0..<size.enums))" + (random.bool() ? "!" : "")
            default:
                let target = random.element(compositeNames)
                return random.element([target, "\(target)!", "[\(target)]", "[\(target)!]!", "[[\(target)]]"])
            }
        }
        func ownFields(_ owner: String, count: Int) -> [(name: String, type: String)] {
            var fields: [(name: String, type: String)] = []
            for index in 0..<count {
                let name = "\(owner.prefix(1).lowercased())\(owner.filter(\.isNumber))f\(index)"
                fields.append((name, fieldType()))
            }
            // Shared names have one type wherever they are declared.
            for (name, type) in Self.sharedFields where random.int(in: 0..<3) == 0 {
                fields.append((name, type))
            }
            return fields
        }
        func merged(_ fields: [(name: String, type: String)], with more: [(name: String, type: String)]) -> [(name: String, type: String)] {
            var result = fields
            for field in more where !result.contains(where: { $0.name == field.name }) { result.append(field) }
            return result
        }

        // Interfaces, each implementing some earlier ones (and all that those implement).
        for (index, name) in interfaceNames.enumerated() {
            var type = TypeInfo(name: name, kind: .interface, fields: ownFields(name, count: random.int(in: 1...3)))
            if index > 0 {
                for _ in 0..<random.int(in: 0...2) {
                    let parent = interfaceNames[random.int(in: 0..<index)]
                    for interface in [parent] + (types[parent]?.interfaces ?? []) where !type.interfaces.contains(interface) {
                        type.interfaces.append(interface)
                        type.fields = merged(type.fields, with: types[interface]?.fields ?? [])
                    }
                }
            }
            add(type)
        }
        // Objects implementing several interfaces.
        for name in objectNames {
            var type = TypeInfo(name: name, kind: .object, fields: ownFields(name, count: random.int(in: 1...3)))
            if !interfaceNames.isEmpty {
                for _ in 0..<random.int(in: 0...3) {
                    let chosen = random.element(interfaceNames)
                    for interface in [chosen] + (types[chosen]?.interfaces ?? []) where !type.interfaces.contains(interface) {
                        type.interfaces.append(interface)
                        type.fields = merged(type.fields, with: types[interface]?.fields ?? [])
                    }
                }
            }
            add(type)
        }
        for name in unionNames {
            var members: [String] = []
            for _ in 0..<random.int(in: 1...4) {
                let member = random.element(objectNames)
                if !members.contains(member) { members.append(member) }
            }
            add(TypeInfo(name: name, kind: .union, members: members))
        }
        var query = TypeInfo(name: "Query", kind: .object)
        for name in compositeNames {
            query.fields.append(("all\(name)", "[\(name)!]!"))
            query.fields.append(("one\(name)", name))
        }
        add(query)
        computePossibleTypes()
        addDirectiveFixtures()
    }

    // MARK: The newer directives, with no random draws (a seed's other text stays as it was)

    /// Object types keyed by `@typePolicy(keyFields: "id")`: every other one with an `id`.
    private var keyedObjects: [String] = []

    /// `@semanticNonNull` on some nullable fields (by name, so a field has it wherever it is
    /// declared), `@typePolicy(keyFields:)` on some objects, `byId…(id:)` query fields with
    /// `@fieldPolicy`, and a `@oneOf` input with a `findBy(key:filter:)` field that takes it.
    private mutating func addDirectiveFixtures() {
        let withID = order.filter { types[$0]?.kind == .object && $0 != "Query" && types[$0]?.fields.contains { $0.name == "id" } == true }
        keyedObjects = withID.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        for name in keyedObjects { types["Query"]?.fields.append(("byId\(name)(id: ID!)", name)) }
        if let target = order.first(where: { types[$0]?.kind == .object && $0 != "Query" }) {
            types["Query"]?.fields.append(("findBy(key: OneOfKey!, filter: Filter)", "[\(target)!]"))
        }
    }

    /// Whether a nullable field of this name is `@semanticNonNull`.
    private static func isSemanticNonNull(_ field: String) -> Bool {
        field.unicodeScalars.reduce(0) { $0 &+ Int($1.value) } % 4 == 0
    }

    private func schemaText() -> String {
        var lines: [String] = []
        for name in order {
            guard let type = types[name] else { continue }
            switch type.kind {
            case .enumeration:
                lines.append("enum \(name) { \(type.values.joined(separator: " ")) }")
            case .union:
                lines.append("union \(name) = \(type.members.joined(separator: " | "))")
            case .object, .interface:
                let keyword = type.kind == .object ? "type" : "interface"
                let implements = type.interfaces.isEmpty ? "" : " implements " + type.interfaces.joined(separator: " & ")
                var directives = keyedObjects.contains(name) ? " @typePolicy(keyFields: \"id\")" : ""
                if name == "Query" {
                    directives += keyedObjects.map { " @fieldPolicy(forField: \"byId\($0)\", keyArgs: \"id\")" }.joined()
                }
                lines.append("\(keyword) \(name)\(implements)\(directives) {")
                for field in type.fields {
                    let semantic = !field.type.hasSuffix("!") && Self.isSemanticNonNull(field.name) ? " @semanticNonNull" : ""
                    lines.append("  \(field.name): \(field.type)\(semantic)")
                }
                lines.append("}")
            }
        }
        lines.append("input OneOfKey @oneOf { id: ID name: String rank: Int }")
        lines.append("input Filter { name: String rank: Int = 1 }")
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: Operations

    /// Object types an object, interface or union can be.
    private func possibleTypes(_ name: String) -> Set<String> { possible[name] ?? [] }

    private mutating func computePossibleTypes() {
        for (name, type) in types {
            switch type.kind {
            case .object: possible[name] = [name]
            case .union: possible[name] = Set(type.members)
            case .interface: possible[name] = Set(types.values.filter { $0.kind == .object && $0.interfaces.contains(name) }.map(\.name))
            case .enumeration: break
            }
        }
    }

    /// The composite types a type condition may name inside a selection on `name`: those that
    /// share a possible type with it (the spec's rule for fragment spreads).
    private mutating func conditions(within name: String) -> [String] {
        if let cached = conditionsCache[name] { return cached }
        let own = possibleTypes(name)
        let result = order.filter { candidate in
            guard let kind = types[candidate]?.kind, kind != .enumeration, candidate != "Query" else { return false }
            return !possibleTypes(candidate).isDisjoint(with: own)
        }
        conditionsCache[name] = result
        return result
    }

    private static func namedType(_ type: String) -> String { type.filter { $0 != "[" && $0 != "]" && $0 != "!" } }

    private struct OperationState {
        var variables: Set<String> = []
        var allowConditions: Bool
    }

    private mutating func selectionSet(on name: String, depth: Int, indent: String, state: inout OperationState) -> String {
        var lines: [String] = []
        let fields = types[name]?.fields ?? []
        let count = random.int(in: 1...4)
        for _ in 0..<count {
            let choice = random.int(in: 0..<10)
            if choice < 5, !fields.isEmpty {
                lines.append(indent + field(random.element(fields), depth: depth, indent: indent, state: &state))
            } else if choice < 8 {
                let options = conditions(within: name)
                guard !options.isEmpty, depth > 0 else { continue }
                // Now and then an inline fragment without a type condition, only to carry a directive.
                let condition = random.int(in: 0..<8) == 0 ? nil : random.element(options)
                let typeCondition = condition.map { " on \($0)" } ?? ""
                let applied = directive(&state)
                let body = selectionSet(on: condition ?? name, depth: depth - 1, indent: indent + "  ", state: &state)
                lines.append(indent + "...\(typeCondition)\(applied) {\n\(body)\n\(indent)}")
            } else if choice == 8 {
                let usable = fragments.filter { !possibleTypes($0.on).isDisjoint(with: possibleTypes(name)) }
                guard !usable.isEmpty else { continue }
                lines.append(indent + "...\(random.element(usable).name)\(directive(&state))")
            } else {
                lines.append(indent + "__typename")
            }
        }
        if lines.isEmpty { lines.append(indent + "__typename") }
        return lines.joined(separator: "\n")
    }

    private mutating func field(_ field: (name: String, type: String), depth: Int, indent: String, state: inout OperationState) -> String {
        // An alias names its field (`alias_x: x`), so a response key always means one field.
        let prefix = random.int(in: 0..<5) == 0 ? "alias_\(field.name): " : ""
        let text = prefix + field.name + directive(&state)
        let target = Self.namedType(field.type)
        guard types[target]?.kind.isComposite ?? false else { return text }
        if depth <= 0 { return text + " { __typename }" }
        return text + " {\n" + selectionSet(on: target, depth: depth - 1, indent: indent + "  ", state: &state) + "\n\(indent)}"
    }

    private mutating func directive(_ state: inout OperationState) -> String {
        guard state.allowConditions, random.int(in: 0..<5) == 0 else { return "" }
        let variable = "c\(random.int(in: 0..<3))"
        state.variables.insert(variable)
        return random.bool() ? " @include(if: $\(variable))" : " @skip(if: $\(variable))"
    }

    private mutating func operationsText() -> String {
        var parts: [String] = []
        let composites = order.filter { types[$0]?.kind.isComposite ?? false && $0 != "Query" }
        guard !composites.isEmpty else { return "" }
        // Fragments use no variables: every operation that spreads one would have to declare them.
        for index in 0..<size.fragments {
            let on = random.element(composites)
            var state = OperationState(allowConditions: false)
            let body = selectionSet(on: on, depth: size.depth - 1, indent: "  ", state: &state)
            let name = "Fragment\(index)"
            parts.append("fragment \(name) on \(on) {\n\(body)\n}")
            fragments.append((name, on))
        }
        for index in 0..<size.operations {
            var state = OperationState(allowConditions: true)
            var roots: [String] = []
            for _ in 0..<random.int(in: 1...2) {
                let target = random.element(composites)
                let field = random.bool() ? "all\(target)" : "one\(target)"
                let body = selectionSet(on: target, depth: size.depth, indent: "    ", state: &state)
                let key = "root\(roots.count)"
                roots.append("  \(key): \(field) {\n\(body)\n  }")
            }
            let variables = state.variables.sorted().map { "$\($0): Boolean!" }
            let signature = variables.isEmpty ? "" : "(\(variables.joined(separator: ", ")))"
            parts.append("query Operation\(index)\(signature) {\n\(roots.joined(separator: "\n"))\n}")
        }
        parts.append(directivesOperation())
        return parts.joined(separator: "\n\n") + "\n"
    }

    /// `Directives`: the `@oneOf` input as a variable, a `@fieldPolicy` redirect, and `@catch` on
    /// the operation (NULL) and on fields (RESULT, THROW).
    private func directivesOperation() -> String {
        func leaves(of name: String) -> [String] {
            (types[name]?.fields ?? []).filter { !(types[Self.namedType($0.type)]?.kind.isComposite ?? false) }.map(\.name)
        }
        var roots: [String] = []
        if let find = types["Query"]?.fields.first(where: { $0.name.hasPrefix("findBy(") }) {
            let fields = leaves(of: Self.namedType(find.type)).prefix(2)
            let body = fields.enumerated().map { "    \($0.element)\($0.offset == 0 ? " @catch(to: THROW)" : "")" } + ["    __typename"]
            roots.append("  found: findBy(key: $key, filter: $filter) @catch {\n\(body.joined(separator: "\n"))\n  }")
        }
        if let keyed = keyedObjects.first {
            let body = ["    id"] + leaves(of: keyed).filter { $0 != "id" }.prefix(1).map { "    \($0) @catch(to: RESULT)" }
            roots.append("  byId: byId\(keyed)(id: \"1\") {\n\(body.joined(separator: "\n"))\n  }")
        }
        roots.append("  __typename")
        return "query Directives($key: OneOfKey!, $filter: Filter) @catch(to: NULL) {\n\(roots.joined(separator: "\n"))\n}"
    }
}

/// SplitMix64: small, fast and the same on every platform, so a seed names one sample forever.
package struct SeededRandom: Sendable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    package mutating func int(in range: Range<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
    package mutating func int(in range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
    package mutating func bool() -> Bool { next() & 1 == 0 }
    package mutating func element<T>(_ array: [T]) -> T { array[int(in: 0..<array.count)] }
}

/// The generator's properties on one random sample, shared by the test suite's fixed seeds and
/// `codegen-properties run`'s longer runs.
package enum PropertyCheck {
    /// The files of `sample`, generated as a kit's configuration does (operations in the schema module).
    package static func generate(_ sample: RandomGraphQL.Sample) throws(CodegenFailure) -> [GeneratedFile] {
        try Codegen.generate(
            schemaFiles: [("schema.graphqls", sample.schema)], operationFiles: [("operations.graphql", sample.operations)],
            configuration: CodegenFuzzTarget.configuration)
    }

    /// The structs of selection sets declared in generated files (test mocks, one per object type
    /// at most, aside).
    package static func structCount(_ files: [GeneratedFile]) -> Int {
        files.filter { !$0.path.hasPrefix("Mocks/") }.reduce(0) { $0 + $1.contents.components(separatedBy: " struct ").count - 1 }
    }

    /// What is wrong with the output of `sample`, or `nil`: it took longer than 20 s (a ceiling with
    /// ample slack; what matters is that it ends), it has more structs than the document could
    /// ask for (each comes from a selection set or type condition written in the operations, at
    /// most once per enclosing type case), or a second run gives other bytes.

    package static func problem(_ sample: RandomGraphQL.Sample, _ files: [GeneratedFile], duration: Duration) -> String? {
        if duration > .seconds(20) { return "generation took \(duration)" }
        let written = sample.operations.filter { $0 == "{" }.count
        let structs = structCount(files)
        if structs > written * written + 10 { return "\(structs) structs for \(written) selection sets" }
        guard let again = try? generate(sample), again == files else { return "a second run gave other files" }
        return nil
    }
}
