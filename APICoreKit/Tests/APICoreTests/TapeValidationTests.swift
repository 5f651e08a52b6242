@_spi(Engine) @_spi(Generated) @_spi(Tools) @testable import APICore
import Foundation
import GitHubOperations
import StarWarsOperations
import Testing

/// Checks `object` both ways: as a tree, and written out, read onto a tape and checked there.
/// Both must agree on the outcome (the same error, or equal data); the tape's data is returned
/// with the tree's.
private func bothWays<T: SelectionSet>(
    _: T.Type, _ object: JSONObject, variables: JSONObject = [:], sourceLocation: SourceLocation = #_sourceLocation
) throws -> (tree: T, tape: T)? {
    let bytes = Data(JSONSerializer.string(.object(object)).utf8)
    let tree = Result { () throws(GraphQLDecodingError) in try T(validating: object, variables: variables) }
    let tape = Result { () throws(GraphQLDecodingError) in try T(validating: try! JSONTape(reading: bytes).root, variables: variables) }
    switch (tree, tape) {
    case (.success(let tree), .success(let tape)):
        #expect(tree == tape, "the tape's data differs from the tree's", sourceLocation: sourceLocation)
        #expect(tree.hashValue == tape.hashValue, sourceLocation: sourceLocation)
        return (tree, tape)
    case (.failure(let treeError), .failure(let tapeError)):
        #expect(treeError == tapeError, sourceLocation: sourceLocation)
        return nil
    default:
        Issue.record("the tree says \(tree), the tape \(tape)", sourceLocation: sourceLocation)
        return nil
    }
}

@Suite("Checking answers on their tape")
struct TapeValidationTests {
    @Test("every combination of variables and hostile values: the tape and the tree agree, error for error, field for field")
    func combinations() throws {
        let hostileValues: [JSONValue?] = [nil, .null, 7, "text", ["x": 1], [1, "a"], true, 1.5, "\u{e9}\\\"\n"]
        let friendsValues: [JSONValue?] = hostileValues + [JSONValue.array([["__typename": "Human", "name": "Han"], .null])]
        var decoded = 0
        var onTape = 0
        for withName in [false, true] {
            for skipFriends in [false, true] {
                for typename in ["Droid", "Human", "Wookiee"] {
                    for name in hostileValues + ["R2-D2"] {
                        for friends in friendsValues {
                            for primaryFunction in hostileValues + ["Astromech"] {
                                var hero: JSONObject = ["__typename": .string(typename)]
                                hero["name"] = name
                                hero["friends"] = friends
                                hero["primaryFunction"] = primaryFunction
                                let variables: JSONObject = ["withName": .bool(withName), "skipFriends": .bool(skipFriends)]
                                guard let (tree, tape) = try bothWays(HeroConditionalQuery.Data.self, ["hero": .object(hero)], variables: variables)
                                else { continue }
                                decoded += 1
                                if tape.__data.isOnTape { onTape += 1 }
                                #expect(tape.hero?.name == tree.hero?.name)
                                #expect(tape.hero?.friends == tree.hero?.friends)
                                #expect(tape.hero?.friends?.map { $0?.name } == tree.hero?.friends?.map { $0?.name })
                                #expect(tape.hero?.asDroid?.primaryFunction == tree.hero?.asDroid?.primaryFunction)
                                #expect(tape.hero?.asDroid?.friends?.count == tree.hero?.asDroid?.friends?.count)
                            }
                        }
                    }
                }
            }
        }
        #expect(decoded > 100)
        // Fields a condition left out but the server sent go to the tree, which removes them;
        // the rest stays on the tape.
        #expect(onTape > 0 && onTape < decoded)
    }

    @Test("a key written twice reads as its last, escaped keys match, and numbers read as the tree reads them")
    func keysAndNumbers() throws {
        let text = #"{"hero":{"__typename":"Droid","appearsIn":["JEDI"],"appearsIn":["EMPIRE","NEWHOPE"],"na\u006de":"R2"}}"#
        let data = try ConditionalHero(validating: JSONTape(reading: text).root, variables: ["withName": true])
        #expect(data.__data.isOnTape)
        #expect(data.hero?.heroDetails.appearsIn == [.case(.empire), .case(.newHope)])
        #expect(data.hero?.name == "R2")
        let wrongLast = #"{"hero":{"__typename":"Droid","appearsIn":["JEDI"],"appearsIn":7}}"#
        #expect(throws: GraphQLDecodingError(path: ["hero", "appearsIn"], message: "expected a list, found a number")) {
            try ConditionalHero(validating: JSONTape(reading: wrongLast).root)
        }
        // An integral double is an Int, -0 is 0, a fraction is refused: as the tree says.
        for (literal, expected) in [("2.0", 2 as Int?), ("-0", 0), ("1.5", nil), ("1e400", nil), ("\"3\"", nil)] {
            let tape = try JSONTape(reading: #"{"id":"1","name":"n","primaryFunction":"p","friends":[],"appearsIn":[],"height":\#(literal)}"#)
            let checked = try? CountedHero(validating: tape.root)
            #expect(checked?.height == expected, "height \(literal)")
        }
    }

    @Test("a caught error stays in its field for the accessor; a deferred fragment goes to the tree's walk, which lists it pending")
    func caughtAndDeferred() throws {
        let caught = #"{"hero":{"__typename":"Human","name":"Luke"},"failingField":{"__caughtError":{"message":"boom"}}}"#
        let data = try HeroAndCaughtQuery.Data(validating: JSONTape(reading: caught).root)
        #expect(data.hero?.name == "Luke")
        guard case .failure(let error) = data.failingField else {
            Issue.record("the caught error was not read")
            return
        }
        #expect(error.message == "boom")
        let plain = try HeroAndCaughtQuery.Data(validating: JSONTape(reading: #"{"hero":null,"failingField":"ok"}"#).root)
        #expect(plain.__data.isOnTape)
        #expect(plain.failingField == .success("ok"))

        let pending = try LateHero(validating: JSONTape(reading: #"{"name":"Luke"}"#).root, variables: ["late": true])
        #expect(!pending.__data.isOnTape)
        #expect(pending.details == .pending)
        let arrived = try LateHero(validating: JSONTape(reading: #"{"name":"Luke","height":1.72}"#).root, variables: ["late": true])
        #expect(arrived.details.value?.height == 1.72)
        #expect(throws: GraphQLDecodingError(path: ["height"], message: "expected a number, found a string")) {
            try LateHero(validating: JSONTape(reading: #"{"name":"Luke","height":"tall"}"#).root, variables: ["late": true])
        }
        let notDeferred = try LateHero(validating: JSONTape(reading: #"{"name":"Luke","height":1.72}"#).root, variables: ["late": false])
        #expect(notDeferred.__data.isOnTape)
        #expect(notDeferred.details.value?.height == 1.72)
    }

    @Test("a selection set whose fragments narrow its type is checked flat for each possible type, as the walk checks it")
    func variantsPerTypename() throws {
        // `hero { __typename id name ... on Droid { primaryFunction } friends { … } }` on `Character`.
        #expect(TapePlan.of(HeroNameQuery.Data.Hero.self).variants.count == 2)
        #expect(TapePlan.of(HeroNameQuery.Data.Hero.self).entries == nil)
        // A condition leaves the walk to decide, object by object.
        #expect(TapePlan.of(HeroConditionalQuery.Data.Hero.self).variants.isEmpty)
        let values: [JSONValue?] = [nil, .null, 7, "text", ["x": 1], "\u{e9}\\\"\n"]
        let typenames: [JSONValue?] = ["Droid", "Human", "Wookiee", nil, .null, 3, ""]
        var onTape = 0
        var decoded = 0
        for typename in typenames {
            for name in values {
                for primaryFunction in values {
                    for friends in [nil, .null, [["__typename": "Human", "name": "Han"], .null], [7]] as [JSONValue?] {
                        var hero: JSONObject = ["id": "2001"]
                        hero["__typename"] = typename
                        hero["name"] = name
                        hero["primaryFunction"] = primaryFunction
                        hero["friends"] = friends
                        guard let (tree, tape) = try bothWays(HeroNameQuery.Data.self, ["hero": .object(hero)]) else { continue }
                        decoded += 1
                        if tape.__data.isOnTape { onTape += 1 }
                        #expect(tape.hero?.name == tree.hero?.name)
                        #expect(tape.hero?.asDroid?.primaryFunction == tree.hero?.asDroid?.primaryFunction)
                        #expect(tape.hero?.friends?.map { $0?.name } == tree.hero?.friends?.map { $0?.name })
                    }
                }
            }
        }
        #expect(decoded > 20)
        #expect(onTape == decoded)
        // A `__typename` written with an escape is the same type (the walk reads it as text).
        let escaped = #"{"hero":{"__typename":"Dr\u006fid","id":"1","name":"R2","primaryFunction":7}}"#
        #expect(throws: GraphQLDecodingError(path: ["hero", "primaryFunction"], message: "expected a string, found a number")) {
            try HeroNameQuery.Data(validating: JSONTape(reading: escaped).root)
        }
    }

    @Test("each built-in scalar, nullable or not, reads off the tape as it reads from the tree")
    func builtInScalars() throws {
        let values: [JSONValue?] = [nil, .null, 0, -7, .int(Int.max), 2.5, 2.0, .number(JSONNumber(unchecked: "1e400")), true, false, "", "é\n\"", ["x": 1], [1]]
        var decoded = 0
        for (key, _) in Scalars.__selections.enumerated() {
            for value in values {
                var object: JSONObject = [
                    "int": 1, "optionalInt": 2, "double": 1.5, "optionalDouble": 2, "bool": true, "optionalBool": false, "string": "s", "optionalString": "o",
                ]
                let name = Scalars.keys[key]
                object[name] = value
                guard let (tree, tape) = try bothWays(Scalars.self, object) else { continue }
                decoded += 1
                #expect(tape.__data.isOnTape)
                #expect(tape.int == tree.int && tape.optionalInt == tree.optionalInt, "\(name): \(String(describing: value))")
                #expect(tape.double == tree.double && tape.optionalDouble == tree.optionalDouble, "\(name): \(String(describing: value))")
                #expect(tape.bool == tree.bool && tape.optionalBool == tree.optionalBool, "\(name): \(String(describing: value))")
                #expect(tape.string == tree.string && tape.optionalString == tree.optionalString, "\(name): \(String(describing: value))")
            }
        }
        #expect(decoded >= 30)
    }

    @Test("data on a tape changes like any other: the first change makes it a tree, equal to the tree's")
    func changing() throws {
        let text = #"{"hero":{"__typename":"Droid","appearsIn":["JEDI"]}}"#
        var onTape = try ConditionalHero(validating: JSONTape(reading: text).root)
        let tree = try ConditionalHero(validating: JSONParser.parse(text).objectValue!)
        #expect(onTape == tree)
        #expect(onTape.jsonObject == tree.jsonObject)
        var changed = onTape.__data
        changed["extra"] = "x"
        #expect(!changed.isOnTape)
        #expect(changed._data["extra"] == "x")
        #expect(onTape.__data.isOnTape)
        onTape = ConditionalHero(_dataDict: changed)
        #expect(onTape != tree)
        #expect(throws: GraphQLDecodingError(message: "expected an object, found an array")) {
            try ConditionalHero(validating: JSONTape(reading: "[]").root)
        }
    }
}

/// `{ id name primaryFunction friends appearsIn height }` with `height: Int`, to read numbers.
private struct CountedHero: RootSelectionSet {
    let __data: DataDict
    init(_dataDict: DataDict) { __data = _dataDict }
    static let __parentType = ParentType.object("Droid")
    static let __selections: [Selection] = [
        .field(Field("id", .nonNull(.scalar(String.self)))),
        .field(Field("height", .nonNull(.scalar(Int.self)))),
    ]
    var height: Int { __data["height"] }
}

/// Every built-in scalar, nullable and not.
private struct Scalars: RootSelectionSet {
    let __data: DataDict
    init(_dataDict: DataDict) { __data = _dataDict }
    static let __parentType = ParentType.object("Query")
    static let keys = ["int", "optionalInt", "double", "optionalDouble", "bool", "optionalBool", "string", "optionalString"]
    static let __selections: [Selection] = [
        .field(Field("int", .nonNull(.scalar(Int.self)))),
        .field(Field("optionalInt", .scalar(Int.self))),
        .field(Field("double", .nonNull(.scalar(Double.self)))),
        .field(Field("optionalDouble", .scalar(Double.self))),
        .field(Field("bool", .nonNull(.scalar(Bool.self)))),
        .field(Field("optionalBool", .scalar(Bool.self))),
        .field(Field("string", .nonNull(.scalar(String.self)))),
        .field(Field("optionalString", .scalar(String.self))),
    ]
    var int: Int { __data["int"] }
    var optionalInt: Int? { __data["optionalInt"] }
    var double: Double { __data["double"] }
    var optionalDouble: Double? { __data["optionalDouble"] }
    var bool: Bool { __data["bool"] }
    var optionalBool: Bool? { __data["optionalBool"] }
    var string: String { __data["string"] }
    var optionalString: String? { __data["optionalString"] }
}

/// `{ name ... @defer(if: $late) { height } }`.
private struct LateHero: RootSelectionSet {
    let __data: DataDict
    init(_dataDict: DataDict) { __data = _dataDict }
    static let __parentType = ParentType.object("Human")
    static let __selections: [Selection] = [
        .field(Field("name", .nonNull(.scalar(String.self)))),
        .deferred(Deferral("details", label: "details", if: .include(if: "late")), [.inlineFragment(Details.self)]),
    ]
    var details: Deferred<Details> { _deferred("details") }

    struct Details: SelectionSet {
        let __data: DataDict
        init(_dataDict: DataDict) { __data = _dataDict }
        static let __parentType = ParentType.object("Human")
        static let __selections: [Selection] = [.field(Field("height", .nonNull(.scalar(Double.self))))]
        var height: Double { __data["height"] }
    }
}

/// GitHub's real answer to Apollo iOS's performance-test query (Fixtures/ThirdParty/apollo-ios),
/// read with the query generated against GitHub's schema: third-party data, not the engine's own
/// examples.
@Suite("GitHub's real answer")
struct GitHubAnswerTests {
    static let answer = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../Fixtures/ThirdParty/apollo-ios/Tests/ApolloPerformanceTests/Responses/IssuesAndCommentsForRepository.json")

    @Test("checked on its tape and through the tree, it is the same data, and every field reads as the JSON has it")
    func tapeAndTreeAgree() throws {
        let bytes = try Data(contentsOf: Self.answer)
        let object = try #require(try JSONParser.parse(bytes).objectValue?["data"]?.objectValue)
        let tree = try IssuesAndCommentsForRepositoryQuery.Data(validating: object)
        let tape = try IssuesAndCommentsForRepositoryQuery.Data(validating: try #require(try JSONTape(reading: bytes).root["data"]))
        #expect(tree == tape)
        // Every field read from the typed data, against Foundation's reading of the same bytes.
        let envelope = try #require(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
        let repository = try #require((envelope["data"] as? [String: Any])?["repository"] as? [String: Any])
        let issues = try #require((repository["issues"] as? [String: Any])?["nodes"] as? [[String: Any]])
        let read = try #require(tape.repository)
        #expect(read.name == repository["name"] as? String)
        let nodes = try #require(read.issues.nodes)
        #expect(nodes.count == issues.count)
        #expect(nodes.count == 100)
        var comments = 0
        for (issue, json) in zip(nodes, issues) {
            let issue = try #require(issue)
            #expect(issue.title == json["title"] as? String)
            #expect(issue.body == json["body"] as? String)
            let author = json["author"] as? [String: Any]
            #expect(issue.author?.login == author?["login"] as? String)
            #expect(issue.author?.asUser?.name == author?["name"] as? String)
            let jsonComments = try #require((json["comments"] as? [String: Any])?["nodes"] as? [[String: Any]])
            for (comment, json) in zip(issue.comments.nodes ?? [], jsonComments) {
                #expect(comment?.body == json["body"] as? String)
                #expect(comment?.author?.asUser?.id == (json["author"] as? [String: Any])?["id"] as? String)
                comments += 1
            }
        }
        #expect(comments > 100)
    }
}
