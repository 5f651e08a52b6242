@_spi(Tools) import APICore
import StarWarsAPI
import Testing

/// Reads a whole response the way the engine does: parse, take `data`, validate against the
/// operation's selection sets with its variables.
func decode<Operation: GraphQLOperation>(_ operation: Operation, _ json: String) throws -> Operation.Data {
    let response = try JSONParser.parse(json)
    let data = try #require(response["data"]?.objectValue)
    return try Operation.Data(validating: data, variables: operation.variablesJSON)
}

@Suite("Generated StarWars code decodes responses")
struct DecodeTests {
    @Test("operation metadata: name, document with __typename and fragments, variables")
    func metadata() {
        #expect(HeroAndFriendsNamesWithFragmentQuery.operationName == "HeroAndFriendsNamesWithFragment")
        #expect(HeroAndFriendsNamesWithFragmentQuery.document == """
            query HeroAndFriendsNamesWithFragment($episode: Episode) { hero(episode: $episode) { __typename name ...FriendsNames } } \
            fragment FriendsNames on Character { __typename friends { __typename name } }
            """)
        #expect(HeroNameQuery(episode: .some(.init(.empire))).variablesJSON == ["episode": "EMPIRE"])
        #expect(HeroNameQuery().variablesJSON == [:])
        #expect(CreateReviewForEpisodeMutation.operationType == .mutation)
        let review = StarWarsAPI.ReviewInput(stars: 5, commentary: .null, favorite_color: .some(.init(red: 1, green: 2, blue: 3)))
        #expect(CreateReviewForEpisodeMutation(episode: .init(.jedi), review: review).variablesJSON == [
            "episode": "JEDI", "review": ["stars": 5, "commentary": nil, "favorite_color": ["red": 1, "green": 2, "blue": 3]],
        ])
    }

    @Test("a named fragment is reachable from the spreading type, and its fields are merged in")
    func fragments() throws {
        let data = try decode(HeroAndFriendsNamesWithFragmentQuery(), """
            {"data": {"hero": {"__typename": "Droid", "name": "R2-D2", "friends": [
              {"__typename": "Human", "name": "Luke Skywalker"}, null, {"__typename": "Human", "name": "Han Solo"}]}}}
            """)
        let hero = try #require(data.hero)
        #expect(hero.name == "R2-D2")
        #expect(hero.friends?.map { $0?.name } == ["Luke Skywalker", nil, "Han Solo"])
        #expect(hero.fragments.friendsNames.friends?.compactMap { $0?.name } == ["Luke Skywalker", "Han Solo"])
    }

    @Test("type conditions on an interface: asHuman / asDroid by __typename")
    func typeConditions() throws {
        let luke = try decode(HeroDetailsQuery(), #"{"data": {"hero": {"__typename": "Human", "name": "Luke", "height": 1.72}}}"#)
        #expect(luke.hero?.name == "Luke")
        #expect(luke.hero?.asHuman?.height == 1.72)
        #expect(luke.hero?.asHuman?.name == "Luke")
        #expect(luke.hero?.asDroid == nil)

        let r2 = try decode(HeroDetailsQuery(), #"{"data": {"hero": {"__typename": "Droid", "name": "R2-D2", "primaryFunction": "Astromech"}}}"#)
        #expect(r2.hero?.asDroid?.primaryFunction == "Astromech")
        #expect(r2.hero?.asHuman == nil)

        // A type case's own fields are required when it applies.
        #expect(throws: GraphQLDecodingError(path: ["hero", "height"], message: "missing field 'height'")) {
            try decode(HeroDetailsQuery(), #"{"data": {"hero": {"__typename": "Human", "name": "Luke"}}}"#)
        }
    }

    @Test("a fragment on a narrower type becomes a type case with that fragment")
    func narrowingFragment() throws {
        let data = try decode(DroidDetailsWithFragmentQuery(), #"{"data": {"hero": {"__typename": "Droid", "name": "R2-D2", "primaryFunction": "Astromech"}}}"#)
        #expect(data.hero?.asDroid?.fragments.droidDetails.primaryFunction == "Astromech")
        let human = try decode(DroidDetailsWithFragmentQuery(), #"{"data": {"hero": {"__typename": "Human"}}}"#)
        #expect(human.hero?.asDroid == nil)
    }

    @Test("a union: one type case per member")
    func union() throws {
        let data = try decode(SearchQuery(term: "sky"), """
            {"data": {"search": [
              {"__typename": "Human", "id": "1000", "name": "Luke Skywalker"},
              {"__typename": "Starship", "id": "3000", "name": "Millennium Falcon"}]}}
            """)
        let results = try #require(data.search)
        #expect(results[0]?.asHuman?.name == "Luke Skywalker")
        #expect(results[1]?.asStarship?.name == "Millennium Falcon")
        #expect(results[1]?.asDroid == nil)
    }

    @Test("aliases, including the same alias with different fields per type")
    func aliases() throws {
        let heroes = try decode(TwoHeroesQuery(), #"{"data": {"r2": {"__typename": "Droid", "name": "R2-D2"}, "luke": {"__typename": "Human", "name": "Luke"}}}"#)
        #expect(heroes.r2?.name == "R2-D2")
        #expect(heroes.luke?.name == "Luke")

        let human = try decode(HeroTypeDependentAliasedFieldQuery(), #"{"data": {"hero": {"__typename": "Human", "property": "Tatooine"}}}"#)
        #expect(human.hero?.asHuman?.property == "Tatooine")
        let droid = try decode(HeroTypeDependentAliasedFieldQuery(), #"{"data": {"hero": {"__typename": "Droid", "property": "Astromech"}}}"#)
        #expect(droid.hero?.asDroid?.property == "Astromech")
    }

    @Test("@include and @skip decide which fields must be there", arguments: [
        (true, false, "R2-D2" as String?), (false, false, nil), (true, true, nil), (false, true, nil),
    ])
    func includeSkip(include: Bool, skip: Bool, expected: String?) throws {
        let json = expected == nil ? #"{"data": {"hero": {"__typename": "Droid"}}}"# : #"{"data": {"hero": {"__typename": "Droid", "name": "R2-D2"}}}"#
        let both = try decode(HeroNameConditionalBothQuery(skipName: skip, includeName: include), json)
        #expect(both.hero?.name == expected)
    }

    @Test("@include on a field that is also selected without it keeps it required")
    func includeAndUnconditional() throws {
        let without = try decode(
            HeroFriendsDetailsUnconditionalAndConditionalInclusionQuery(includeFriendsDetails: false),
            #"{"data": {"hero": {"__typename": "Droid", "friends": [{"__typename": "Human", "name": "Luke"}]}}}"#)
        #expect(without.hero?.friends?.first??.name == "Luke")
        // A Droid friend: the type case's primaryFunction comes only with the conditional selection,
        // so it is not required while the variable is false (it was, before).
        let droidFriend = try decode(
            HeroFriendsDetailsUnconditionalAndConditionalInclusionQuery(includeFriendsDetails: false),
            #"{"data": {"hero": {"__typename": "Droid", "friends": [{"__typename": "Droid", "name": "C-3PO", "primaryFunction": 7}]}}}"#)
        #expect(droidFriend.hero?.friends?.first??.asDroid?.name == "C-3PO")
        #expect(droidFriend.hero?.friends?.first??.asDroid?.primaryFunction == nil)
        #expect(throws: GraphQLDecodingError(path: ["hero", "friends"], message: "missing field 'friends'")) {
            try decode(HeroFriendsDetailsUnconditionalAndConditionalInclusionQuery(includeFriendsDetails: true), #"{"data": {"hero": {"__typename": "Droid"}}}"#)
        }
        let with = try decode(
            HeroFriendsDetailsUnconditionalAndConditionalInclusionQuery(includeFriendsDetails: true),
            #"{"data": {"hero": {"__typename": "Droid", "friends": [{"__typename": "Droid", "name": "C-3PO", "primaryFunction": "Protocol"}]}}}"#)
        #expect(with.hero?.friends?.first??.asDroid?.primaryFunction == "Protocol")
    }

    @Test("a fragment spread under @include is there only when included")
    func conditionalFragment() throws {
        let included = try decode(
            HeroDetailsFragmentConditionalInclusionQuery(includeDetails: true),
            #"{"data": {"hero": {"__typename": "Droid", "name": "R2-D2", "primaryFunction": "Astromech"}}}"#)
        #expect(included.hero?.fragments.heroDetails?.name == "R2-D2")
        #expect(included.hero?.asDroid?.primaryFunction == "Astromech")
        let excluded = try decode(HeroDetailsFragmentConditionalInclusionQuery(includeDetails: false), #"{"data": {"hero": {"__typename": "Droid"}}}"#)
        #expect(excluded.hero?.fragments.heroDetails == nil)
        #expect(excluded.hero?.name == nil)
    }

    @Test("enums keep unknown values; nested lists of floats decode")
    func enumsAndLists() throws {
        let data = try decode(HeroAppearsInQuery(), #"{"data": {"hero": {"__typename": "Droid", "appearsIn": ["NEWHOPE", "JEDI", "ROGUE_ONE"]}}}"#)
        #expect(data.hero?.appearsIn == [.case(.newhope), .case(.jedi), .unknown("ROGUE_ONE")])
        let ship = try decode(StarshipQuery(), #"{"data": {"starship": {"__typename": "Starship", "name": "Falcon", "coordinates": [[1, 2.5], [3, 4]]}}}"#)
        #expect(ship.starship?.coordinates == [[1, 2.5], [3, 4]])
    }
}
