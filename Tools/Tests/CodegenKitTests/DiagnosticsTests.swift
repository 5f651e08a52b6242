import CodegenKit
import Foundation
import Testing

let smallSchema = """
    type Query {
      hero: Character
      droid(id: ID!): Droid
    }
    interface Character { id: ID! name: String! }
    type Droid implements Character { id: ID! name: String! primaryFunction: String }
    """

@Suite("Errors carry file:line:column, all of them")
struct DiagnosticsTests {
    @Test("several operation errors in several files are all reported with positions")
    func operationErrors() throws {
        let project = try Project(files: [
            "schema.graphqls": smallSchema,
            "A.graphql": "query A {\n  hero {\n    nope\n  }\n}\n",
            "B.graphql": "query B($x: Nope) {\n  droid(id: $x) { name }\n}\n",
            "C.graphql": "fragment F1 on Droid { ...F2 }\nfragment F2 on Droid { ...F1 }\nquery C { droid(id: 1) { ...F1 } }\n",
        ])
        let diagnostics = project.failure()
        let text = diagnostics.map(\.description)
        #expect(text.contains { $0.hasPrefix("A.graphql:3:5: error: ") && $0.contains("Cannot query field \"nope\" on type \"Character\"") })
        #expect(text.contains { $0.hasPrefix("B.graphql:1:13: error: ") && $0.contains("Unknown type \"Nope\"") })
        #expect(text.contains { $0.hasPrefix("C.graphql:1:24: error: ") && $0.contains("Cannot spread fragment \"F1\" within itself via \"F2\"") })
        #expect(diagnostics.count >= 3)
    }

    @Test("@defer: labels unique per operation (through fragments) and literal; none at a subscription's root")
    func deferRules() throws {
        let project = try Project(files: [
            "schema.graphqls": smallSchema + "\ntype Subscription { hero: Character }\n",
            "A.graphql": """
                fragment Names on Character { ... @defer(label: "a") { name } }
                query A { hero { ... @defer(label: "a") { id } ...Names } }
                query B($l: String) { hero { ... @defer(label: $l) { id } } }
                subscription C { ... @defer { hero { id } } }
                """,
        ])
        let text = project.failure().map(\.description)
        #expect(text.contains { $0.hasPrefix("A.graphql:1:35: error: @defer label \"a\" is used more than once in one operation (first at A.graphql:2:22)") })
        #expect(text.contains { $0.hasPrefix("A.graphql:3:34: error: @defer's label must be a string literal") })
        #expect(text.contains { $0.hasPrefix("A.graphql:4:22: error: @defer is not allowed on the root selection set of a subscription") })
        #expect(text.count == 3, "\(text)")
    }

    @Test("@stream: list fields only, initialCount not negative, labels shared with @defer, none at a subscription's root")
    func streamRules() throws {
        let project = try Project(files: [
            "schema.graphqls": smallSchema + "\nextend type Query { heroes: [Character!]! }\ntype Subscription { heroes: [Character] }\n",
            "A.graphql": """
                query A { heroes @stream(label: "s") { id ... @defer(label: "s") { name } } }
                query B { hero @stream { id } }
                query C { heroes @stream(initialCount: -1) { id } }
                subscription D { heroes @stream { id } }
                query E { heroes @stream(initialCount: 2) { id } }
                """,
        ])
        let text = project.failure().map(\.description)
        #expect(text.contains { $0.hasPrefix("A.graphql:1:47: error: @defer label \"s\" is used more than once in one operation (first at A.graphql:1:18)") })
        #expect(text.contains { $0.hasPrefix("A.graphql:2:16: error: @stream is only for list fields, and 'hero' is of type Character, which is not a list") })
        #expect(text.contains { $0.hasPrefix("A.graphql:3:18: error: @stream's initialCount on 'heroes' must not be negative (it is -1)") })
        #expect(text.contains { $0.hasPrefix("A.graphql:4:25: error: @stream is not allowed on 'heroes', a root field of a subscription") })
        #expect(text.count == 4, "\(text)")
    }

    @Test("a type defined twice names both places")
    func duplicateType() throws {
        let project = try Project(files: [
            "schema.graphqls": smallSchema,
            "more.graphqls": "\ntype Droid { id: ID! }\n",
            "Q.graphql": "query Q { hero { name } }",
        ])
        let diagnostics = project.failure()
        #expect(diagnostics.map(\.description) == [
            #"more.graphqls:2:6: error: There can be only one type named "Droid". (also at schema.graphqls:6:6)"#,
            #"more.graphqls:2:14: error: Field "Droid.id" can only be defined once. (also at schema.graphqls:6:35)"#,
        ])
    }

    @Test("a fragment or an operation defined twice names both places; equal copies never crash")
    func duplicateDefinitions() throws {
        // Before: GraphQLSwift's validator keys a dictionary by definitions that hash by identity
        // and compare by content, so equal copies trapped ("Duplicate keys of type
        // 'HasSelectionSet'"), depending on the process's hash seed. Found by the codegen fuzzer.
        let fragment = "fragment Name on Character { name }\n"
        var files = ["schema.graphqls": smallSchema, "Q.graphql": "query Q { hero { ...Name } }\n" + fragment]
        for copy in 1...12 { files["Copy\(copy).graphql"] = fragment + "query Q { hero { ...Name } }\n{ hero { id } }\n" }
        let diagnostics = try Project(files: files).failure().map(\.description)
        #expect(diagnostics.contains("Copy10.graphql:1:1: error: fragment 'Name' is defined more than once (first at Copy1.graphql:1:1)"))
        #expect(diagnostics.contains("Q.graphql:1:1: error: operation 'Q' is defined more than once (first at Copy1.graphql:2:1)"))
        #expect(diagnostics.filter { $0.contains("needs a name") }.count == 12)
    }

    @Test("an unknown type in the schema, and a syntax error, are reported together")
    func schemaErrors() throws {
        let project = try Project(files: [
            "schema.graphqls": "type Query {\n  a: Missing\n}\n",
            "broken.graphqls": "type {",
            "Q.graphql": "query Q { a }",
        ])
        let text = project.failure().map(\.description)
        #expect(text.count == 2)
        #expect(text.contains { $0.hasPrefix("broken.graphqls:1:6: error: Syntax Error") })
        #expect(text.contains(#"schema.graphqls:2:6: error: Unknown type "Missing"."#))
    }

    @Test("an unreadable config is a clear error")
    func badConfig() throws {
        let project = try Project(files: [:], config: "{\n  \"schemaNamespace\": \"A\",\n  not json")
        #expect(project.failure().map(\.description) == [
            "apollo-codegen-config.json:3:3: error: not valid JSON: expected a string key, found 'n'"
        ])
        let missing = project.url.appendingPathComponent("nope.json")
        #expect(throws: CodegenFailure.self) { try Codegen.run(configURL: missing) }
    }

    @Test("files are named relative to the working directory when they are inside it, else in full")
    func pathsFromWorkingDirectory() throws {
        let inside = FileManager.default.currentDirectoryPath + "/.build/codegen-paths-\(UUID().uuidString)"
        let project = try Project(files: ["schema.graphqls": smallSchema, "ops/Q.graphql": "query Q { nope }"], at: URL(fileURLWithPath: inside))
        do {
            _ = try Codegen.run(configURL: project.configURL)
            Issue.record("an unknown field was accepted")
        } catch {
            let file = try #require(error.diagnostics.first?.file)
            #expect(!file.hasPrefix("/"))
            #expect(file.hasSuffix("/ops/Q.graphql"))
            #expect(FileManager.default.fileExists(atPath: file))
        }
        let outside = try Project(files: ["schema.graphqls": smallSchema, "Q.graphql": "query Q { nope }"])
        do {
            _ = try Codegen.run(configURL: outside.configURL)
        } catch {
            #expect(error.diagnostics.first?.file == outside.url.standardizedFileURL.path + "/Q.graphql")
        }
    }

    @Test("search paths that match nothing are warnings that name them")
    func emptyOperations() throws {
        let config = """
            {
              "schemaNamespace": "TestAPI",
              "input": { "operationSearchPaths": ["Ops/**/*.graphql", "Other/*.graphql"], "schemaSearchPaths": ["*.graphqls"] },
              "output": {
                "schemaTypes": { "path": "Generated", "moduleType": { "swiftPackageManager": {} } },
                "operations": { "inSchemaModule": {} }
              }
            }
            """
        let project = try Project(files: ["schema.graphqls": smallSchema], config: config)
        #expect(try Codegen.run(configURL: project.configURL).warnings == [
            #"no operations: operationSearchPaths ["Ops/**/*.graphql", "Other/*.graphql"] matched no file; only schema types were generated"#
        ])
        try project.write("Ops/Q.graphql", "query Q { hero { name } }")
        #expect(try Codegen.run(configURL: project.configURL).warnings == ["operationSearchPaths 'Other/*.graphql' matched no file"])
        // The package it writes declares APICore's platforms, without which it would not resolve.
        #expect(try project.read("Generated/Package.swift").contains("platforms: [.macOS(.v14), .iOS(.v17)],"))
    }

    @Test("an unnamed operation cannot be generated")
    func anonymous() throws {
        let project = try Project(files: ["schema.graphqls": smallSchema, "Q.graphql": "{ hero { name } }"])
        #expect(project.failure().map(\.description) == ["Q.graphql:1:1: error: an operation needs a name to be generated"])
    }
}
