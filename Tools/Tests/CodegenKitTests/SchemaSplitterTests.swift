import CodegenKit
import Foundation
import Testing

@Suite("split-schema")
struct SchemaSplitterTests {
    let schema = """
        directive @domain(name: String!) on OBJECT | INTERFACE | UNION | ENUM | INPUT_OBJECT | SCALAR | FIELD_DEFINITION
        scalar DateTime
        interface Node { id: ID! }
        type User implements Node @domain(name: "user") { id: ID! name: String! joined: DateTime! }
        type Household implements Node @domain(name: "household") { id: ID! name: String! created: DateTime! members: [Member!]! }
        type Member { id: ID! role: Role! }
        enum Role { OWNER ADULT }
        type Query { me: User  households: [Household!]!  node(id: ID!): Node }
        type Mutation { leave(id: ID!): ID! @domain(name: "household") }
        """

    @Test("types go to their domain or to shared; root fields follow their types; headers name shared dependencies")
    func split() throws {
        let result = try SchemaSplitter().split(schema)
        let slices = Dictionary(uniqueKeysWithValues: result.slices.map { ($0.domain, $0) })
        #expect(result.slices.map(\.path) == [
            "SharedKit/GraphQL/Schema/shared-schema.graphqls", "HouseholdKit/GraphQL/Schema/household-schema.graphqls",
            "UserKit/GraphQL/Schema/user-schema.graphqls",
        ])
        let household = try #require(slices["household"])
        #expect(household.contents.contains("type Member { id: ID! role: Role! }"))
        #expect(household.contents.contains("enum Role { OWNER ADULT }"))
        #expect(household.contents.contains("extend type Query {\n  households: [Household!]!\n}"))
        #expect(household.contents.contains("extend type Mutation {\n  leave(id: ID!): ID!\n}"))
        #expect(!household.contents.contains("@domain"))
        #expect(household.sharedDependencies == ["DateTime", "Node"])
        #expect(household.contents.contains("# Depends on shared types: DateTime, Node."))
        #expect(slices["user"]?.sharedDependencies == ["DateTime", "Node"])
        let shared = try #require(slices["shared"])
        #expect(shared.contents.contains("scalar DateTime"))
        #expect(shared.contents.contains("type Query {\n  node(id: ID!): Node\n}"))
        #expect(shared.contents.contains("type Mutation\n"))
    }

    @Test("splitting twice gives identical slices")
    func deterministic() throws {
        #expect(try SchemaSplitter().split(schema).slices == (try SchemaSplitter().split(schema).slices))
    }

    @Test("a type owned by one domain and used by another is an error naming both places")
    func conflict() throws {
        let conflicting = schema.replacingOccurrences(of: "type Member { id: ID! role: Role! }", with: "type Member { id: ID! role: Role! user: User! }")
        do {
            _ = try SchemaSplitter().split(conflicting)
            Issue.record("expected a conflict")
        } catch {
            let text = error.diagnostics.map(\.description)
            #expect(text.count == 1)
            #expect(text.first?.hasPrefix("schema.graphqls:6:41: error: household type 'Member' references user type 'User' (defined at schema.graphqls:4:6)") == true)
        }
    }

    @Test("with --move-to-shared the type moves to the shared slice, and what it needs with it")
    func moveToShared() throws {
        let conflicting = schema.replacingOccurrences(of: "type Member { id: ID! role: Role! }", with: "type Member { id: ID! role: Role! user: User! }")
        let result = try SchemaSplitter(moveConflictsToShared: true).split(conflicting)
        #expect(result.moved == ["User"])
        let shared = try #require(result.slices.first { $0.domain == "shared" })
        #expect(shared.contents.contains("type User implements Node"))
        #expect(result.slices.first { $0.domain == "user" }?.contents.contains("type User") == false)
    }

    @Test("without @domain, a prefix mapping decides")
    func prefixes() throws {
        let plain = """
            type UserProfile { id: ID! }
            type ProductItem { id: ID! owner: Owner }
            type Owner { id: ID! }
            type Query { profile: UserProfile items: [ProductItem!]! }
            """
        let configuration = SchemaSplitter.Configuration(kits: ["product": "CatalogKit"], prefixes: ["User": "user", "Product": "product"])
        let result = try SchemaSplitter(configuration: configuration).split(plain)
        let paths = result.slices.map(\.path)
        #expect(paths.contains("CatalogKit/GraphQL/Schema/product-schema.graphqls"))
        #expect(result.slices.first { $0.domain == "product" }?.contents.contains("type Owner") == true)
    }

    @Test("extensions go with their type, directive definitions to shared, root @typePolicy connection fields to each field's slice")
    func extensionsAndDirectives() throws {
        let extended = schema + """

            directive @cost(weight: Int!) on FIELD_DEFINITION
            directive @typePolicy(keyFields: String! = "", connectionFields: String! = "") on OBJECT | INTERFACE
            extend type Household { pantry: [Shelf!]! @cost(weight: 2) }
            type Shelf { id: ID! }
            extend enum Role { CHILD }
            extend type Query @typePolicy(connectionFields: "households node") { users(first: Int): [User!]! }
            """
        let result = try SchemaSplitter().split(extended)
        let slices = Dictionary(uniqueKeysWithValues: result.slices.map { ($0.domain, $0.contents) })
        let household = try #require(slices["household"])
        // The extension follows its type, and what it alone uses (Shelf) comes along.
        #expect(household.contains("extend type Household { pantry: [Shelf!]! @cost(weight: 2) }"))
        #expect(household.contains("type Shelf { id: ID! }"))
        #expect(household.contains("extend enum Role { CHILD }"))
        #expect(household.contains("extend type Query @typePolicy(connectionFields: \"households\") {\n  households: [Household!]!\n}"))
        let shared = try #require(slices["shared"])
        #expect(shared.contains("directive @cost(weight: Int!) on FIELD_DEFINITION"))
        #expect(shared.contains("directive @typePolicy("))
        #expect(!shared.contains("directive @domain"))
        #expect(shared.contains("type Query @typePolicy(connectionFields: \"node\") {\n  node(id: ID!): Node\n}"))
        // Root fields of an extension are root fields like the others.
        #expect(slices["user"]?.contains("extend type Query {\n  me: User\n  users(first: Int): [User!]!\n}") == true)

        // A domain type used by another domain's extension is a conflict, as in a definition.
        let conflicting = schema + "\nextend type User { home: Household }"
        #expect(throws: CodegenFailure.self) { try SchemaSplitter().split(conflicting) }
        // An extension of a type the schema does not define is an error, not dropped.
        #expect(throws: CodegenFailure.self) { try SchemaSplitter().split(schema + "\nextend type Pet { name: String }") }
    }

    @Test("the repository's schema splits cleanly, and the committed slices are what it writes")
    func repositorySchema() throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("schema.graphqls"), encoding: .utf8)
        let result = try SchemaSplitter().split(text)
        #expect(result.slices.map(\.domain) == ["shared", "household", "product", "user"])
        for slice in result.slices {
            let committed = try String(contentsOf: repositoryRoot.appendingPathComponent(slice.path), encoding: .utf8)
            #expect(committed == slice.contents, "\(slice.path) is out of date")
        }
    }
}
