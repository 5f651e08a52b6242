import APICore
import APICoreTesting
import StarWarsAPI
import StarWarsAPITestMocks
import Testing

@Suite("Generated test mocks build any operation's data")
struct MockTests {
    @Test("nested mocks, lists of interface-typed mocks, enums")
    func nested() throws {
        let luke = Mock.Human(id: "1000", name: "Luke Skywalker", appearsIn: [.init(.newhope), .init(.empire)])
        let r2 = Mock.Droid(id: "2001", name: "R2-D2", friends: [luke, nil, Mock.Droid(name: "C-3PO")])
        let data = try HeroAndFriendsNamesQuery.Data(mock: Mock.Query(hero: r2))
        #expect(data.hero?.name == "R2-D2")
        #expect(data.hero?.friends?.map { $0?.name } == ["Luke Skywalker", nil, "C-3PO"])
        let appearances = try SameHeroTwiceQuery.Data(mock: Mock.Query(hero: luke))
        #expect(appearances.r2?.appearsIn == [.init(.newhope), .init(.empire)])
        #expect(appearances.hero?.name == "Luke Skywalker")
    }

    @Test("type cases and fragments apply by the mock's type")
    func typeConditions() throws {
        let human = try HeroDetailsQuery.Data(mock: Mock.Query(hero: Mock.Human(name: "Leia", height: 1.5)))
        #expect(human.hero?.asHuman?.height == 1.5)
        #expect(human.hero?.asDroid == nil)
        let droid = try HeroDetailsWithFragmentQuery.Data(mock: Mock.Query(hero: Mock.Droid(name: "R2-D2", primaryFunction: "Astromech")))
        #expect(droid.hero?.fragments.heroDetails.asDroid?.primaryFunction == "Astromech")
        #expect(droid.hero?.fragments.heroDetails.name == "R2-D2")
    }

    @Test("@include follows the variables the data is built with")
    func conditions() throws {
        let mock = Mock.Query(hero: Mock.Droid(name: "R2-D2"))
        let included = try HeroNameConditionalInclusionQuery.Data(mock: mock, variables: ["includeName": true])
        let excluded = try HeroNameConditionalInclusionQuery.Data(mock: mock, variables: ["includeName": false])
        #expect(included.hero?.name == "R2-D2")
        #expect(excluded.hero?.name == nil)
    }

    @Test("a non-null field the mock leaves unset is an error with its path; a nullable one is null")
    func missing() throws {
        let han = try HeroDetailsQuery.Data(mock: Mock.Query(hero: Mock.Human(name: "Han")))
        #expect(han.hero?.asHuman != nil)
        #expect(han.hero?.asHuman?.height == nil)
        let error = #expect(throws: MockDataError.self) { try HeroNameQuery.Data(mock: Mock.Query(hero: Mock.Human())) }
        #expect(error?.description == "hero.name: Mock.Human has no value for 'name', which the selection set needs")
    }

    @Test("MockAPIClient answers an operation from a mock")
    func mockClient() async throws {
        let client = MockAPIClient()
        client.stub(operation: "HeroName", mock: Mock.Query(hero: Mock.Droid(name: "R2-D2")))
        client.stub(operation: "HeroName", mock: Mock.Query(hero: Mock.Droid()))
        #expect(try await client.fetch(HeroNameQuery()).value.hero?.name == "R2-D2")
        let error = await #expect(throws: APIError.self) { try await client.fetch(HeroNameQuery()) }
        #expect(error?.description.contains("Mock.Droid has no value for 'name'") == true)
    }
}
