@_spi(Generated) import APICore
import APICoreSupport
import StarWarsOperations
import Testing

@Suite("Variables: GraphQLNullable, GraphQLEnum, input objects")
struct InputTests {
    @Test("absent, null and a value are three different things")
    func nullable() {
        let absent: GraphQLNullable<String> = nil
        #expect(absent._inputJSON == nil)
        #expect(GraphQLNullable<String>.null._inputJSON == .null)
        let value: GraphQLNullable<String> = "x"
        #expect(value._inputJSON == "x")
        #expect(GraphQLNullable<Int>(orNull: nil) == .null)
        #expect(GraphQLNullable<Int>(nil as Int?) == .none)
        #expect(GraphQLNullable(5).unwrapped == 5)
    }

    @Test("an operation's variables leave absent ones out, keep nulls, and nest input objects")
    func variables() {
        let mutation = CreateReviewMutation(episode: nil, review: ReviewInput(stars: 3, commentary: .null))
        #expect(mutation.variablesJSON == ["review": ["stars": 3, "commentary": nil]])
        let withEpisode = CreateReviewMutation(episode: .some(.init(.empire)), review: ReviewInput(stars: 3))
        #expect(withEpisode.variablesJSON == ["episode": "EMPIRE", "review": ["stars": 3]])
    }

    @Test("unknown enum values are kept, not rejected")
    func enums() throws {
        let known = GraphQLEnum<Episode>(rawValue: "JEDI")
        #expect(known == .jedi)
        #expect(known.value == .jedi)
        let unknown = GraphQLEnum<Episode>(rawValue: "ROGUE_ONE")
        #expect(unknown == .unknown("ROGUE_ONE"))
        #expect(unknown.value == nil)
        #expect(unknown.rawValue == "ROGUE_ONE")
        #expect(unknown._inputJSON == "ROGUE_ONE")
        #expect(try GraphQLEnum<Episode>(_fieldValue: "EMPIRE") == .empire)
        #expect(throws: GraphQLDecodingError.self) { try GraphQLEnum<Episode>(_fieldValue: 4) }
    }

    @Test("a field's cache key leaves out an argument whose variable has no value, and such fields of input objects; null stays")
    func leftOutVariablesInKeys() {
        let field = Field(
            "search", .scalar(String.self),
            arguments: ["text": .variable("text"), "filter": .object(["kind": .variable("kind"), "tags": .list([.variable("tag"), .value("x")])])])
        #expect(CacheNaming.storageKey(field, variables: [:]) == #"search(filter:{"tags":[null,"x"]})"#)
        #expect(CacheNaming.storageKey(field, variables: ["text": nil, "kind": "A"]) == #"search(filter:{"kind":"A","tags":[null,"x"]},text:null)"#)
        let hero = Field("hero", .scalar(String.self), arguments: ["episode": .variable("episode")])
        #expect(CacheNaming.storageKey(hero, variables: [:]) == "hero")
        #expect(CacheNaming.storageKey(hero, variables: ["episode": nil]) == "hero(episode:null)")
        #expect(ArgumentValue.variable("episode").resolved(with: [:]) == nil)
    }
}
