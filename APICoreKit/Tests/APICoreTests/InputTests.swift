@_spi(Generated) import APICore
import Foundation
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
        #expect(GraphQLNullable(5) == .some(5))
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

    @Test("an input object that holds itself (boxed as generated code boxes it) reads each level once, files included")
    func recursiveInput() throws {
        let file = GraphQLFile(data: Data("x".utf8), filename: "a.txt")
        var filter = CountedFilter(name: "leaf", attachment: .some(file))
        for level in 0..<24 { filter = CountedFilter(name: .some("level \(level)"), not: .some(filter)) }
        CountedFilter.reads.withLock { $0 = 0 }
        let variables = InputDict(["where": GraphQLNullable.some(filter)])
        // Each of the 25 levels' fields read once (before: twice per level, 2^25 in all).
        #expect(CountedFilter.reads.withLock { $0 } == 25)
        var json = variables.jsonObject["where"]
        for _ in 0..<24 {
            guard case .object(let object)? = json else { Issue.record("not an object: \(String(describing: json))"); return }
            json = object["not"]
        }
        #expect(json == ["name": "leaf", "attachment": nil])
        #expect(variables.files.map(\.path) == [["where"] + Array(repeating: "not", count: 24) + ["attachment"]])
        #expect(filter == filter)
        guard case .some(let not) = filter.not else { Issue.record("filter.not: \(filter.not)"); return }
        #expect(not.name == "level 22")
    }
}

/// An input object that holds itself, as the generator writes one (`not` boxed), counting how
/// often its fields are read.
private struct CountedFilter: InputObject {
    static let reads = Locked(0)

    var name: GraphQLNullable<String>
    var attachment: GraphQLNullable<GraphQLFile>
    var not: GraphQLNullable<CountedFilter> {
        get { __notStorage.value }
        set { __notStorage = InputIndirect(newValue) }
    }
    private var __notStorage: InputIndirect<GraphQLNullable<CountedFilter>>

    init(name: GraphQLNullable<String> = nil, attachment: GraphQLNullable<GraphQLFile> = nil, not: GraphQLNullable<CountedFilter> = nil) {
        self.name = name
        self.attachment = attachment
        __notStorage = InputIndirect(not)
    }

    var __data: InputDict {
        Self.reads.withLock { $0 += 1 }
        return InputDict(["name": name, "attachment": attachment, "not": not])
    }
}
