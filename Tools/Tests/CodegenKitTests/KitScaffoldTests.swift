import CodegenKit
import Foundation
import Testing

@Suite("new-kit")
struct KitScaffoldTests {
    let schema = """
        directive @domain(name: String!) on OBJECT | INTERFACE | UNION | ENUM | INPUT_OBJECT | SCALAR | FIELD_DEFINITION
        directive @key(fields: String!) repeatable on OBJECT
        scalar DateTime
        interface Node { id: ID! }
        type User implements Node @domain(name: "user") { id: ID! name: String! }
        "A way to cook something."
        type Recipe implements Node @key(fields: "id (x)") {
          id: ID!
          title: String!
          minutes: Int
          default: Boolean
          tags: [String]
          grid: [[Int!]!]
          created: DateTime!
          steps(limit: Int!): [String!]!
        }
        interface Author { id: ID! name: String! }
        type Chef implements Author { id: ID! name: String! stars: Int! }
        enum Course { STARTER MAIN }
        type Query {
          me: User
          recipes(course: Course!): [Recipe!]!
          recipe(id: ID!, first: Int = 3): Recipe
          pantryRecipes: [Recipe]
          author(id: ID!): Author!
        }
        """

    func plan(_ name: String = "RecipeKit", domain: String = "recipe", types: [String] = ["Recipe"], schema: String? = nil) throws -> KitScaffold.Plan {
        try KitScaffold.plan(
            KitScaffold.Request(name: name, domain: domain, owner: "@org/recipes", types: types), schema: schema ?? self.schema,
            split: SchemaSplitter.Configuration())
    }

    func failure(_ body: () throws -> KitScaffold.Plan) -> String {
        do {
            _ = try body()
            return ""
        } catch let failure as CodegenFailure {
            return failure.description
        } catch {
            return "\(error)"
        }
    }

    @Test("marking puts @domain after the interfaces and a directive whose argument holds a parenthesis, and nothing else changes")
    func marking() throws {
        let plan = try plan()
        #expect(plan.marked == ["Recipe"])
        #expect(plan.schema.contains(#"type Recipe implements Node @key(fields: "id (x)") @domain(name: "recipe") {"#))
        #expect(plan.schema.replacingOccurrences(of: #" @domain(name: "recipe")"#, with: "") == schema)
        #expect(plan.slicePath == "RecipeKit/GraphQL/Schema/recipe-schema.graphqls")
    }

    @Test("the first query: a root field without arguments first, nullable items dropped; only built-in scalar fields without arguments")
    func firstQuery() throws {
        let files = try plan().files
        let operation = try #require(files["RecipeKit/GraphQL/Operations/Recipe.graphql"])
        // recipes(course:) needs an enum argument, recipe(id:) an argument: pantryRecipes needs none.
        #expect(operation.contains("query PantryRecipes {\n  pantryRecipes {\n    ...RecipeDetails\n  }\n}"))
        #expect(operation.contains("fragment RecipeDetails on Recipe {\n  id\n  title\n  minutes\n  default\n  tags\n}"))
        let service = try #require(files["RecipeKit/Sources/RecipeKit/RecipeService.swift"])
        #expect(service.contains("public func pantryRecipes() async throws(APIError) -> [Recipe]"))
        #expect(service.contains("(data.pantryRecipes ?? []).compactMap { $0.map { Recipe($0.fragments.recipeDetails) } }"))
        let model = try #require(files["RecipeKit/Sources/RecipeKit/Models.swift"])
        #expect(model.contains("public var `default`: Bool?"))
        #expect(model.contains("public var tags: [String?]?"))
        #expect(model.contains("self.`default` = `default`"))
        let tests = try #require(files["RecipeKit/Tests/RecipeKitTests/RecipeServiceTests.swift"])
        #expect(tests.contains(#"["__typename": "Recipe", "id": "id-1", "title": "sample title", "minutes": 7, "default": true, "tags": ["sample tags"]]"#))
        #expect(tests.contains("#expect(try await RecipeService(client: client).pantryRecipes().isEmpty)"))
        let package = try #require(files["RecipeKit/Package.swift"])
        #expect(package.contains(#".package(path: "../APICoreKit"),"#) && package.contains(#".package(path: "../SharedKit"),"#))
        #expect(package.components(separatedBy: ".package(").count == 3)
        let config = try #require(files["RecipeKit/apollo-codegen-config.json"])
        #expect(config.contains(#""schemaNamespace": "RecipeAPI""#))
        // The README's five lines name each source file the scaffold writes (check-imports.sh
        // holds the other kits to the same parts).
        let readme = try #require(files["RecipeKit/README.md"])
        let sources = files.keys.filter { $0.hasPrefix("RecipeKit/Sources/RecipeKit/") }.map { String($0.split(separator: "/").last!) }
        #expect(sources.sorted() == ["Mapping.swift", "Models.swift", "RecipeRepository.swift", "RecipeService.swift"])
        for file in sources { #expect(readme.contains("`\(file)`"), "the README does not name \(file)") }
        #expect(config.contains(#""schemaSearchPaths": ["GraphQL/Schema/recipe-schema.graphqls", "#))
    }

    @Test("an interface's query names an implementing object in the test's answer; a required argument becomes a parameter")
    func interface() throws {
        let files = try plan("AuthorKit", domain: "author", types: ["Author", "Chef"]).files
        let operation = try #require(files["AuthorKit/GraphQL/Operations/Author.graphql"])
        #expect(operation.contains("query Author($id: ID!) {\n  author(id: $id) {\n    ...AuthorDetails\n  }\n}"))
        let service = try #require(files["AuthorKit/Sources/AuthorKit/AuthorService.swift"])
        #expect(service.contains("public func author(id: String) async throws(APIError) -> Author {"))
        #expect(service.contains("GraphQLRequest(AuthorQuery(id: id)) { data in Author(data.author.fragments.authorDetails) }"))
        let tests = try #require(files["AuthorKit/Tests/AuthorKitTests/AuthorServiceTests.swift"])
        #expect(tests.contains(#"["__typename": "Chef", "id": "id-1", "name": "sample name"]"#))
        #expect(tests.contains(#"#expect(client.sent("Author").map(\.payload) == [["id": "id-1"]])"#))
        #expect(tests.contains("guard case .invalidResponse = error else {"))
    }

    @Test("refusals say what is wrong, with the line of a type of another domain")
    func refusals() throws {
        #expect(failure { try plan(domain: "recipe", types: []) }.contains(#"no type carries @domain(name: "recipe")"#))
        #expect(failure { try plan(types: ["User"]) }.contains("schema.graphqls:5:6: error: type User already belongs to the domain 'user'"))
        #expect(failure { try plan(types: ["Missing", "Query", "ID"]) } == """
            schema.graphqls: error: 'Query' is a root type: mark its fields with @domain, not the type
            schema.graphqls: error: --types names 'ID', which the schema does not define ('ID' is a built-in scalar)
            schema.graphqls: error: --types names 'Missing', which the schema does not define
            """)
        // A union has no fields to select, and nothing else of the domain is a root field's type.
        let unionSchema = """
            directive @domain(name: String!) on OBJECT | INTERFACE | UNION | ENUM | INPUT_OBJECT | SCALAR | FIELD_DEFINITION
            type Chef { id: ID! }
            union Anything @domain(name: "any") = Chef
            type Query { anything: Anything }
            """
        let onlyUnion = failure { try plan("AnyKit", domain: "any", types: [], schema: unionSchema) }
        #expect(onlyUnion.contains("no first query for the domain 'any'"))
        #expect(onlyUnion.contains("anything: returns Anything, not an object, an interface with an implementation, or a list of one"))
        let request = KitScaffold.Request(name: "9Kit", domain: "Recipe", owner: "team", types: [])
        var messages = ""
        do { try request.validate() } catch { messages = error.description }
        #expect(messages.contains("'9Kit' is not a Swift identifier"))
        #expect(messages.contains("the domain 'Recipe' must be a lower-case GraphQL name"))
        #expect(messages.contains("the owner 'team' is not a CODEOWNERS owner"))
        #expect(throws: CodegenFailure.self) { try KitScaffold.Request(name: "struct", domain: "recipe", owner: "@a").validate() }
        try KitScaffold.Request(name: "Recipe_Kit2", domain: "meal_plan", owner: "cooks@example.com").validate()
    }
}
