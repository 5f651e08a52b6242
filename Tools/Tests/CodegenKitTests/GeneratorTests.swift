@_spi(Tools) import enum APICore.JSONParser
@_spi(Tools) import enum APICore.SHA256
import CodegenKit
import Foundation
import Testing

@Suite("Generation")
struct GeneratorTests {
    @Test("--check writes nothing and lists what would change; a run removes files no longer produced")
    func checkAndStale() throws {
        let project = try Project(files: [
            "schema.graphqls": smallSchema,
            "Hero.graphql": "query Hero { hero { name } }",
            "Droid.graphql": "query Droid { droid(id: 1) { primaryFunction } }",
        ])
        let check = try Codegen.run(configURL: project.configURL, check: true)
        #expect(check.changed.contains("Generated/Operations/Queries/HeroQuery.graphql.swift"))
        #expect(!project.exists("Generated/Operations/Queries/HeroQuery.graphql.swift"))

        _ = try Codegen.run(configURL: project.configURL)
        #expect(try Codegen.run(configURL: project.configURL, check: true).changed.isEmpty)

        try project.write("Hero.graphql", "query Hero { hero { id name } }")
        #expect(try Codegen.run(configURL: project.configURL, check: true).changed == ["Generated/Operations/Queries/HeroQuery.graphql.swift"])

        try FileManager.default.removeItem(at: project.url.appendingPathComponent("Droid.graphql"))
        try project.write("Generated/Notes.swift", "// mine, not generated\n")
        let report = try Codegen.run(configURL: project.configURL)
        #expect(report.removed == ["Generated/Operations/Queries/DroidQuery.graphql.swift"])
        #expect(project.exists("Generated/Notes.swift"))
    }

    @Test("a field selected both unconditionally and under @include: what only the conditional place selects stays conditional")
    func conditionalSubselections() throws {
        let project = try Project(files: [
            "schema.graphqls": """
                type Query { hero: Character }
                interface Character { id: ID! name: String! friends: [Character] }
                type Droid implements Character { id: ID! name: String! friends: [Character] primaryFunction: String }
                type Human implements Character { id: ID! name: String! friends: [Character] height: Float }
                """,
            "Q.graphql": """
                query Q($flag: Boolean!) {
                  hero { friends { name } friends @include(if: $flag) { id ... on Droid { primaryFunction } } }
                }
                """,
            "R.graphql": "query R($flag: Boolean!) { hero { friends @include(if: $flag) { name } } }",
        ])
        _ = try Codegen.run(configURL: project.configURL)
        let q = try project.read("Generated/Operations/Queries/QQuery.graphql.swift")
        // Before: `id` and the Droid case's `primaryFunction` were required whatever $flag said.
        let metadata = namedMetadata(q)
        #expect(metadata.contains(#"{"if":["flag"],"then":[["id","String!"]]}"#), "\(metadata)")
        #expect(metadata.contains(#"{"if":["flag"],"then":[["primaryFunction","String"]]}"#), "\(metadata)")
        #expect(metadata.contains(#"["name","String!"]"#), "\(metadata)")
        #expect(q.contains("var id: TestAPI.ID? {") || q.contains("var id: String? {"))
        // A field selected in one place only: its presence says the condition holds, so its
        // selections are as written.
        let r = try project.read("Generated/Operations/Queries/RQuery.graphql.swift")
        #expect(r.contains("var name: String {"))
    }

    @Test("a field whose nested type would have a spread fragment's name gets another, so the fragment stays in sight")
    func fragmentNamedLikeAField() throws {
        let project = try Project(files: [
            "schema.graphqls": """
                type Query { issue: Issue! }
                type Issue { title: String! author: User! }
                type User { login: String! }
                """,
            "Q.graphql": """
                fragment Author on User { login }
                query Q { issue { title author { ...Author } } }
                """,
        ])
        _ = try Codegen.run(configURL: project.configURL)
        let q = try project.read("Generated/Operations/Queries/QQuery.graphql.swift")
        // Before: `struct Author` inside `Issue`, whose `Fragments.author` then named itself.
        #expect(q.contains("var author: Author_ {"), "\(q)")
        #expect(q.contains("struct Author_: SelectionSet"), "\(q)")
        #expect(q.contains("var author: Author { __data._toFragment() }"), "\(q)")
        #expect(!q.contains("struct Author:"), "\(q)")
    }

    @Test("custom scalars are a String typealias written once and never overwritten")
    func customScalars() throws {
        let project = try Project(files: [
            "schema.graphqls": "\"An ISO 8601 instant\"\nscalar DateTime\ntype Query { now: DateTime! }",
            "Now.graphql": "query Now { now }",
        ])
        _ = try Codegen.run(configURL: project.configURL)
        let path = "Generated/CustomScalars/DateTime.scalar.swift"
        #expect(try project.read(path).contains("typealias DateTime = String"))
        #expect(try project.read("Generated/Operations/Queries/NowQuery.graphql.swift").contains("var now: TestAPI.DateTime { __data[\"now\"] }"))
        try project.write(path, "import APICore\nextension TestAPI { typealias DateTime = MyDate }\n")
        let report = try Codegen.run(configURL: project.configURL)
        #expect(!report.changed.contains(path))
        #expect(try project.read(path).contains("MyDate"))
    }

    @Test("extend type, @typePolicy key fields, Apollo's client directives, deprecations and descriptions")
    func schemaFeatures() throws {
        let project = try Project(files: [
            "schema.graphqls": """
                type Query { product(sku: String!): Product }
                "Something we sell"
                type Product @typePolicy(keyFields: "sku") {
                  sku: String!
                  "Old name"
                  title: String @deprecated(reason: "Use name")
                }
                enum Size { SMALL, EXTRA_LARGE, OLD_SIZE @deprecated(reason: "gone") }
                """,
            "extension.graphqls": "extend type Product { name: String!, size: Size }",
            "Product.graphql": """
                query Product($sku: String!) {
                  product(sku: $sku) { name size title }
                }
                """,
        ], config: """
            {
              "schemaNamespace": "Shop",
              "input": { "operationSearchPaths": ["*.graphql"], "schemaSearchPaths": ["*.graphqls"] },
              "output": {
                "schemaTypes": { "path": "Out", "moduleType": { "embeddedInTarget": { "name": "App", "accessModifier": "public" } } },
                "operations": { "absolute": { "path": "Ops", "accessModifier": "internal" } }
              },
              "options": { "deprecatedEnumCases": "exclude" }
            }
            """)
        _ = try Codegen.run(configURL: project.configURL)
        let namespace = try project.read("Out/Shop.graphql.swift")
        #expect(namespace.contains("public static let Product = ParentType.object(\"Product\", keyFields: [\"sku\"])"))
        let enumFile = try project.read("Out/Enums/Size.graphql.swift")
        #expect(enumFile.contains("case extraLarge = \"EXTRA_LARGE\""))
        #expect(!enumFile.contains("OLD_SIZE"))
        let operation = try project.read("Ops/Queries/ProductQuery.graphql.swift")
        #expect(operation.contains("struct ProductQuery: GraphQLQuery"))
        #expect(!operation.contains("public struct"))
        #expect(operation.contains("@available(*, deprecated, message: \"Use name\")"))
        #expect(operation.contains("/// Something we sell"))
        #expect(operation.contains("var size: GraphQLEnum<Shop.Size>? { __data[\"size\"] }"))
    }

    @Test("@typePolicy(connectionFields:) marks a field's page arguments, on the type or an extension of it")
    func connectionFields() throws {
        let project = try Project(files: [
            "schema.graphqls": """
                type Query { items(filter: String, page: PageInput): ItemConnection!, other(first: Int): ItemConnection! }
                input PageInput { first: Int, after: String }
                type ItemConnection { nodes: [Item!]!, pageInfo: PageInfo! }
                type PageInfo { endCursor: String, hasNextPage: Boolean! }
                type Item @typePolicy(keyFields: "id") { id: ID! }
                """,
            "extension.graphqls": "extend type Query @typePolicy(connectionFields: \"items\")",
            "Items.graphql": """
                query Items($page: PageInput) {
                  items(filter: "x", page: $page) { nodes { id } pageInfo { endCursor hasNextPage } }
                  other(first: 2) { nodes { id } }
                }
                """,
        ])
        _ = try Codegen.run(configURL: project.configURL)
        let operation = try project.read("Generated/Operations/Queries/ItemsQuery.graphql.swift")
        let metadata = namedMetadata(operation)
        #expect(metadata.contains(#"["items","Items!",{"args":{"filter":"x","page":{"$":"page"}},"page":["page"]}]"#), "\(metadata)")
        #expect(metadata.contains(#"["other","Other!",{"args":{"first":2}}]"#), "not a connection field: no pages")
        // keyFields still read from the same directive.
        #expect(try project.read("Generated/TestAPI.graphql.swift").contains(#"ParentType.object("Item", keyFields: ["id"])"#))
    }

    @Test("introspection JSON in both shapes gives the same code as SDL")
    func introspectionShapes() throws {
        let schemaJSON = try String(
            contentsOf: repositoryRoot.appendingPathComponent("Fixtures/ThirdParty/apollo-ios-dev/Sources/StarWarsAPI/starwars-graphql/schema.json"),
            encoding: .utf8)
        let unwrapped = try #require(((try JSONSerialization.jsonObject(with: Data(schemaJSON.utf8)) as? [String: Any])?["data"]))
        let bare = String(decoding: try JSONSerialization.data(withJSONObject: unwrapped), as: UTF8.self)
        let operation = "query Hero($episode: Episode) { hero(episode: $episode) { name ... on Droid { primaryFunction } } }"
        let wrapped = try Project(files: ["schema.json": schemaJSON, "Hero.graphql": operation])
        let plain = try Project(files: ["schema.json": bare, "Hero.graphql": operation])
        let a = try Codegen.generate(try CodegenConfiguration.load(from: wrapped.configURL))
        let b = try Codegen.generate(try CodegenConfiguration.load(from: plain.configURL))
        #expect(a == b)
        #expect(a.contains { $0.path == "Generated/Operations/Queries/HeroQuery.graphql.swift" })
    }
}

extension GeneratorTests {
    @Test("variable defaults are written as the operation's __variableDefaults, nesting and all; none without defaults")
    func variableDefaults() throws {
        let project = try Project(files: [
            "schema.graphqls": """
                type Query { hero(episode: Episode, filter: Filter): Hero }
                type Hero { name: String }
                enum Episode { NEWHOPE EMPIRE JEDI }
                input Filter { names: [String!], limit: Int, ratio: Float, exact: Boolean }
                """,
            "Q.graphql": """
                query Q($episode: Episode = JEDI, $filter: Filter = {names: ["a", "b"], limit: 3, ratio: 0.5, exact: null}) {
                  hero(episode: $episode, filter: $filter) { name }
                }
                """,
            "R.graphql": "query R($episode: Episode) { hero(episode: $episode) { name } }",
        ])
        _ = try Codegen.run(configURL: project.configURL)
        let q = try project.read("Generated/Operations/Queries/QQuery.graphql.swift")
        #expect(q.contains(
            #"static var __variableDefaults: JSONObject { ["episode": "JEDI", "filter": ["names": ["a", "b"], "limit": 3, "ratio": 0.5, "exact": nil]] }"#),
            "\(q)")
        let r = try project.read("Generated/Operations/Queries/RQuery.graphql.swift")
        #expect(!r.contains("__variableDefaults"))
    }

    @Test("Apollo's UploadAPI: the Upload scalar is GraphQLFile, with no typealias to write")
    func uploads() throws {
        let upload = repositoryRoot.appendingPathComponent("Fixtures/ThirdParty/apollo-ios-dev/Sources/UploadAPI/graphql").standardizedFileURL.path
        let project = try Project(files: [:], config: """
            {
              "schemaNamespace": "UploadAPI",
              "input": { "operationSearchPaths": ["\(upload)/*.graphql"], "schemaSearchPaths": ["\(upload)/schema.graphqls"] },
              "output": { "schemaTypes": { "path": "Out", "moduleType": { "other": {} } }, "operations": { "inSchemaModule": {} } }
            }
            """)
        let files = try Codegen.generate(try CodegenConfiguration.load(from: project.configURL))
        #expect(!files.contains { $0.path.contains("CustomScalars/Upload") })
        let multiple = try #require(files.first { $0.path.hasSuffix("UploadMultipleFilesToTheSameParameterMutation.graphql.swift") })
        #expect(multiple.contents.contains("public var files: [GraphQLFile]"))
    }
}

extension GeneratorTests {
    @Test("an operation manifest maps each operation's SHA-256 to its document, and operations carry the id")
    func manifest() throws {
        let project = try Project(files: [
            "schema.graphqls": smallSchema,
            "Hero.graphql": "query Hero { hero { name ...Details } }\nfragment Details on Character { id }",
        ], config: """
            {
              "schemaNamespace": "TestAPI",
              "input": { "operationSearchPaths": ["*.graphql"], "schemaSearchPaths": ["*.graphqls"] },
              "output": { "schemaTypes": { "path": "Out", "moduleType": { "other": {} } }, "operations": { "inSchemaModule": {} } },
              "operationManifest": { "path": "manifest.json", "version": "persistedQueries" }
            }
            """)
        _ = try Codegen.run(configURL: project.configURL)
        let manifest = try JSONParser.parse(try project.read("manifest.json"))
        let entry = try #require(manifest["operations"]?.arrayValue?.first)
        let body = try #require(entry["body"]?.stringValue)
        #expect(body == "query Hero { hero { __typename name ...Details } } fragment Details on Character { __typename id }")
        #expect(entry["id"] == .string(SHA256.hexDigest(body)))
        #expect(manifest["format"] == "apollo-persisted-query-manifest")
        #expect(try project.read("Out/Operations/Queries/HeroQuery.graphql.swift").contains("static var operationIdentifier: String? { \"\(SHA256.hexDigest(body))\" }"))
    }

    @Test("apicore.operationIdentifiers: the safelist's own ids in the manifest and the operations; a name that is no operation is an error")
    func customIdentifiers() throws {
        func project(_ identifiers: String) throws -> Project {
            try Project(files: [
                "schema.graphqls": smallSchema,
                "Hero.graphql": "query Hero { hero { name } }\nquery HeroID { hero { id } }",
            ], config: """
                {
                  "schemaNamespace": "TestAPI",
                  "input": { "operationSearchPaths": ["*.graphql"], "schemaSearchPaths": ["*.graphqls"] },
                  "output": { "schemaTypes": { "path": "Out", "moduleType": { "other": {} } }, "operations": { "inSchemaModule": {} } },
                  "operationManifest": { "path": "manifest.json" },
                  "apicore": { "operationIdentifiers": \(identifiers) }
                }
                """)
        }
        let named = try project(#"{ "Hero": "hero-v3" }"#)
        _ = try Codegen.run(configURL: named.configURL)
        let operations = try #require(try JSONParser.parse(try named.read("manifest.json"))["operations"]?.arrayValue)
        let ids = Dictionary(uniqueKeysWithValues: operations.map { ($0["name"]?.stringValue ?? "", $0["id"]?.stringValue ?? "") })
        #expect(ids["Hero"] == "hero-v3")
        #expect(ids["HeroID"] == SHA256.hexDigest("query HeroID { hero { __typename id } }"))
        #expect(try named.read("Out/Operations/Queries/HeroQuery.graphql.swift").contains(#"static var operationIdentifier: String? { "hero-v3" }"#))

        let typo = try project(#"{ "Heroes": "heroes-v1" }"#)
        let failure = #expect(throws: CodegenFailure.self) { try Codegen.run(configURL: typo.configURL) }
        #expect(failure?.description.contains("apicore.operationIdentifiers names 'Heroes', which is not an operation") == true)
        let empty = try project(#"{ "Hero": "" }"#)
        #expect(throws: (any Error).self) { try Codegen.run(configURL: empty.configURL) }
    }
}

extension GeneratorTests {
    @Test("client directives: a local cache mutation has setters and no document; none reaches a server or the manifest")
    func clientDirectives() throws {
        let project = try Project(files: [
            "schema.graphqls": "type Query { product(sku: String!): Product }\ntype Product { sku: String!, name: String, size: Int }",
            "Local.graphql": """
                query ProductName($sku: String!) @apollo_client_ios_localCacheMutation { product(sku: $sku) { name ...Size } }
                fragment Size on Product @apollo_client_ios_localCacheMutation { size }
                """,
            "Product.graphql": """
                query Product($sku: String!) @import(module: "Foundation") { product(sku: $sku) { name @nonnull sku ...Size } }
                """,
        ], config: """
            {
              "schemaNamespace": "Shop",
              "input": { "operationSearchPaths": ["*.graphql"], "schemaSearchPaths": ["*.graphqls"] },
              "output": { "schemaTypes": { "path": "Out", "moduleType": { "other": {} } }, "operations": { "inSchemaModule": {} } },
              "operationManifest": { "path": "manifest.json", "version": "persistedQueries" }
            }
            """)
        _ = try Codegen.run(configURL: project.configURL)
        let local = try project.read("Out/Operations/Queries/ProductNameLocalCacheMutation.graphql.swift")
        #expect(local.contains("public struct ProductNameLocalCacheMutation: LocalCacheMutation {"))
        #expect(local.contains("public static var operationType: GraphQLOperationType { .query }"))
        #expect(!local.contains("document"))
        #expect(local.contains("public struct Data: MutableRootSelectionSet {"))
        #expect(local.contains("public struct Product: MutableSelectionSet {"))
        #expect(local.contains("@_spi(Generated) public var __data: DataDict"))
        #expect(local.contains("public var name: String? {\n                get { __data[\"name\"] }\n                set { __data[\"name\"] = newValue }\n"))
        let fragment = try project.read("Out/Operations/Fragments/Size.graphql.swift")
        #expect(fragment.contains("public struct Size: Fragment, MutableSelectionSet {"))
        #expect(fragment.contains("static var fragmentDefinition: String { \"fragment Size on Product { __typename size }\" }"))

        let query = try project.read("Out/Operations/Queries/ProductQuery.graphql.swift")
        #expect(query.contains("@_spi(Generated) import APICore\nimport Foundation\n"))
        #expect(query.contains("public var name: String { __data[\"name\"] }"))
        #expect(namedMetadata(query).contains(#"["name","String!"]"#), "\(namedMetadata(query))")
        let document = "query Product($sku: String!) { product(sku: $sku) { __typename name sku ...Size } } fragment Size on Product { __typename size }"
        #expect(query.contains("static var document: String { \"\(document)\" }"))
        let manifest = try JSONParser.parse(try project.read("manifest.json"))
        #expect(manifest["operations"]?.arrayValue?.compactMap { $0["body"]?.stringValue } == [document])
    }
}

extension GeneratorTests {
    @Test("test mocks: a mock per object type the selections meet, protocols for interfaces and unions, a target in the package")
    func testMocks() throws {
        let project = try Project(files: [
            "schema.graphqls": """
                type Query { node(id: ID!): Node, search: [Result!]! }
                interface Node { id: ID! }
                type A implements Node { id: ID!, a: Int, next: A, unused: String }
                type B implements Node { id: ID!, b: [[Size!]] }
                type C { c: Int }
                union Result = A | B
                enum Size { SMALL, LARGE }
                """,
            "Q.graphql": "query Q { node(id: \"1\") { id ... on A { a next { id } } } search { ... on B { b } } }",
        ], config: """
            {
              "schemaNamespace": "Shop",
              "input": { "operationSearchPaths": ["*.graphql"], "schemaSearchPaths": ["*.graphqls"] },
              "output": {
                "schemaTypes": { "path": "Out", "moduleType": { "swiftPackageManager": {} } },
                "operations": { "inSchemaModule": {} },
                "testMocks": { "swiftPackage": {} }
              }
            }
            """)
        let files = try Codegen.generate(try CodegenConfiguration.load(from: project.configURL))
        let mocks = files.filter { $0.path.hasPrefix("Out/TestMocks/") }.map(\.path)
        #expect(mocks == ["Out/TestMocks/A+Mock.graphql.swift", "Out/TestMocks/B+Mock.graphql.swift", "Out/TestMocks/Mock.graphql.swift",
                          "Out/TestMocks/Query+Mock.graphql.swift"])
        let text = { (path: String) in files.first { $0.path == path }?.contents ?? "" }
        #expect(text("Out/TestMocks/Mock.graphql.swift").contains("public protocol Node: MockObject {}"))
        #expect(text("Out/TestMocks/Mock.graphql.swift").contains("public protocol Result: MockObject {}"))
        let a = text("Out/TestMocks/A+Mock.graphql.swift")
        #expect(a.contains("import Shop\n"))
        #expect(a.contains("public struct A: MockObject, Mock.Node, Mock.Result {"))
        #expect(a.contains("public var id: String?\n"))
        #expect(a.contains("@MockIndirect public var next: Mock.A?\n"))
        #expect(!a.contains("unused"))
        #expect(a.contains("if let value = self.next { fields[\"next\"] = MockValue.object(value) }"))
        let b = text("Out/TestMocks/B+Mock.graphql.swift")
        #expect(b.contains("public var id: String?\n"))  // selected on the interface B implements
        #expect(b.contains("public var b: [[GraphQLEnum<Shop.Size>]?]?\n"))
        let query = text("Out/TestMocks/Query+Mock.graphql.swift")
        #expect(query.contains("@MockIndirect public var node: (any Mock.Node)?\n"))
        #expect(query.contains("fields[\"search\"] = MockValue.list(value.map { MockValue.object($0) })"))
        let manifest = text("Out/Package.swift")
        #expect(manifest.contains(".library(name: \"ShopTestMocks\", targets: [\"ShopTestMocks\"]),"))
        #expect(manifest.contains("name: \"ShopTestMocks\", dependencies: [\"Shop\", .product(name: \"APICoreTesting\", package: \"APICoreKit\")], path: \"TestMocks\"),"))
    }
}

@Suite("Globs")
struct GlobTests {
    @Test("*, **, ? and ! exclusions", arguments: [
        (["**/*.graphql"], "a/b/c.graphql", true),
        (["**/*.graphql"], "c.graphql", true),
        (["*.graphql"], "a/c.graphql", false),
        (["a/?.graphql"], "a/b.graphql", true),
        (["a/?.graphql"], "a/bb.graphql", false),
        (["**/*.graphql", "!**/Old/*.graphql"], "x/Old/y.graphql", false),
        (["**/*.graphql", "!**/Old/*.graphql"], "x/New/y.graphql", true),
        (["../common/**/*.graphqls"], "../common/schemas/schema.graphqls", true),
    ])
    func match(patterns: [String], path: String, expected: Bool) {
        #expect(Glob(patterns).matches(path) == expected)
    }
}
