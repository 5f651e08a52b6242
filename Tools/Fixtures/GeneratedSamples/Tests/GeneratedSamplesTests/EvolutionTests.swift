@_spi(Engine) @_spi(Tools) import APICore
import Evolution
import Testing

/// Parses a `data` object and validates it against the operation, as the engine does.
func decode<Operation: GraphQLOperation>(_ operation: Operation, _ json: String) throws -> Operation.Data {
    let data = try #require(try JSONParser.parse(json).objectValue)
    return try Operation.Data(validating: data, variables: operation.coercedVariables)
}

/// The generated code is compiled against one schema; the answers come from a later server that
/// has types the schema did not.
@Suite("An old app reads a newer server")
struct EvolutionTests {
    @Test("a type the schema never had decodes: the parent's fields are there, its type cases nil")
    func unknownImplementer() throws {
        let data = try decode(KidsQuery(), """
            {"child": {"__typename": "ChildB", "id": "2", "name": "Bo", "ball": "red"},
             "children": [{"__typename": "ChildB"}, {"__typename": "ChildA", "toy": "kite"}]}
            """)
        let child = try #require(data.child)
        #expect(child.name == "Bo")
        #expect(child.id == "2")
        #expect(child.asChildA == nil)
        #expect(data.children.map { $0.asChildA?.toy } == [nil, "kite"])
    }

    @Test("the only implementer the schema had is a type case, not folded into the interface")
    func onlyImplementerIsStillACase() throws {
        let data = try decode(KidsQuery(), """
            {"child": {"__typename": "ChildA", "id": "1", "name": "Al", "toy": "ball"}, "children": []}
            """)
        #expect(data.child?.asChildA?.toy == "ball")
        #expect(data.child?.asChildA?.name == "Al")
        // A ChildA without its toy is an error: the condition applied.
        #expect(throws: GraphQLDecodingError.self) {
            try decode(KidsQuery(), #"{"child": {"__typename": "ChildA", "id": "1", "name": "Al"}, "children": []}"#)
        }
    }

    @Test("overlapping conditions: each applies exactly when __typename is one of its possible types")
    func overlapping() throws {
        let data = try decode(ThingsQuery(withPrice: true), """
            {"things": [
              {"__typename": "Product", "id": "p", "label": "Pen", "price": 3},
              {"__typename": "Gift", "id": "g", "label": "Card"},
              {"__typename": "Coupon", "price": 5},
              {"__typename": "Voucher", "code": "NEW"}
            ]}
            """)
        let things = data.things
        #expect(things.map { $0.asNamed?.label } == ["Pen", "Card", nil, nil])
        #expect(things.map { $0.asNamed?.asPriced?.price } == [3, nil, nil, nil])
        #expect(things.map { $0.asPriced?.price } == [3, nil, 5, nil])
        #expect(things.map { $0.asNode?.id } == ["p", "g", nil, nil])
        #expect(things.map(\.__typename) == ["Product", "Gift", "Coupon", "Voucher"])

        let withoutPrice = try decode(ThingsQuery(withPrice: false), #"{"things": [{"__typename": "Coupon", "price": 5}]}"#)
        #expect(withoutPrice.things[0].asPriced != nil)
        #expect(withoutPrice.things[0].asPriced?.price == nil)
    }

    @Test("a variable left out takes the document's default, in conditions and keys as on the server; one given or null does not")
    func variableDefaults() throws {
        let leftOut = PricedThingsQuery()
        #expect(leftOut.variablesJSON.isEmpty)  // what is sent: the server applies the defaults
        #expect(leftOut.coercedVariables == ["withPrice": true, "key": ["toy": ["toy": "ball", "exact": false]]])
        let answer = #"{"things": [{"__typename": "Coupon", "price": 5}], "childBy": null}"#
        #expect(try decode(leftOut, answer).things[0].asPriced?.price == 5)
        #expect(try decode(PricedThingsQuery(withPrice: false), answer).things[0].asPriced?.price == nil)
        let explicitNull = PricedThingsQuery(withPrice: true, key: .null)
        #expect(explicitNull.coercedVariables == ["withPrice": true, "key": nil])
    }

    @Test("a fragment on a type the field always is applies to a new type too")
    func fragmentOnSupertype() throws {
        let data = try decode(AnyNodeQuery(), #"{"node": {"__typename": "Article", "id": "a1"}}"#)
        #expect(data.node?.fragments.nodeID.id == "a1")
        #expect(data.node?.id == "a1")
        #expect(data.node?.asChild == nil)
    }
}
