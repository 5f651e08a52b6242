import CodegenKit
import Foundation
import Testing

@Suite("Schema directives and customization")
struct SchemaDirectiveTests {
    @Test("key fields that @typePolicy declares are added where a selection lacks them, per possible type on an interface, without accessors")
    func keyFieldsAdded() throws {
        let schema = """
            type Query { comments: [Comment!]! viewer: User! }
            type Comment { author: Actor }
            interface Actor { login: String! }
            type User implements Actor @typePolicy(keyFields: "id") { id: ID! login: String! }
            type Bot implements Actor { login: String! }
            """
        let files = try generate(schema: schema, operations: """
            query Comments { comments { author { login } } viewer { login } }
            fragment ViewerLogin on User { login }
            query Viewer { viewer { ...ViewerLogin id } }
            """)
        let comments = try #require(files.first { $0.path.hasSuffix("CommentsQuery.graphql.swift") }).contents
        #expect(comments.contains(#"static var document: String { "query Comments { comments { __typename author { __typename login ... on User { id } } } viewer { __typename login id } }" }"#))
        #expect(!comments.contains("public var id") && !comments.contains("var id:"), "the app did not ask for id: no accessor")
        let viewer = try #require(files.first { $0.path.hasSuffix("ViewerQuery.graphql.swift") }).contents
        // Selected already: not added again; the fragment gets its own.
        #expect(viewer.contains(#"query Viewer { viewer { __typename ...ViewerLogin id } } fragment ViewerLogin on User { __typename login id }"#))
    }

    @Test("schemaCustomization.customTypeNames renames types, enum cases and input fields in Swift only; a name that is not an identifier is refused")
    func customTypeNames() throws {
        let configuration = try CodegenConfiguration.parse(
            Data("""
                {
                  "schemaNamespace": "TestAPI",
                  "input": { "operationSearchPaths": ["*.graphql"], "schemaSearchPaths": ["*.graphqls"] },
                  "output": { "schemaTypes": { "path": "Generated", "moduleType": { "embeddedInTarget": { "name": "App" } } }, "operations": { "inSchemaModule": {} } },
                  "options": { "schemaCustomization": { "customTypeNames": {
                    "Item": "Thing",
                    "Kind": { "enum": { "name": "ItemKind", "cases": { "A_ONE": "alpha" } } },
                    "Filter": { "inputObject": { "name": "ItemFilter", "fields": { "kind": "itemKind" } } },
                    "Date": "Day"
                  } } }
                }
                """.utf8),
            file: "apollo-codegen-config.json", baseURL: URL(fileURLWithPath: "/nonexistent"))
        #expect(configuration.unknownKeys.isEmpty)
        let files = try Codegen.generate(
            schemaFiles: [("schema.graphqls", """
                scalar Date
                type Query { item(filter: Filter): Item }
                type Item { kind: Kind when: Date }
                enum Kind { A_ONE B_TWO }
                input Filter { kind: Kind }
                """)],
            operationFiles: [("operations.graphql", "query Q($filter: Filter) { item(filter: $filter) { kind when } }")], configuration: configuration)
        let text = { (suffix: String) in files.first { $0.path.hasSuffix(suffix) }?.contents ?? "" }
        #expect(text("Enums/ItemKind.graphql.swift").contains("enum ItemKind: String, EnumType"))
        #expect(text("Enums/ItemKind.graphql.swift").contains(#"case alpha = "A_ONE""#) && text("Enums/ItemKind.graphql.swift").contains(#"case bTwo = "B_TWO""#))
        let filter = text("InputObjects/ItemFilter.graphql.swift")
        #expect(filter.contains("struct ItemFilter: InputObject") && filter.contains("var itemKind: GraphQLNullable<GraphQLEnum<TestAPI.ItemKind>>"))
        #expect(filter.contains(#"InputDict(["kind": itemKind])"#))
        #expect(text("CustomScalars/Day.scalar.swift").contains("typealias Day = String"))
        let query = text("QQuery.graphql.swift")
        #expect(query.contains("var filter: GraphQLNullable<TestAPI.ItemFilter>") && query.contains("TestAPI.Objects.Thing"))
        #expect(query.contains(#"item(filter: $filter)"#), "the document keeps the schema's names")
        #expect(text("TestAPI.graphql.swift").contains(#"static let Thing = ParentType.object("Item")"#))

        let bad = """
            {
              "schemaNamespace": "TestAPI",
              "output": { "schemaTypes": { "path": "Generated", "moduleType": { "embeddedInTarget": { "name": "App" } } }, "operations": { "inSchemaModule": {} } },
              "options": { "schemaCustomization": { "customTypeNames": { "Kind": { "enum": { "name": "Kind", "cases": { "A": "not a name" } } } } } }
            }
            """
        do {
            _ = try CodegenConfiguration.parse(Data(bad.utf8), file: "c.json", baseURL: URL(fileURLWithPath: "/nonexistent"))
            Issue.record("a case name that is not an identifier was accepted")
        } catch {
            #expect(error.message == "'options.schemaCustomization.customTypeNames.Kind.enum.cases.A' must be a Swift identifier, not 'not a name'")
        }
    }

    @Test("@semanticNonNull(levels:) makes the accessor and the metadata non-null at those levels only")
    func semanticNonNull() throws {
        let files = try generate(
            schema: """
                type Query { user: User }
                type User {
                  name: String @semanticNonNull
                  tags: [String] @semanticNonNull(levels: [0, 1])
                  friends: [User] @semanticNonNull(levels: [1])
                  nick: String
                }
                """,
            operations: "query U { user { name tags friends { nick } nick } }")
        let query = try #require(files.first { $0.path.hasSuffix("UQuery.graphql.swift") }).contents
        #expect(query.contains("var name: String {") && query.contains("var tags: [String] {"))
        #expect(query.contains("var friends: [Friend]? {") && query.contains("var nick: String? {"))
        let metadata = namedMetadata(query)
        #expect(metadata.contains(#"["name","String!"]"#), "\(metadata)")
        #expect(metadata.contains(#"["tags","[String!]!"]"#), "\(metadata)")
        #expect(metadata.contains(#"["friends","[User.Friend!]"]"#), "\(metadata)")
        #expect(query.contains(#"query U { user { __typename name tags friends { __typename nick } nick } }"#), "the document is unchanged")
    }

    @Test("@catch: RESULT wraps the accessor in a Result, NULL makes it optional, THROW keeps @semanticNonNull; the schema's @catchByDefault and an operation's @catch are defaults; none is sent")
    func catchDirective() throws {
        let schema = """
            extend schema @catchByDefault(to: NULL)
            type Query { user: User }
            type User {
              name: String @semanticNonNull
              age: Int!
              nick: String
            }
            """
        let files = try generate(
            schema: schema,
            operations: """
                query A { user { name @catch age @catch(to: NULL) nick } }
                query B @catch(to: THROW) { user { name nick @catch(to: RESULT) } }
                """)
        let a = try #require(files.first { $0.path.hasSuffix("AQuery.graphql.swift") }).contents
        #expect(a.contains("var name: Result<String, GraphQLError> {") && a.contains("var age: Int? {") && a.contains("var nick: String? {"))
        let metadata = namedMetadata(a)
        #expect(metadata.contains(#"["name","String!",{"catch":"result"}]"#), "\(metadata)")
        #expect(metadata.contains(#"["age","Int",{"catch":"null"}]"#), "\(metadata)")
        #expect(metadata.contains(#"[["user","User",{"catch":"null"}]]"#), "the schema's default")
        #expect(a.contains(#"query A { user { __typename name age nick } }"#))
        let b = try #require(files.first { $0.path.hasSuffix("BQuery.graphql.swift") }).contents
        #expect(b.contains("var name: String {") && b.contains("var nick: Result<String?, GraphQLError> {"))
        #expect(namedMetadata(b).contains(#"[["user","User"]]"#), "the operation's THROW: no catch")
        #expect(b.contains(#"query B { user { __typename name nick } }"#))
        #expect(!files.contains { $0.path.contains("CatchTo") }, "the directive's enum is not the app's")
    }

    @Test("@catch(levels:) other than [0] is refused with its place")
    func catchLevels() {
        do {
            _ = try generate(schema: "type Query { tags: [String] }", operations: "query T {\n  tags @catch(levels: [1])\n}")
            Issue.record("levels: [1] was accepted")
        } catch {
            #expect("\(error)".contains("@catch(levels:) supports only [0]") && "\(error)".contains(":2:"), "\(error)")
        }
    }
}
