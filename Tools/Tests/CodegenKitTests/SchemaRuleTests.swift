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
            "schema.graphqls:4:3: error: field 'A.x' is declared more than once (first at schema.graphqls:3:3)"
        ])
        #expect(errors("type A { x: Int }\nextend type A { x: Int }") == [
            "schema.graphqls:3:17: error: field 'A.x' is declared more than once (first at schema.graphqls:2:10)"
        ])
    }

    @Test("arguments, enum values and input fields declared twice")
    func otherDuplicates() {
        #expect(errors("type A { x(a: Int, a: Int): Int }") == [
            "schema.graphqls:2:20: error: argument 'a' of 'A.x' is declared more than once (first at schema.graphqls:2:12)"
        ])
        #expect(errors("enum E { ONE TWO ONE }") == [
            "schema.graphqls:2:18: error: enum value 'E.ONE' is declared more than once (first at schema.graphqls:2:10)"
        ])
        #expect(errors("input I { a: Int b: Int a: String }") == [
            "schema.graphqls:2:25: error: input field 'I.a' is declared more than once (first at schema.graphqls:2:11)"
        ])
        #expect(errors("directive @d(a: Int, a: Int) on FIELD") == [
            "schema.graphqls:2:22: error: argument 'a' of '@d' is declared more than once (first at schema.graphqls:2:14)"
        ])
    }

    @Test("a type defined twice names both places")
    func duplicateType() {
        #expect(errors("type A { x: Int }\ntype A { x: Int }") == [
            "schema.graphqls:3:6: error: type 'A' is defined more than once (first at schema.graphqls:2:6)"
        ])
    }

    @Test("an object that lacks an interface's field, or has it with an incompatible type")
    func interfaceFields() {
        #expect(errors("interface I { x: Int }\ntype A implements I { y: Int }") == [
            "schema.graphqls:3:6: error: 'A' implements 'I' but has no field 'x' (at schema.graphqls:2:15)"
        ])
        #expect(errors("interface I { x: Int }\ntype A implements I { x: String }") == [
            "schema.graphqls:3:26: error: 'A.x' has type 'String', but 'I.x' (at schema.graphqls:2:15) needs 'Int' or a subtype of it"
        ])
        #expect(errors("interface I { x: Int! }\ntype A implements I { x: Int }") == [
            "schema.graphqls:3:26: error: 'A.x' has type 'Int', but 'I.x' (at schema.graphqls:2:15) needs 'Int!' or a subtype of it"
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
            "schema.graphqls:3:23: error: 'A.x' has no argument 'a', which 'I.x' (at schema.graphqls:2:15) takes"
        ])
        #expect(errors("interface I { x(a: Int): Int }\ntype A implements I { x(a: String): Int }") == [
            "schema.graphqls:3:28: error: argument 'a' of 'A.x' has type 'String', but 'I.x' (at schema.graphqls:2:15) declares it 'Int'"
        ])
        #expect(errors("interface I { x: Int }\ntype A implements I { x(b: Int!): Int }") == [
            "schema.graphqls:3:25: error: argument 'b' of 'A.x' is required, but 'I.x' (at schema.graphqls:2:15) does not take it"
        ])
    }

    @Test("an interface's own interfaces must be declared too; an interface cannot implement itself")
    func transitiveInterfaces() {
        #expect(errors("interface J { x: Int }\ninterface I implements J { x: Int }\ntype A implements I { x: Int }") == [
            "schema.graphqls:4:6: error: 'A' implements 'I', which implements 'J': 'A' must declare 'J' too"
        ])
        #expect(errors("interface I implements I { x: Int }") == [
            "schema.graphqls:2:11: error: interface 'I' cannot implement itself"
        ])
    }

    @Test("union members must be object types; unknown types are named")
    func unionsAndUnknownTypes() {
        #expect(errors("interface I { x: Int }\nunion U = I") == [
            "schema.graphqls:3:7: error: union 'U' includes 'I', which is not a defined object type"
        ])
        #expect(errors("type A { x: Missing }") == [
            "schema.graphqls:2:13: error: unknown type 'Missing' in field 'A.x'"
        ])
    }

    @Test("an input object that contains itself through non-null fields")
    func inputCycles() {
        #expect(errors("input A { b: B! }\ninput B { a: A! }") == [
            "schema.graphqls:2:7: error: input object 'A' contains itself through non-null fields: A.b → B.a → A"
        ])
        // Through a nullable field or a list, a finite value exists.
        #expect(throws: Never.self) {
            _ = try generate(schema: "type Query { ok(a: A): Int }\ninput A { b: B! }\ninput B { a: A list: [B!]! }", operations: "query Q { ok }")
        }
    }

    @Test("@oneOf input objects: every field nullable and without a default")
    func oneOf() throws {
        #expect(errors("input K @oneOf { id: ID!\n  name: String = \"x\" }") == [
            "schema.graphqls:2:22: error: @oneOf input object 'K': field 'id' is 'ID!'; it must be nullable, since a value sets only one field",
            "schema.graphqls:3:3: error: @oneOf input object 'K': field 'name' has a default value; a @oneOf field cannot have one",
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
            "schema.graphqls:2:18: error: directive '@unknown' is not defined"
        ])
        #expect(errors("type A @deprecated { x: Int }") == [
            "schema.graphqls:2:9: error: directive '@deprecated' is not allowed on an object type (only on: argument definition, enum value, field definition, input field definition)"
        ])
        #expect(errors("directive @tag on FIELD_DEFINITION\ntype A { x: Int @tag @tag }") == [
            "schema.graphqls:3:23: error: directive '@tag' is used more than once here but is not repeatable"
        ])
        #expect(throws: Never.self) {
            _ = try generate(
                schema: "type Query { ok: Int @tag @tag }\ndirective @tag repeatable on FIELD_DEFINITION", operations: "query Q { ok }")
        }
    }

    @Test("an object type needs fields; an empty root type (a shared slice's placeholder that kits extend) is left alone")
    func emptyTypes() {
        #expect(errors("type A\ntype B { a: A }") == ["schema.graphqls:2:6: error: object type 'A' declares no fields"])
        #expect(throws: Never.self) { _ = try generate(schema: "type Query { ok: Int }\ntype Mutation", operations: "query Q { ok }") }
    }

    @Test("every problem of a schema is reported at once")
    func allAtOnce() {
        let found = errors("type A { x: Int x: Int }\nenum E { V V }\ninterface I { y: Int }\ntype B implements I { z: Int }")
        #expect(found.count == 3)
    }
}

/// The spec's field selection merging rule, which GraphQLSwift's validator does not apply.
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
            "operations.graphql:2:10: error: fields 'name' conflict: 'id' and 'name' are different fields (other at operations.graphql:2:19); use different aliases to select both"
        ])
    }

    @Test("the same field with different arguments, also through a fragment")
    func differentArguments() {
        #expect(errors("""
            query Q { things { ... on Human { height(unit: "m") ...H } } }
            fragment H on Human { height(unit: "ft") }
            """) == [
            "operations.graphql:1:35: error: fields 'height' conflict: they have different arguments (other at operations.graphql:2:23); use different aliases to select both"
        ])
    }

    @Test("different object types may select different fields under one key, but not different shapes")
    func exclusiveParents() throws {
        _ = try generate(schema: Self.schema, operations: "query Q { things { ... on Human { x: name } ... on Droid { x: model } } }")
        #expect(errors("query Q { things { ... on Human { height } ... on Droid { height } } }") == [
            "operations.graphql:1:35: error: fields 'height' conflict: they return 'Float' and 'Int' (other at operations.graphql:1:59); use different aliases to select both"
        ])
    }

    @Test("conflicts below merged fields are found: the subselections are merged too")
    func nested() {
        #expect(errors("query Q { hero { friends { n: name } friends { n: id } } }") == [
            "operations.graphql:1:28: error: fields 'n' conflict: 'name' and 'id' are different fields (other at operations.graphql:1:48); use different aliases to select both"
        ])
    }

    @Test("Apollo's StarWars operations and the kits' all pass the rule (the golden and kit tests generate them)")
    func sameFieldTwiceIsFine() throws {
        _ = try generate(schema: Self.schema, operations: "query Q { hero { name name ... on Human { name friends { id } } friends { name } } }")
    }
}
