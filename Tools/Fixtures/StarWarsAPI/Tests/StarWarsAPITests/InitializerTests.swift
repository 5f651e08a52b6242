import APICore
import StarWarsAPI
import Testing

/// Data built by the generated initializers must be exactly what decoding the server's JSON for
/// the same values gives: same fields, same nesting, same `__typename`, nothing extra.
private func expectSame<Operation: GraphQLOperation>(
    _ built: Operation.Data, _ operation: Operation, _ json: String, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let decoded = try decode(operation, json)
    #expect(built.jsonObject == decoded.jsonObject, sourceLocation: sourceLocation)
    #expect(built == decoded, sourceLocation: sourceLocation)
}

@Suite("Generated selection-set initializers build the server's data")
struct InitializerTests {
    @Test("scalars, enums in lists, a nullable field left nil, an abstract type's __typename")
    func fields() throws {
        let built = HeroAppearsInQuery.Data(hero: .init(__typename: "Droid", appearsIn: [.init(.newhope), .init(.empire), nil]))
        try expectSame(built, HeroAppearsInQuery(), #"{"data": {"hero": {"__typename": "Droid", "appearsIn": ["NEWHOPE", "EMPIRE", null]}}}"#)
        try expectSame(HeroNameQuery.Data(), HeroNameQuery(), #"{"data": {"hero": null}}"#)
    }

    @Test("type cases: an object type's case writes its own __typename and becomes its parent through init(_:)")
    func typeCases() throws {
        let droid = HeroDetailsQuery.Data.Hero.AsDroid(name: "R2-D2", primaryFunction: "Astromech")
        let built = HeroDetailsQuery.Data(hero: .init(droid))
        try expectSame(
            built, HeroDetailsQuery(), #"{"data": {"hero": {"__typename": "Droid", "name": "R2-D2", "primaryFunction": "Astromech"}}}"#)
        #expect(built.hero?.asDroid?.primaryFunction == "Astromech")
        #expect(built.hero?.asHuman == nil)
    }

    @Test("a union in a list: each member by its own type case")
    func unionList() throws {
        typealias Search = SearchQuery.Data.Search
        let built = SearchQuery.Data(search: [
            Search(Search.AsHuman(id: "1000", name: "Luke Skywalker")), nil, Search(Search.AsStarship(id: "3000", name: "Millennium Falcon")),
        ])
        try expectSame(built, SearchQuery(term: "a"), """
            {"data": {"search": [{"__typename": "Human", "id": "1000", "name": "Luke Skywalker"}, null,
             {"__typename": "Starship", "id": "3000", "name": "Millennium Falcon"}]}}
            """)
        #expect(built.search?.last??.asStarship?.name == "Millennium Falcon")
    }

    @Test("a field under @include: nil is written null, which checking under variables that leave the field out takes away; a value is sent")
    func conditional() throws {
        let without = HeroNameConditionalInclusionQuery.Data(hero: .init(__typename: "Droid"))
        #expect(without.hero?.jsonObject["name"] == .null && without.hero?.name == nil)
        let checked = try HeroNameConditionalInclusionQuery.Data(validating: without.jsonObject, variables: ["includeName": false])
        try expectSame(checked, HeroNameConditionalInclusionQuery(includeName: false), #"{"data": {"hero": {"__typename": "Droid"}}}"#)
        // `name` is non-null: under variables that select it, a nil is a mistake the check names.
        #expect(throws: GraphQLDecodingError.self) {
            try HeroNameConditionalInclusionQuery.Data(validating: without.jsonObject, variables: ["includeName": true])
        }
        let with = HeroNameConditionalInclusionQuery.Data(hero: .init(__typename: "Droid", name: "R2-D2"))
        try expectSame(with, HeroNameConditionalInclusionQuery(includeName: true), #"{"data": {"hero": {"__typename": "Droid", "name": "R2-D2"}}}"#)
    }

    @Test("fragments: built on their own, and read through the spreading type's data")
    func fragments() throws {
        let human = HeroDetails(HeroDetails.AsHuman(name: "Luke Skywalker", height: 1.72))
        #expect(human.asHuman?.height == 1.72 && human.name == "Luke Skywalker")
        let built = HeroDetailsWithFragmentQuery.Data(hero: .init(.init(name: "Luke Skywalker", height: 1.72) as HeroDetailsWithFragmentQuery.Data.Hero.AsHuman))
        try expectSame(
            built, HeroDetailsWithFragmentQuery(), #"{"data": {"hero": {"__typename": "Human", "name": "Luke Skywalker", "height": 1.72}}}"#)
        #expect(built.hero?.fragments.heroDetails == human)
    }

    @Test("aliases: each alias is its own parameter and key")
    func aliases() throws {
        let built = TwoHeroesQuery.Data(r2: .init(__typename: "Droid", name: "R2-D2"), luke: .init(__typename: "Human", name: "Luke Skywalker"))
        try expectSame(built, TwoHeroesQuery(), """
            {"data": {"r2": {"__typename": "Droid", "name": "R2-D2"}, "luke": {"__typename": "Human", "name": "Luke Skywalker"}}}
            """)
    }
}
