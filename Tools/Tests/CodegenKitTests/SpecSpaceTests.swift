import CodegenFuzzTargets
import CodegenKit
import Foundation
import Testing

/// Valid documents from the corners of the spec, each generated and compiled with swiftc against
/// APICore (`CompileCheck`): recursive input objects, names that meet after Swift's conversions,
/// descriptions on executable definitions, self-referential defaults. Every shape the spec-space
/// fuzzer (`codegen-properties space`) found failing is one of these cases.
@Suite("The spec's space: generated and compiled")
struct SpecSpaceTests {
    /// APICore's module from this test run's build.
    static let modules = CompileCheck.modulesBesideExecutable

    /// The compiler's errors for the code generated from `schema` and `operations` (with the
    /// spec-space configuration: test mocks, every initializer).
    func compileErrors(_ schema: String, _ operations: String) throws -> [String] {
        let modules = try #require(Self.modules, "APICore's module is not beside the test executable")
        let files = try RandomSpecSpace.generate(RandomGraphQL.Sample(schema: schema, operations: operations))
        return try CompileCheck.errors(files, moduleName: "Space", modules: modules)
    }

    @Test("random samples of the spec's space generate and compile (fixed seeds; scripts/fuzz.sh codegen-space runs more)",
          arguments: 0..<6)
    func samples(seed: UInt64) throws {
        let sample = RandomSpecSpace.sample(seed: seed)
        let errors = try compileErrors(sample.schema, sample.operations)
        #expect(errors.isEmpty, "seed \(seed):\n\(errors.prefix(10).joined(separator: "\n"))")
    }

    @Test("input objects in any cycle: directly, through lists, through each other, through @oneOf; the rest stored as it is")
    func recursiveInputs() throws {
        let schema = """
            type Query { f(where: Filter, a: A, k: K, plain: Plain): Int }
            input Filter { name: String  not: Filter  _and: [Filter!]  _or: [Filter!] }
            input A { b: B  v: Int }
            input B { a: A! }
            input K @oneOf { id: ID  k: K  f: Filter }
            input Plain { name: String  tags: [String!] }
            """
        let operations = "query Q($where: Filter, $a: A, $k: K, $plain: Plain) { f(where: $where, a: $a, k: $k, plain: $plain) }"
        #expect(try compileErrors(schema, operations) == [])
        let files = try generate(schema: schema, operations: operations)
        let filter = files.text("InputObjects/Filter.graphql.swift")
        // Only the field that holds the struct inline is boxed; lists are on the heap already.
        #expect(filter.contains("    var not: GraphQLNullable<TestAPI.Filter> {\n"), "\(filter)")
        #expect(filter.contains("private var __notStorage: InputIndirect<GraphQLNullable<TestAPI.Filter>>"))
        #expect(filter.contains("    var _and: GraphQLNullable<[TestAPI.Filter]>\n"))
        #expect(filter.contains("init(name: GraphQLNullable<String> = nil, not: GraphQLNullable<TestAPI.Filter> = nil,"))
        #expect(files.text("InputObjects/A.graphql.swift").contains("__bStorage"))
        #expect(files.text("InputObjects/B.graphql.swift").contains("__aStorage"))
        #expect(files.text("InputObjects/K.graphql.swift").contains("indirect case k(TestAPI.K)"))
        #expect(!files.text("InputObjects/K.graphql.swift").contains("indirect case id"))
        // Outside a cycle, nothing changes.
        #expect(!files.text("InputObjects/Plain.graphql.swift").contains("Storage"))
    }

    @Test("enum values that differ only in case keep their GraphQL spelling; the others are converted")
    func caseCollidingEnumValues() throws {
        let schema = "type Query { d: Dir e: Pos }\nenum Dir { north North NORTH SOUTH_EAST }\nenum Pos { BOTTOM bottom TOP }"
        #expect(try compileErrors(schema, "query Q { d e }") == [])
        let files = try generate(schema: schema, operations: "query Q { d e }")
        let dir = files.text("Enums/Dir.graphql.swift")
        for line in ["case north = \"north\"", "case North = \"North\"", "case NORTH = \"NORTH\"", "case southEast = \"SOUTH_EAST\""] {
            #expect(dir.contains(line), "\(dir)")
        }
        let pos = files.text("Enums/Pos.graphql.swift")
        #expect(pos.contains("case BOTTOM = \"BOTTOM\"") && pos.contains("case bottom = \"bottom\"") && pos.contains("case top = \"TOP\""))
    }

    @Test("names Swift or the generated code has: keywords, `_`, Type, Self, helpers' own names, a fragment named like an enum or the namespace")
    func collidingNames() throws {
        let schema = """
            type Query { node: Node  Data: String  self: Int  type(in: Type): Type  names(n: Names): Int  count(n: Int): Int }
            interface Node { id: ID!  asItem: String  fragments: String }
            type Item implements Node { id: ID!  asItem: String  fragments: String  hashValue: String }
            enum Type { A a _ self }
            input Names { _: Int  self: Int  default: Int  hashValue: Int  Data: Int }
            """
        let operations = """
            query Q($n: Names, $Data: Int) {
              count(n: $Data)
              node { id asItem fragments ... on Item { hashValue } ...Type ...TestAPI }
              Data
              self
              type(in: A)
              names(n: $n)
              fragments: Data
            }
            fragment Type on Item { id }
            fragment TestAPI on Node { id }
            """
        #expect(try compileErrors(schema, operations) == [])
        let files = try generate(schema: schema, operations: operations)
        let query = files.text("QQuery.graphql.swift")
        #expect(query.contains("    var asItem: String?"))  // the field keeps its name
        #expect(query.contains("    var asItem_: AsItem? { _asInlineFragment() }"), "\(query)")  // the type case gives way
        #expect(query.contains("    var fragments_: Fragments"))
        #expect(query.contains("    var Data_: String?") && query.contains("    var self_: Int?"))
        #expect(files.contains { $0.path.hasSuffix("Fragments/Type+Fragment.graphql.swift") || $0.path.hasSuffix("Fragments/Type.graphql.swift") })
        #expect(files.text("Enums/Type_.graphql.swift").contains("enum Type_: String, EnumType"))
    }

    @Test("descriptions on operations, fragments and variables become doc comments and are never sent")
    func executableDescriptions() throws {
        let schema = "type Query { hero(episode: String): Hero }\ntype Hero { name: String }"
        let operations = """
            "The hero of an episode"
            query Hero(
              "Which episode"
              $episode: String = "x"
              \"\"\"
              Not used
              by the server
              \"\"\"
              $other: String
            ) { hero(episode: $episode) { ...HeroName } again: hero(episode: $other) { name } }

            "The hero's name"
            fragment HeroName on Hero { name }
            """
        #expect(try compileErrors(schema, operations) == [])
        let files = try generate(schema: schema, operations: operations)
        let query = files.text("HeroQuery.graphql.swift")
        #expect(query.contains("/// The hero of an episode\nnonisolated struct HeroQuery"), "\(query)")
        #expect(query.contains("    /// Which episode\n    var episode"))
        #expect(query.contains("    /// Not used\n    /// by the server\n    var other"))
        #expect(!query.contains("\"Which episode\"") && query.contains(#"query Hero($episode: String = "x", $other: String)"#), "\(query)")
        #expect(files.text("Fragments/HeroName.graphql.swift").contains("/// The hero's name\nnonisolated struct HeroName"))
        // A description is no default: a string after `=` stays the default.
        let failure = #expect(throws: CodegenFailure.self) {
            _ = try generate(schema: schema, operations: "query Q(\"d\" $a: String = \"x\" \"e\" $b: Int) { hero(episode: $a) { name } }")
        }
        #expect(failure?.description.contains("$b") == true, "\(String(describing: failure))")
    }

    @Test("defaults of any input type, self-referential ones included: no crash, and a cycle of defaults is an error at its place")
    func selfReferentialDefaults() throws {
        let schema = "type Query { f(a: A): Int }\ninput A { x: A = { x: null }  n: Int = 1  list: [A!] = [{ n: 2, x: null, list: [] }] }"
        #expect(try compileErrors(schema, "query Q($a: A = { x: { n: 3 } }) { f(a: $a) }") == [])
        // A non-null field with a default inside a cycle (P.q: Q! = {...}, Q.p: P): GraphQLSwift is
        // given it nullable and without the default, so it stays optional in operations.
        let nonNull = "type Query { f(p: P): Int }\ninput P { q: Q! = { p: null }  n: Int }\ninput Q { p: P  list: [P!]! = [{ q: { p: null, list: [] } }] }"
        #expect(try compileErrors(nonNull, "query Q { f(p: { n: 1 }) }") == [])
        #expect(throws: CodegenFailure.self) { _ = try generate(schema: nonNull, operations: "query Q { f(p: { q: null }) }") }
        do {
            _ = try generate(schema: "type Query { f(a: A): Int }\ninput A { x: A = {}  n: Int }", operations: "query Q { f }")
            Issue.record("a default that never ends was accepted")
        } catch {
            #expect(error.diagnostics.map(\.description) == [
                "schema.graphqls:2:18: error: Invalid circular reference. The default value of Input Object field A.x references itself."
            ])
        }
    }

    @Test("what the schema rules now refuse: a wrong-typed default, a directive defined twice, a @oneOf that cannot be built")
    func schemaGaps() {
        func errors(_ schema: String) -> [String] {
            do {
                _ = try generate(schema: "type Query { ok: Int }\n" + schema, operations: "query Q { ok }")
                return []
            } catch {
                return error.diagnostics.map(\.description)
            }
        }
        #expect(errors("input I { n: Int = \"x\" }\ntype T { f(i: I = { n: 1, m: 2 }): Int }") == [
            #"schema.graphqls:2:20: error: Input field I.n has invalid default value: expected a 32-bit Int, found "x""#,
            #"schema.graphqls:3:27: error: Argument T.f(i:) has invalid default value: "I" has no field "m""#,
        ])
        #expect(errors("directive @d on FIELD\ndirective @d on FIELD") == [
            #"schema.graphqls:2:12: error: There can be only one directive named "@d". (also at 3:12)"#
        ])
        #expect(errors("input K @oneOf { k: K  j: J }\ninput J @oneOf { k: K }") == [
            "schema.graphqls:2:1: error: OneOf Input Object K cannot be built: each of its fields is an input object that needs K again (or another that cannot be built), so no finite value exists.",
            "schema.graphqls:3:1: error: OneOf Input Object J cannot be built: each of its fields is an input object that needs J again (or another that cannot be built), so no finite value exists.",
        ])
        #expect(errors("input K @oneOf { k: K  id: ID }") == [])
    }

    @Test("input object arguments are the same whatever the order of their fields")
    func argumentFieldOrder() throws {
        let schema = "type Query { f(arg: P): Int }\ninput P { x: Int y: Int }"
        _ = try generate(schema: schema, operations: "query Q { f(arg: {x: 1, y: 2}) f(arg: {y: 2, x: 1}) }")
        #expect(throws: CodegenFailure.self) { _ = try generate(schema: schema, operations: "query Q { f(arg: {x: 1, y: 2}) f(arg: {y: 2, x: 3}) }") }
    }
}

/// Documents deeper than GraphQLSwift can read are refused at the place they get too deep, never
/// a crash (its parser's recursion ran out of stack near a thousand selection sets) nor a hang
/// (it prints a list value in time exponential in its depth).
@Suite("Nesting limits")
struct NestingLimitTests {
    let schema = "type Query { a: Query b: Int l(x: [Int]): Int }"

    func errors(_ operations: String) -> [String] {
        do {
            _ = try generate(schema: schema, operations: operations)
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    @Test("selection sets 2,000 deep, and lists 60 deep in a value, are an error at the first level too deep")
    func tooDeep() {
        let selections = "query Q { " + String(repeating: "a { ", count: 2_000) + "b" + String(repeating: " }", count: 2_000) + " }"
        #expect(errors(selections) == [
            "operations.graphql:1:409: error: selection sets, arguments, lists and objects nest deeper than 100 levels here; the generator reads no deeper"
        ])
        let lists = "query Q { l(x: " + String(repeating: "[", count: 60) + "1" + String(repeating: "]", count: 60) + ") }"
        #expect(errors(lists) == ["operations.graphql:1:40: error: lists nest deeper than 24 levels here; the generator reads no deeper"])
        #expect(throws: CodegenFailure.self) {
            _ = try generate(schema: "type Query { l(x: " + String(repeating: "[", count: 30) + "Int" + String(repeating: "]", count: 30) + "): Int }", operations: "query Q { l }")
        }
    }

    @Test("as deep as people write, and deeper, is read: 90 selection sets, 20 lists")
    func deepEnough() throws {
        let selections = "query Q { " + String(repeating: "a { ", count: 90) + "b" + String(repeating: " }", count: 90) + " }"
        _ = try generate(schema: schema, operations: selections)
        #expect(errors("query Q { l(x: " + String(repeating: "[", count: 20) + "1" + String(repeating: "]", count: 20) + ") }").count == 1)
    }
}
