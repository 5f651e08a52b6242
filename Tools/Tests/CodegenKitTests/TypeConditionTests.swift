import CodegenFuzzTargets
import CodegenKit
import Foundation
import Testing

/// The generated files of one schema and one operations text, in memory.
func generate(schema: String, operations: String, namespace: String = "TestAPI") throws(CodegenFailure) -> [GeneratedFile] {
    let configuration: CodegenConfiguration
    do {
        configuration = try CodegenConfiguration.parse(
            Data("""
                {
                  "schemaNamespace": "\(namespace)",
                  "input": { "operationSearchPaths": ["*.graphql"], "schemaSearchPaths": ["*.graphqls"] },
                  "output": {
                    "schemaTypes": { "path": "Generated", "moduleType": { "embeddedInTarget": { "name": "App" } } },
                    "operations": { "inSchemaModule": {} }
                  }
                }
                """.utf8),
            file: "apollo-codegen-config.json", baseURL: URL(fileURLWithPath: "/nonexistent"))
    } catch {
        throw CodegenFailure([Diagnostic(file: error.file, message: error.message)])
    }
    return try Codegen.generate(
        schemaFiles: [("schema.graphqls", schema)], operationFiles: [("operations.graphql", operations)], configuration: configuration)
}

extension [GeneratedFile] {
    func text(_ suffix: String) -> String { first { $0.path.hasSuffix(suffix) }?.contents ?? "" }
}

@Suite("Type conditions")
struct TypeConditionTests {
    static let overlapping = """
        type Query { things: [Thing!]! }
        interface A { a: String }
        interface B { b: String }
        type X implements A & B { a: String b: String }
        type Y implements A { a: String }
        type Z { z: Int }
        union Thing = X | Y | Z
        """

    @Test("two type conditions that partly overlap (X implements both A and B) generate one type case each")
    func partialOverlap() throws {
        let files = try generate(schema: Self.overlapping, operations: "query Things { things { ... on A { a } ... on B { b } } }")
        let text = files.text("ThingsQuery.graphql.swift")
        #expect(text.contains("struct AsA: SelectionSet"))
        #expect(text.contains("struct AsB: SelectionSet"))
        // A type case nests only what is written inside it: no AsA.AsB, no AsB.AsA.
        #expect(text.components(separatedBy: "struct As").count - 1 == 2)
        // An X is both: each case reads its own field, and the parent's.
        #expect(files.text("TestAPI.graphql.swift").contains(#"static let A = ParentType.abstract("A", possibleTypes: ["X", "Y"])"#))
    }

    @Test("conditions nested in each other, in both orders, and under @include, terminate with one case per written condition")
    func nestedOverlap() throws {
        let files = try generate(schema: Self.overlapping, operations: """
            query Things($flag: Boolean!) {
              things {
                ... on A { a ... on B { b ... on A { a } } }
                ... on B @include(if: $flag) { b ... on A { a } }
                ... on X { ... on A { a } }
              }
            }
            """)
        let text = files.text("ThingsQuery.graphql.swift")
        // AsA, AsA.AsB (A inside B again is merged: A already holds there), AsB, AsB.AsA, AsX
        // (A holds wherever X does, so it is merged into AsX).
        #expect(text.components(separatedBy: "struct As").count - 1 == 5)
        #expect(text.contains("struct AsX: SelectionSet"))
    }

    @Test("a condition is never folded into its parent because today's schema has one implementer")
    func noFoldingBySchema() throws {
        let files = try generate(
            schema: """
                type Query { child: Child }
                interface Child { id: ID! }
                type ChildA implements Child { id: ID! a: String! }
                """,
            operations: "query Kid { child { id ... on ChildA { a } } }")
        let text = files.text("KidQuery.graphql.swift")
        #expect(text.contains("struct AsChildA: SelectionSet"))
        #expect(text.contains("var asChildA: AsChildA? { _asInlineFragment() }"))
        // `a` is read only through the type case, so a later ChildB without it still decodes.
        let childStruct = text.components(separatedBy: "struct AsChildA")[0]
        #expect(!childStruct.contains("var a: String"))
    }

    @Test("a condition on a type the scope always is (an interface of the object, a union it is in) is merged")
    func structuralMerge() throws {
        let files = try generate(
            schema: Self.overlapping + "\nextend type Query { x: X }",
            operations: "query One { x { ... on A { a } ... on Thing { __typename } ... on B { b } } }")
        let text = files.text("OneQuery.graphql.swift")
        #expect(!text.contains("struct As"))
        #expect(text.contains("var a: String? { __data[\"a\"] }"))
        #expect(text.contains("var b: String? { __data[\"b\"] }"))
    }

    @Test("random schemas and operations: all valid, generation finishes with output proportional to the document", arguments: 0..<60)
    func randomSamples(seed: UInt64) throws {
        let sample = RandomGraphQL.sample(seed: seed)
        let start = ContinuousClock.now
        let files: [GeneratedFile]
        do {
            files = try PropertyCheck.generate(sample)
        } catch {
            Issue.record("seed \(seed): a valid sample was rejected:\n\(error)\n\(sample.schema)\n\(sample.operations)")
            return
        }
        let problem = PropertyCheck.problem(sample, files, duration: ContinuousClock.now - start)
        #expect(problem == nil, "seed \(seed)")
    }

    @Test("the committed samples (Fixtures/GeneratedSamples) are what their seeds give", arguments: 1...6)
    func committedSamples(seed: UInt64) throws {
        let folder = repositoryRoot.appendingPathComponent("Tools/Fixtures/GeneratedSamples/Samples/Seed\(seed)")
        let sample = RandomGraphQL.sample(seed: seed)
        #expect(try String(contentsOf: folder.appendingPathComponent("schema.graphqls"), encoding: .utf8) == sample.schema)
        #expect(try String(contentsOf: folder.appendingPathComponent("operations.graphql"), encoding: .utf8) == sample.operations)
        // And the initializer round trip's rebuilding code is what `codegen-properties round-trip` writes.
        let roundTrip = repositoryRoot.appendingPathComponent(
            "Tools/Fixtures/GeneratedSamples/Tests/GeneratedSamplesTests/RoundTrip/Sample\(seed).swift")
        #expect(
            try String(contentsOf: roundTrip, encoding: .utf8)
                == (try InitializerRoundTrip.source(schema: sample.schema, operations: sample.operations, module: "Sample\(seed)")),
            "regenerate with codegen-properties round-trip Tools/Fixtures/GeneratedSamples/Samples/Seed\(seed) Sample\(seed) \(roundTrip.path)")
    }
}
