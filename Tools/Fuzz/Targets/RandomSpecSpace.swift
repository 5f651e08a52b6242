import CodegenKit
import Foundation

/// Random valid schemas and operations that reach where `RandomGraphQL` does not: the corners
/// of the spec that real schemas hit and hand-written fixtures miss.
///
/// - input objects that hold themselves directly (`not: Filter`), through lists (`_and: [Filter!]`),
///   through each other (`A.b: B`, `B.a: A`), through a non-null field broken by a nullable one,
///   and through `@oneOf` cases;
/// - defaults of every type: scalars, enums, lists, object literals of other input objects and of
///   the input object itself (`first: Tree = { v: 1, first: null }`), `@oneOf` values;
/// - names that meet after Swift's conversions or Swift's own: enum values that differ only in
///   case (`north`, `North`, `NORTH`), Swift keywords, `_`, types and fragments named like the
///   Swift and APICore types generated code uses (`Result`, `Data`, `String`, `Type`, `Self`,
///   `Objects`), fields and aliases named like the generated helpers (`fragments`, `asItem`,
///   `__data`), types whose names differ only in case;
/// - descriptions on every definition, executable ones included, and a directive allowed and
///   used at every location.
///
/// Every sample is valid GraphQL; `codegen-properties space` generates and compiles them.
package enum RandomSpecSpace {
    /// The sample for `seed`: the same seed always gives the same text.
    package static func sample(seed: UInt64) -> RandomGraphQL.Sample {
        var builder = Builder(random: SeededRandom(seed: seed))
        builder.build()
        return RandomGraphQL.Sample(schema: builder.schema.joined(separator: "\n") + "\n", operations: builder.operations.joined(separator: "\n\n") + "\n")
    }

    /// How the samples are generated: a public schema module whose namespace is `TestAPI` (a
    /// fragment may be named so too), with test mocks, every selection-set initializer and the
    /// operation manifest.
    package static let configuration: CodegenConfiguration = {
        let json = """
            {
              "schemaNamespace": "TestAPI",
              "input": { "operationSearchPaths": ["*.graphql"], "schemaSearchPaths": ["*.graphqls"] },
              "output": {
                "schemaTypes": { "path": "Generated", "moduleType": { "embeddedInTarget": { "name": "Space", "accessModifier": "public" } } },
                "operations": { "inSchemaModule": {} },
                "testMocks": { "absolute": { "path": "Mocks", "accessModifier": "public" } }
              },
              "operationManifest": { "path": "manifest.json" },
              "options": { "selectionSetInitializers": { "operations": true, "namedFragments": true, "localCacheMutations": true } }
            }
            """
        guard let configuration = try? CodegenConfiguration.parse(Data(json.utf8), file: "space.json", baseURL: URL(fileURLWithPath: "/nonexistent"))
        else { fatalError("RandomSpecSpace: the built-in configuration does not parse") }
        return configuration
    }()

    /// The generated files of `sample`.
    package static func generate(_ sample: RandomGraphQL.Sample) throws(CodegenFailure) -> [GeneratedFile] {
        try Codegen.generate(
            schemaFiles: [("schema.graphqls", sample.schema)], operationFiles: [("operations.graphql", sample.operations)], configuration: configuration)
    }

    /// Names that meet something once made Swift: keywords, the helpers' own, each other in case.
    static let enumValuePools: [[String]] = [
        ["north", "North", "NORTH", "south"],
        ["BOTTOM", "bottom", "TOP_LEFT", "topLeft", "TopLeft"],
        ["self", "Self", "Type", "init", "default", "case", "rawValue", "allCases", "_", "some_value", "SOME_VALUE"],
        ["A", "a", "B", "b_", "B_"],
    ]
    static let enumNames = ["Dir", "Type", "Kind", "Result", "Self", "Objects", "Other_", "TestAPI"]
    static let fragmentNames = ["Result", "Error", "Data", "String", "Self", "Type", "Fragments", "TestAPI", "ItemsQuery", "Objects", "Deferred", "Optional"]
    static let memberNames = ["self", "default", "in", "where", "init", "Type", "protocol", "fragments", "data", "hashValue", "description", "_"]

    struct Builder {
        var schema: [String] = []
        var operations: [String] = []
        var directive = ""
        /// The enum used by inputs and fields, with its values.
        var enumName = "Dir"
        var enumValues: [String] = []
        var fragmentName = "Result"
        /// The second object type's name: Swift's or APICore's now and then.
        var otherName = "Other"
        /// Input objects in a random graph, beside the fixed shapes.
        var graph: RandomInputGraph?
        var withDescriptions = true

        init(random: SeededRandom) { source = Source(random) }

        /// The draws, by reference: text is made in expressions that also append to the builder.
        final class Source {
            var random: SeededRandom
            init(_ random: SeededRandom) { self.random = random }
        }

        let source: Source
        var random: SeededRandom {
            get { source.random }
            nonmutating set { source.random = newValue }
        }

        func description(_ text: String) -> String {
            guard withDescriptions, random.int(in: 0..<4) != 0 else { return "" }
            return random.bool() ? "\"\(text)\" " : "\"\"\"\n  \(text)\n  with \\\"\"\" and a second line\n  \"\"\"\n"
        }

        func applied() -> String {
            switch random.int(in: 0..<3) {
            case 0: return ""
            case 1: return " @all"
            default: return " @all(x: \(random.int(in: 0..<9)))"
            }
        }

        mutating func build() {
            withDescriptions = random.int(in: 0..<5) != 0
            enumName = random.element(RandomSpecSpace.enumNames)
            let pool = random.element(RandomSpecSpace.enumValuePools)
            enumValues = pool.filter { _ in random.int(in: 0..<5) != 0 }
            if enumValues.isEmpty { enumValues = [pool[0]] }
            fragmentName = random.element(RandomSpecSpace.fragmentNames)
            otherName = random.element(["Other", "Protocol", "Error", "Fragment", "Data", "Selection", "Mock", "Item_"])
            let locations = "QUERY | MUTATION | SUBSCRIPTION | FIELD | FRAGMENT_DEFINITION | FRAGMENT_SPREAD | INLINE_FRAGMENT | VARIABLE_DEFINITION"
                + " | SCHEMA | SCALAR | OBJECT | FIELD_DEFINITION | ARGUMENT_DEFINITION | INTERFACE | UNION | ENUM | ENUM_VALUE | INPUT_OBJECT | INPUT_FIELD_DEFINITION"
            schema.append(description("Anywhere") + "directive @all(x: Int) repeatable on \(locations)")
            schema.append(description("The schema") + "schema\(applied()) { query: Query mutation: Mutation subscription: Subscription }")
            schema.append(description("A time") + "scalar DateTime @specifiedBy(url: \"https://example.com/date\")\(applied())")
            let values = enumValues.map { description("value \($0)") + $0 + applied() }.joined(separator: "\n  ")
            schema.append(description("An enum") + "enum \(enumName)\(applied()) {\n  \(values)\n}")
            inputs()
            let graph = RandomInputGraph(random: &source.random, enumName: enumName, enumValue: enumValues[0])
            self.graph = graph
            schema += graph.schema(description: description, applied: applied)
            outputTypes()
            documents()
            operations.append(graph.operation(random: &source.random))
        }

        /// Input objects in every kind of cycle, with defaults of every type.
        mutating func inputs() {
            let first = enumValues[0]
            schema.append(description("Boolean expression") + """
                input Filter\(applied()) {
                  name: String\(applied())
                  not: Filter
                  _and: [Filter!]
                  _or: [Filter!]
                  kind: \(enumName) = \(first)
                }
                """)
            schema.append("input A { b: B  v: Int = 1  list: [A!] = [] }")
            schema.append("input B { a: A  \(description("needs C"))c: C! = { d: { n: 2 } } }")
            schema.append("input C { d: D! }")
            schema.append("input D { c: C  n: Int = 0 }")
            schema.append("input K @oneOf { id: ID  k: K  f: Filter  many: [K!] }")
            schema.append("input Tree { v: Int = 0  kids: [Tree!] = []  first: Tree = { v: 1, first: null } }")
            var members = memberFields(except: ["name"]).map { "\($0): Int" }
            members.append("Name: String")
            members.append("NAME: String")
            members.append("name: String")
            schema.append("input Names { \(members.joined(separator: "  ")) }")
            schema.append("""
                input Defaults {
                  i: Int = 1
                  f: Float = 1.5
                  s: String = "quote \\" and \\\\ backslash"
                  b: Boolean = true
                  id: ID = 7
                  e: \(enumName) = \(first)
                  l: [Int] = [1, 2]
                  one: [Int] = 3
                  o: Filter = { name: "a", not: { name: "b", _and: [{ name: "c" }] } }
                  k: K = { id: "1" }
                  tree: Tree = { kids: [{ v: 2 }] }
                  nn: Int! = 3
                  when: DateTime = "2026-01-01"
                }
                """)
        }

        /// Some of the member names, never one of `taken`.
        func memberFields(except taken: Set<String> = []) -> [String] {
            RandomSpecSpace.memberNames.filter { !taken.contains($0) && random.int(in: 0..<3) != 0 }
        }

        mutating func outputTypes() {
            let itemFields = memberFields(except: ["fragments", "name"]).map { "\($0): String" }.joined(separator: "\n  ")
            schema.append(description("Something with an id") + "interface Node\(applied()) {\n  id: ID!\n  asItem: String\n  fragments: String\n}")
            schema.append(description("An item") + """
                type Item implements Node\(applied()) {
                  id: ID!
                  asItem: String
                  fragments: String
                  name: String\(applied())
                  Name: String
                  kind: \(enumName)
                  \(itemFields)
                  when: DateTime
                  related(\(description("what to find"))where: Filter = { not: { name: "x" } }, first: Int = 10\(applied())): [Item!]!
                }
                """)
            schema.append("type item { id: ID! }")
            schema.append("type \(otherName) implements Node { id: ID! asItem: String fragments: String tag: String }")
            schema.append(description("Either") + "union Thing\(applied()) = Item | \(otherName)")
            // A second enum whose name differs from the first only in case: another file name on
            // a case-sensitive disk, the same on a case-insensitive one.
            schema.append("enum \(enumName.lowercased()) { ONE two }")
            schema.append("""
                type Query {
                  items(where: Filter, order: [\(enumName)!], k: K, names: Names, d: Defaults = { i: 2 }, tree: Tree): [Item!]!
                  node(id: ID!): Node
                  thing: Thing
                  lower: item
                  Data: String
                  self: Int
                  low: \(enumName.lowercased())
                  find(a: A, b: B, c: C, key: K!): Int
                  \(graph?.queryField() ?? "")
                }
                """)
            schema.append("type Mutation { update(where: Filter!, \(description("the change"))to: Names): Item }")
            schema.append("type Subscription { changed(where: Filter = { _or: [{ name: \"a\" }, { not: { kind: \(enumValues[0]) } }] }): Item }")
        }

        mutating func documents() {
            let alias = random.element(["fragments", "asItem", "__data", "Data", "self", "init", "hashValue", "data"])
            operations.append(description("Fields of an item") + "fragment \(fragmentName) on Item\(applied()) {\n  id\n  name\n  Name\n  kind\n}")
            operations.append(description("Items by a filter") + """
                query Items(\(description("the filter"))$where: Filter = { _and: [{ name: "a" }, { not: { name: "b" } }] }\(applied()), $order: [\(enumName)!], \(description("one of"))$k: K = { k: { id: "2" } }, $names: Names, $tree: Tree) @all {
                  items(where: $where, order: $order, k: $k, names: $names, tree: $tree) {
                    ...\(fragmentName)\(applied())
                    \(alias): name
                    related(where: { _or: [{ name: "x" }, { not: { _and: [{ kind: \(enumValues[0]) }] } }] }) { id }
                  }
                  node(id: "1") {
                    id
                    asItem
                    fragments
                    ... on Item\(applied()) { name }
                    ... on \(otherName) { tag }
                  }
                  thing { ... on Item { id } ...\(fragmentName) }
                  lower { id\(applied()) }
                  Data
                  self
                  low
                  find(a: { b: { a: { v: 2 } } }, c: { d: { c: { d: { n: 1 } } } }, key: { many: [{ id: "1" }, { k: { id: "2" } }] })
                }
                """)
            operations.append(description("Change an item") + """
                mutation Update($where: Filter!, $to: Names)\(applied()) {
                  update(where: $where, to: $to) { ...\(fragmentName) when }
                }
                """)
            operations.append(description("Changes") + """
                subscription Changed($where: Filter)\(applied()) {
                  changed(where: $where) { id ... on Item { related { id } } }
                }
                """)
        }
    }
}
