import CodegenKit
import Foundation
import Testing

/// Each of the spec's type-system rules, with the exact message: `schema` is appended to a valid
/// `type Query { ok: Int }` (line 1), so the schema's own lines start at line 2.
@Suite("Schema rules")
struct SchemaRuleTests {
    func errors(_ schema: String) -> [String] {
        do {
            _ = try generate(schema: "type Query { ok: Int }\n" + schema, operations: "query Q { ok }")
            Issue.record("an invalid schema was accepted:\n\(schema)")
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    @Test("a field declared twice, also with another type or in an extension, names both places")
    func duplicateField() {
        #expect(errors("type A {\n  x: Int\n  x: String\n}") == [
            #"schema.graphqls:3:3: error: Field "A.x" can only be defined once. (also at 4:3)"#
        ])
        #expect(errors("type A { x: Int }\nextend type A { x: Int }") == [
            #"schema.graphqls:2:10: error: Field "A.x" can only be defined once. (also at 3:17)"#
        ])
    }

    @Test("arguments, enum values and input fields declared twice")
    func otherDuplicates() {
        #expect(errors("type A { x(a: Int, a: Int): Int }") == [
            #"schema.graphqls:2:12: error: Argument "A.x(a:)" can only be defined once. (also at 2:20)"#
        ])
        #expect(errors("enum E { ONE TWO ONE }") == [
            #"schema.graphqls:2:10: error: Enum value "E.ONE" can only be defined once. (also at 2:18)"#
        ])
        #expect(errors("input I { a: Int b: Int a: String }") == [
            #"schema.graphqls:2:11: error: Field "I.a" can only be defined once. (also at 2:25)"#
        ])
        #expect(errors("directive @d(a: Int, a: Int) on FIELD") == [
            #"schema.graphqls:2:14: error: Argument "@d(a:)" can only be defined once. (also at 2:22)"#
        ])
    }

    @Test("a type defined twice names both places")
    func duplicateType() {
        #expect(errors("type A { x: Int }\ntype A { x: Int }") == [
            #"schema.graphqls:2:6: error: There can be only one type named "A". (also at 3:6)"#,
            #"schema.graphqls:2:10: error: Field "A.x" can only be defined once. (also at 3:10)"#
        ])
    }

    @Test("an object that lacks an interface's field, or has it with an incompatible type")
    func interfaceFields() {
        #expect(errors("interface I { x: Int }\ntype A implements I { y: Int }") == [
            "schema.graphqls:2:15: error: Interface field I.x expected but A does not provide it. (also at 3:1)"
        ])
        #expect(errors("interface I { x: Int }\ntype A implements I { x: String }") == [
            "schema.graphqls:2:18: error: Interface field I.x expects type Int but A.x is type String. (also at 3:26)"
        ])
        #expect(errors("interface I { x: Int! }\ntype A implements I { x: Int }") == [
            "schema.graphqls:2:18: error: Interface field I.x expects type Int! but A.x is type Int. (also at 3:26)"
        ])
        // Covariance is allowed: non-null for nullable, an implementer for the interface, a member for the union.
        #expect(throws: Never.self) {
            _ = try generate(schema: """
                type Query { ok: Int }
                interface I { x: Int self: I list: [I] u: U }
                type A implements I { x: Int! self: A! list: [A!]! u: A }
                union U = A
                """, operations: "query Q { ok }")
        }
    }

    @Test("arguments of an implemented field: the interface's, with the same types, and no extra required one")
    func interfaceArguments() {
        #expect(errors("interface I { x(a: Int): Int }\ntype A implements I { x: Int }") == [
            "schema.graphqls:2:17: error: Interface field argument I.x(a:) expected but A.x does not provide it. (also at 3:23)"
        ])
        #expect(errors("interface I { x(a: Int): Int }\ntype A implements I { x(a: String): Int }") == [
            "schema.graphqls:2:20: error: Interface field argument I.x(a:) expects type Int but A.x(a:) is type String. (also at 3:28)"
        ])
        #expect(errors("interface I { x: Int }\ntype A implements I { x(b: Int!): Int }") == [
            "schema.graphqls:3:25: error: Object field A.x includes required argument b that is missing from the Interface field I.x. (also at 2:15)"
        ])
    }

    @Test("an interface's own interfaces must be declared too; an interface cannot implement itself")
    func transitiveInterfaces() {
        #expect(errors("interface J { x: Int }\ninterface I implements J { x: Int }\ntype A implements I { x: Int }") == [
            "schema.graphqls:3:24: error: Type A must implement J because it is implemented by I. (also at 4:19)"
        ])
        #expect(errors("interface I implements I { x: Int }") == [
            "schema.graphqls:2:24: error: Type I cannot implement itself because it would create a circular reference."
        ])
    }

    @Test("union members must be object types; unknown types are named")
    func unionsAndUnknownTypes() {
        #expect(errors("interface I { x: Int }\nunion U = I") == [
            "schema.graphqls:3:11: error: Union type U can only include Object types, it cannot include I."
        ])
        #expect(errors("type A { x: Missing }") == [
            #"schema.graphqls:2:13: error: Unknown type "Missing"."#
        ])
    }

    @Test("an input object that contains itself through non-null fields")
    func inputCycles() {
        #expect(errors("input A { b: B! }\ninput B { a: A! }") == [
            #"schema.graphqls:2:11: error: Cannot reference Input Object "A" within itself through a series of non-null fields: "b.a". (also at 3:11)"#
        ])
        // Through a nullable field or a list, a finite value exists.
        #expect(throws: Never.self) {
            _ = try generate(schema: "type Query { ok(a: A): Int }\ninput A { b: B! }\ninput B { a: A list: [B!]! }", operations: "query Q { ok }")
        }
    }

    @Test("@oneOf input objects: every field nullable and without a default")
    func oneOf() throws {
        #expect(errors("input K @oneOf { id: ID!\n  name: String = \"x\" }") == [
            "schema.graphqls:2:22: error: OneOf input field K.id must be nullable.",
            "schema.graphqls:3:3: error: OneOf input field K.name cannot have a default value.",
        ])
        let files = try generate(
            schema: "type Query { find(key: K!): Int }\ninput K @oneOf { id: ID\n  tags: [String!]\n  in: I }\ninput I { a: Int }",
            operations: "query Q($key: K!) { find(key: $key) }")
        let input = try #require(files.first { $0.path.hasSuffix("InputObjects/K.graphql.swift") }).contents
        #expect(input.contains("enum K: InputObject {"))
        #expect(input.contains("case id(String)") && input.contains("case tags([String])") && input.contains("case `in`(TestAPI.I)"))
        #expect(input.contains(#"case .`in`(let value): return InputDict(["in": value])"#))
    }

    @Test("@fieldPolicy: the field and its key arguments exist, it returns an object type with as many key fields; the metadata carries keyArgs")
    func fieldPolicy() throws {
        let book = "type Book { id: ID! title: String }\ntype Edition @typePolicy(keyFields: \"isbn year\") { isbn: String! year: Int! }\n"
        #expect(errors(book + "extend type Query @fieldPolicy(forField: \"nope\", keyArgs: \"id\")") == [
            "schema.graphqls:4:19: error: @fieldPolicy(forField: \"nope\") on 'Query': 'Query' has no field 'nope'"
        ])
        #expect(errors(book + "type Lib @fieldPolicy(forField: \"book\", keyArgs: \"isbn\") { book(id: ID): Book title: String }") == [
            "schema.graphqls:4:10: error: @fieldPolicy(forField: \"book\") on 'Lib': 'Lib.book' has no argument 'isbn'"
        ])
        #expect(errors(book + "type Lib @fieldPolicy(forField: \"title\", keyArgs: \"id\") { title(id: ID): String }") == [
            "schema.graphqls:4:10: error: @fieldPolicy(forField: \"title\") on 'Lib': the field returns 'String', not an object type, whose records its arguments could name"
        ])
        #expect(errors(book + "type Lib @fieldPolicy(forField: \"edition\", keyArgs: \"isbn\") { edition(isbn: String): Edition }") == [
            "schema.graphqls:4:10: error: @fieldPolicy(forField: \"edition\") on 'Lib': keyArgs names 1 argument(s) but 'Edition' has 2 key field(s) (isbn, year)"
        ])
        let files = try generate(
            schema: "type Query @fieldPolicy(forField: \"book\", keyArgs: \"id\") @fieldPolicy(forField: \"books\", keyArgs: \"ids\") {\n"
                + "  book(id: ID!): Book\n  books(ids: [ID!]!): [Book]\n}\ntype Book { id: ID! title: String }",
            operations: "query Q($id: ID!) { book(id: $id) { title } books(ids: [\"1\", \"2\"]) { title } }")
        let query = try #require(files.first { $0.path.hasSuffix("QQuery.graphql.swift") }).contents
        let metadata = namedMetadata(query)
        #expect(metadata.contains(#"["book","Book",{"args":{"id":{"$":"id"}},"keys":["id"]}]"#), "\(metadata)")
        #expect(metadata.contains(#"["books","[Book_2]",{"args":{"ids":["1","2"]},"keys":["ids"]}]"#), "\(metadata)")
    }

    @Test("@cacheControl(maxAge:): a field's own age, else its type's (object, interface, union, extensions too), goes into the metadata; the schema may declare the directive itself")
    func cacheControl() throws {
        let schema = """
            type Query { book: Book  shelf: Shelf @cacheControl(maxAge: 60)  item: Item  now: String @cacheControl(maxAge: 0) }
            type Book @cacheControl(maxAge: 300) { id: ID!  title: String  price: Int @cacheControl(maxAge: 30)  stock: Int @cacheControl(inheritMaxAge: true) }
            type Shelf @cacheControl(maxAge: 900) { name: String }
            union Item = Book | Shelf
            extend union Item @cacheControl(maxAge: 120)
            """
        let files = try generate(schema: schema, operations: "query Q { book { title price stock } shelf { name } item { __typename } now }")
        let query = try #require(files.first { $0.path.hasSuffix("QQuery.graphql.swift") }).contents
        let metadata = namedMetadata(query)
        #expect(metadata.contains(#"["book","Book",{"age":300}]"#), "\(metadata)")  // the type's
        #expect(metadata.contains(#"["shelf","Shelf",{"age":60}]"#))  // the field's own, shorter than the type's
        #expect(metadata.contains(#"["item","Item",{"age":120}]"#))  // a union's, from an extension
        #expect(metadata.contains(#"["now","String",{"age":0}]"#))
        #expect(metadata.contains(#"["price","Int",{"age":30}]"#))
        #expect(metadata.contains(#"["title","String"]"#) && metadata.contains(#"["stock","Int"]"#))  // below the book: the book's age holds
        // A schema from Apollo Server declares the directive and its enum itself.
        let declared = "directive @cacheControl(maxAge: Int, scope: CacheControlScope, inheritMaxAge: Boolean) on FIELD_DEFINITION | OBJECT | INTERFACE | UNION\n"
            + "enum CacheControlScope { PUBLIC PRIVATE }\ntype Query { n: Int @cacheControl(maxAge: 5, scope: PRIVATE) }"
        let own = try #require(try generate(schema: declared, operations: "query Q { n }").first { $0.path.hasSuffix("QQuery.graphql.swift") }).contents
        #expect(namedMetadata(own).contains(#"["n","Int",{"age":5}]"#))
    }

    @Test("directives: defined, allowed where used, repeated only when repeatable")
    func directives() {
        #expect(errors("type A { x: Int @unknown }") == [
            #"schema.graphqls:2:17: error: Unknown directive "@unknown"."#
        ])
        #expect(errors("type A @deprecated { x: Int }") == [
            #"schema.graphqls:2:8: error: Directive "@deprecated" may not be used on OBJECT."#
        ])
        #expect(errors("directive @tag on FIELD_DEFINITION\ntype A { x: Int @tag @tag }") == [
            #"schema.graphqls:3:17: error: The directive "@tag" can only be used once at this location. (also at 3:22)"#
        ])
        #expect(throws: Never.self) {
            _ = try generate(
                schema: "type Query { ok: Int @tag @tag }\ndirective @tag repeatable on FIELD_DEFINITION", operations: "query Q { ok }")
        }
    }

    @Test("an object type needs fields; an empty root type (a shared slice's placeholder that kits extend) is left alone")
    func emptyTypes() {
        #expect(errors("type A\ntype B { a: A }") == ["schema.graphqls:2:1: error: Type A must define one or more fields."])
        #expect(throws: Never.self) { _ = try generate(schema: "type Query { ok: Int }\ntype Mutation", operations: "query Q { ok }") }
    }

    @Test("every problem of a schema is reported at once")
    func allAtOnce() {
        let found = errors("type A { x: Int x: Int }\nenum E { V V }\ninterface I { y: Int }\ntype B implements I { z: Int }")
        #expect(found.count == 3)
    }
}

/// The spec's field selection merging rule, which GraphQLSwift's validator does not apply (ours,
/// `OverlappingFieldsRule`: graphql-js's messages and places).
@Suite("Fields that cannot be merged")
struct FieldMergeTests {
    static let schema = """
        type Query { hero: Character things: [Thing] }
        interface Character { id: ID! name: String friends: [Character] }
        type Human implements Character { id: ID! name: String friends: [Character] height(unit: String): Float }
        type Droid implements Character { id: ID! name: String friends: [Character] height: Int model: String }
        union Thing = Human | Droid
        """

    func errors(_ operations: String) -> [String] {
        do {
            _ = try generate(schema: Self.schema, operations: operations)
            Issue.record("invalid operations were accepted:\n\(operations)")
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    @Test("one response key for two different fields, on one type")
    func differentFields() {
        #expect(errors("query Q {\n  hero { name: id name }\n}") == [
            #"operations.graphql:2:10: error: Fields "name" conflict because "id" and "name" are different fields. Use different aliases on the fields to fetch both if this was intentional. (also at 2:19)"#
        ])
    }

    @Test("the same field with different arguments, also through a fragment")
    func differentArguments() {
        #expect(errors("""
            query Q { things { ... on Human { height(unit: "m") ...H } } }
            fragment H on Human { height(unit: "ft") }
            """) == [
            #"operations.graphql:1:35: error: Fields "height" conflict because they have differing arguments. Use different aliases on the fields to fetch both if this was intentional. (also at 2:23)"#
        ])
    }

    @Test("different object types may select different fields under one key, but not different shapes")
    func exclusiveParents() throws {
        _ = try generate(schema: Self.schema, operations: "query Q { things { ... on Human { x: name } ... on Droid { x: model } } }")
        #expect(errors("query Q { things { ... on Human { height } ... on Droid { height } } }") == [
            #"operations.graphql:1:35: error: Fields "height" conflict because they return conflicting types "Float" and "Int". Use different aliases on the fields to fetch both if this was intentional. (also at 1:59)"#
        ])
    }

    @Test("conflicts below merged fields are found: the subselections are merged too")
    func nested() {
        #expect(errors("query Q { hero { friends { n: name } friends { n: id } } }") == [
            #"operations.graphql:1:18: error: Fields "friends" conflict because subfields "n" conflict because "name" and "id" are different fields. Use different aliases on the fields to fetch both if this was intentional. (also at 1:28, 1:38, 1:48)"#
        ])
    }

    @Test("Apollo's StarWars operations and the kits' all pass the rule (the golden and kit tests generate them)")
    func sameFieldTwiceIsFine() throws {
        _ = try generate(schema: Self.schema, operations: "query Q { hero { name name ... on Human { name friends { id } } friends { name } } }")
    }
}
